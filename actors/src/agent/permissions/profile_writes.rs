//! Background forks never write the agent's memory or profile (SPEC §18): `context.md`,
//! `USER.md` and `IDENTITY.md` at the data directory's root. What a background run reads may be
//! hostile; it passes what it found on with `report_updates`, and the conversation decides what
//! to keep. A PreToolUse hook of the background fork's host refuses the file tools naming one
//! of them (as written or where a symlink leads), whatever the job's `allowed-tools` say: they
//! run inside the CLI, outside any OS sandbox. A background job's Bash command is the
//! sandbox's to stop (`sandbox_rules` denies writing these files); without a sandbox in force,
//! `no_sandbox`'s coarse rule refuses a command naming one ([`super::no_sandbox::profile`]).

use std::path::Path;

use serde_json::Value;

use super::file_rules::{is_file_write_tool, lexical, real_path};
use super::secret_reads::call_cwd;
use crate::agent::memory::FILE_NAME as MEMORY_FILE;
use crate::agent::system_prompt::{IDENTITY_FILE, USER_FILE};

/// The files only the conversation and interactive forks may write.
pub const CONVERSATION_ONLY: [&str; 3] = [MEMORY_FILE, USER_FILE, IDENTITY_FILE];

/// The refusal a background fork's call gets, or `None` when it writes none of
/// [`CONVERSATION_ONLY`]. `input` is the hook input (`tool_name`, `tool_input`, `cwd`).
pub fn background_refusal(input: &Value, root: &Path) -> Option<String> {
    let tool = input.get("tool_name").and_then(Value::as_str)?;
    let args = input.get("tool_input")?;
    let cwd = call_cwd(input, root);
    if !is_file_write_tool(tool) {
        return None;
    }
    let target = ["file_path", "notebook_path"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))?;
    let file = CONVERSATION_ONLY
        .into_iter()
        .find(|name| names(&cwd.join(target), root, name))?;
    Some(refusal_text(tool, file))
}

/// What a background fork reads when `how` (a tool, `Bash`) was refused writing `file`.
pub fn refusal_text(how: &str, file: &str) -> String {
    format!(
        "{how} was refused: background tasks never change {file} (the owner's memory and \
         profile). Pass what should be remembered on with report_updates instead; the \
         conversation decides what to keep. {file} is unchanged."
    )
}

/// True when a file tool's `input` names `context.md` at the data directory's root.
pub fn names_memory(input: &Value, root: &Path) -> bool {
    ["file_path", "notebook_path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .is_some_and(|target| names(&root.join(target), root, MEMORY_FILE))
}

/// True when `path` is `root/name`, as written or once symlinks are followed.
fn names(path: &Path, root: &Path, name: &str) -> bool {
    let wanted = lexical(&root.join(name));
    if lexical(path) == wanted {
        return true;
    }
    match (real_path(path), real_path(&root.join(name))) {
        (Some(real), Some(target)) => real == target,
        (Some(real), None) => real_path(root).is_some_and(|r| real == r.join(name)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refusal(tool: &str, args: Value, root: &Path) -> Option<String> {
        background_refusal(
            &json!({"tool_name": tool, "tool_input": args, "cwd": root}),
            root,
        )
    }

    #[test]
    fn file_tools_on_the_memory_and_profile_are_refused_with_report_updates() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for (tool, file) in [
            ("Write", "context.md"),
            ("Edit", "./context.md"),
            ("MultiEdit", "notes/../USER.md"),
            ("Write", "IDENTITY.md"),
        ] {
            let why = refusal(tool, json!({"file_path": file}), root)
                .unwrap_or_else(|| panic!("{tool} {file} passed"));
            assert!(why.contains("report_updates"), "{why}");
            assert!(why.starts_with(&format!("{tool} was refused")), "{why}");
        }
        let abs = root.join("context.md");
        assert!(refusal("Write", json!({"file_path": abs}), root).is_some());
        for file in ["notes/context.md", "journal.md", "routines/x.md"] {
            assert_eq!(refusal("Write", json!({"file_path": file}), root), None);
        }
        assert_eq!(
            refusal("Read", json!({"file_path": "context.md"}), root),
            None
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_to_the_memory_is_refused_too() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::write(root.join("context.md"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("context.md"), root.join("alias.md")).unwrap();
        assert!(refusal("Edit", json!({"file_path": "alias.md"}), root).is_some());
    }
}
