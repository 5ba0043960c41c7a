//! The agent's living memory, `context.md` at the data directory's root (SPEC §18).
//!
//! - [`prompt_section`]: what every session's system prompt ends with — the shipped
//!   `config/prompts/memory.md` (what the file is for, who may write it), then the file itself,
//!   at most [`PROMPT_CAP`] characters of it, with a line saying how far over the limit it is
//!   when it is longer. It is read each time a session's CLI is started (main, interactive
//!   fork, background fork, isolated too), so a change shows in the next session; it goes last
//!   so that the unchanging part of the prompt before it stays the same from one start to the
//!   next. A resumed or forked process may keep its session's first system prompt instead of
//!   ours (the CLI's releases differ, see `claude::brain::releases`), so for those
//!   [`system_prompt_for`] points at [`first_message`], which opens the process's first message
//!   with the file as it is then.
//! - [`versions`]: every change committed in the data directory's git (`auto: memory …`), the
//!   last changes, and undo; [`status`]: what `/memory` and `memory show` say about it.
//!
//! Who may write it is the permissions' business: background forks are refused (their
//! `profile_writes`); the conversation's allow list already holds `Write(**.md)` and
//! `Edit(**.md)`, so it never asks in any mode.

pub mod status;
pub mod versions;

use std::io;
use std::path::PathBuf;

use crate::base::data_dir::DataDir;
use crate::claude::brain::releases::memory_in_first_message;
use crate::claude::brain::SessionStart;

/// The memory file's name at the data directory's root.
pub const FILE_NAME: &str = "context.md";

/// The most characters of `context.md` a system prompt carries.
pub const PROMPT_CAP: usize = 12_000;

const GUIDE: &str = include_str!("../../../../config/prompts/memory.md");

/// Where `context.md` is.
pub fn path(data: &DataDir) -> PathBuf {
    data.root().join(FILE_NAME)
}

/// The file's text; `None` when there is none. A file that cannot be read is an error.
pub fn read(data: &DataDir) -> io::Result<Option<String>> {
    match std::fs::read_to_string(path(data)) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// How many characters `text` has beyond [`PROMPT_CAP`], or `None` when it fits.
pub fn over_limit(text: &str) -> Option<usize> {
    let chars = text.chars().count();
    (chars > PROMPT_CAP).then(|| chars - PROMPT_CAP)
}

/// The line that follows a cut file in the prompt.
pub fn over_limit_line(over: usize) -> String {
    format!(
        "[context.md is {over} characters over its {PROMPT_CAP}-character limit; only the first \
         {PROMPT_CAP} are shown above. Condense it now: merge, shorten, drop what no longer matters.]"
    )
}

/// The memory section: the guide, then [`file_section`].
pub fn prompt_section(data: &DataDir) -> String {
    format!("{}\n\n{}", GUIDE.trim(), file_section(data))
}

/// `### context.md` with the file (capped), or a line saying it is empty. An unreadable file is
/// logged and shown as such.
pub fn file_section(data: &DataDir) -> String {
    let mut out = "### context.md\n\n".to_owned();
    match read(data) {
        Ok(Some(text)) if !text.trim().is_empty() => {
            let text = text.trim_end();
            match over_limit(text) {
                None => out.push_str(text),
                Some(over) => {
                    out.extend(text.chars().take(PROMPT_CAP));
                    out.push_str("\n\n");
                    out.push_str(&over_limit_line(over));
                }
            }
        }
        Ok(_) => out.push_str("(empty: nothing remembered yet)"),
        Err(cause) => {
            tracing::warn!(file = %path(data).display(), %cause, "context.md unreadable; left out of the prompt");
            out.push_str("(could not be read)");
        }
    }
    out
}

/// When and how big `context.md` was: enough to tell that it changed.
pub type Stamp = (std::time::SystemTime, u64);

/// The file's stamp now; `None` when there is none (or it cannot be read).
pub fn stamp(data: &DataDir) -> Option<Stamp> {
    let meta = std::fs::metadata(path(data)).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// `base` (the system prompt built at start) with the memory section read now appended.
pub fn with_memory(base: &str, data: &DataDir) -> String {
    let mut out = base.trim_end().to_owned();
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(&prompt_section(data));
    out.push('\n');
    out
}

/// The system prompt of a process that starts as `start`: `base` with the memory section
/// ([`with_memory`]) for a new session; for a resumed or forked one, `base` with the guide and a
/// pointer to [`first_message`], which carries the file. The CLI may keep a resumed session's
/// first system prompt and drop this one (see `claude::brain::releases`), so there the file
/// must ride in the first message; saying it in both places would only double it.
pub fn system_prompt_for(base: &str, data: &DataDir, start: &SessionStart) -> String {
    if !memory_in_first_message(start) {
        return with_memory(base, data);
    }
    let mut out = base.trim_end().to_owned();
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(GUIDE.trim());
    out.push_str("\n\n### context.md\n\n");
    out.push_str(POINTER);
    out.push('\n');
    out
}

/// What a resumed or forked process's system prompt says in place of the file.
const POINTER: &str = "(shown as it is now at the top of the first message this process \
receives; the latest copy in the conversation is the current one)";

/// The first message a resumed or forked process receives: `message` with the memory section
/// read now, under a line saying it replaces any older copy — before the message, or after it
/// when the message is a command (`/skill …`), which the CLI expands only at position 0.
pub fn first_message(data: &DataDir, message: &str) -> String {
    let memory = format!(
        "[memory: context.md as it is now; it replaces any older copy in your instructions or \
         earlier in this conversation]\n\n{}",
        file_section(data)
    );
    if message.starts_with('/') {
        format!("{}\n\n---\n\n{memory}", message.trim_end())
    } else {
        format!("{memory}\n\n---\n\n{message}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> (tempfile::TempDir, DataDir) {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        (tmp, data)
    }

    #[test]
    fn the_file_follows_the_base_prompt_under_its_heading() {
        let (_tmp, data) = data();
        std::fs::write(path(&data), "- Robin is moving in May\n").unwrap();
        let prompt = with_memory("# Pip\n\n---\n\n## Capturing tasks\n", &data);
        let guide = prompt.find("## Memory\n").unwrap();
        let file = prompt
            .find("### context.md\n\n- Robin is moving in May")
            .unwrap();
        assert!(prompt.find("## Capturing tasks").unwrap() < guide && guide < file);
        assert!(prompt.ends_with("- Robin is moving in May\n"));
    }

    #[test]
    fn a_missing_or_blank_file_is_said_to_be_empty() {
        let (_tmp, data) = data();
        assert!(
            prompt_section(&data).ends_with("### context.md\n\n(empty: nothing remembered yet)")
        );
        std::fs::write(path(&data), "\n  \n").unwrap();
        assert!(prompt_section(&data).ends_with("(empty: nothing remembered yet)"));
    }

    #[test]
    fn a_file_over_the_cap_is_cut_with_the_over_limit_line() {
        let (_tmp, data) = data();
        let text: String = "é".repeat(13_000);
        std::fs::write(path(&data), &text).unwrap();
        let section = prompt_section(&data);
        let body = section.split("### context.md\n\n").nth(1).unwrap();
        let (kept, line) = body.split_once("\n\n").unwrap();
        assert_eq!(kept.chars().count(), PROMPT_CAP);
        assert_eq!(line, over_limit_line(1_000));
        assert!(line.contains("1000 characters over its 12000-character limit"));
        assert_eq!(over_limit(&"x".repeat(PROMPT_CAP)), None);
        assert_eq!(over_limit(&"x".repeat(PROMPT_CAP + 1)), Some(1));
    }

    #[test]
    fn a_resumed_or_forked_process_reads_the_file_in_its_first_message_only() {
        let (_tmp, data) = data();
        std::fs::write(path(&data), "- Robin is moving in May\n").unwrap();
        let new = system_prompt_for("# Pip", &data, &SessionStart::NewWithId("a".into()));
        assert!(new.contains("### context.md\n\n- Robin is moving in May"));
        for start in [
            SessionStart::Resume("a".into()),
            SessionStart::Fork("a".into()),
        ] {
            let prompt = system_prompt_for("# Pip", &data, &start);
            assert!(prompt.contains("## Memory\n"), "the guide stays");
            assert!(!prompt.contains("Robin"), "the file is not doubled");
            assert!(prompt.contains(POINTER));
        }
        let command = first_message(&data, "/daily-plan today\n\n[2026-11-28 Sat]");
        assert!(command.starts_with("/daily-plan today\n\n[2026-11-28 Sat]\n\n---\n\n[memory:"));
        let first = first_message(&data, "[routine-bg:r1] look");
        assert!(first.starts_with("[memory: context.md as it is now"));
        assert!(first
            .contains("### context.md\n\n- Robin is moving in May\n\n---\n\n[routine-bg:r1] look"));
    }
}
