//! The `routine_validator` hook (the original's since 2026-03-31): a PreToolUse answer on the
//! agent's `Write`, `Edit` and `MultiEdit` of a routine or reminder file (`routines/*.md`,
//! `reminders/*.md` in the data directory), given before the write lands.
//!
//! The file as it would be after the call — the `Write`'s content, or the `Edit`'s replacement
//! applied to the file now — is checked by [`crate::jobs::validate`]. A file the scheduler could
//! not register is refused, the reason starting `routine-validator:` (the model reads it as
//! the tool's error); warnings let the write go on and reach the model as the hook's
//! `additionalContext`. An `Edit` whose text is not found is left to the CLI, which refuses it
//! itself.

use std::path::{Component, Path, PathBuf};

use serde_json::{json, Value};

use crate::base::data_dir::DataDir;
use crate::claude::brain::HookCall;
use crate::jobs::validate::{check, Kind};

/// What every answer of this hook starts with.
pub const PREFIX: &str = "routine-validator:";

/// The hook's answer to a PreToolUse call of `tool` with `input`, or `None` when the call does
/// not write a routine or reminder file or there is nothing to say.
pub fn review(tool: &str, input: &Value, data: &DataDir) -> Option<Value> {
    let raw = input.get("file_path")?.as_str()?;
    let path = absolute(raw, data.root());
    let kind = job_kind(&path, data)?;
    let text = resulting_text(tool, input, &path)?;
    let rel = path
        .strip_prefix(data.root())
        .unwrap_or(&path)
        .display()
        .to_string();
    let verdict = check(kind, &text);
    let also = if verdict.warnings.is_empty() {
        String::new()
    } else {
        format!(" Also: {}.", verdict.warnings.join("; "))
    };
    if let Some(problem) = verdict.problem {
        tracing::warn!(file = %rel, %problem, "routine validator refused a write");
        return Some(HookCall::deny_tool(format!(
            "{PREFIX} {rel} was not written: {problem}. The scheduler could not run it; fix \
             the frontmatter and write the file again.{also}"
        )));
    }
    if verdict.warnings.is_empty() {
        return None;
    }
    tracing::info!(file = %rel, warnings = ?verdict.warnings, "routine validator warned");
    Some(json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "additionalContext": format!(
            "{PREFIX} {rel} is valid, with warnings worth fixing: {}.",
            verdict.warnings.join("; ")
        ),
    }}))
}

/// `raw` made absolute against the data directory, `.` and `..` resolved by their names.
fn absolute(raw: &str, root: &Path) -> PathBuf {
    let joined = root.join(raw);
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Which kind of job file `path` is: a `*.md` directly inside `routines/` or `reminders/`.
fn job_kind(path: &Path, data: &DataDir) -> Option<Kind> {
    if path.extension().and_then(|e| e.to_str()) != Some("md") {
        return None;
    }
    let parent = path.parent()?;
    let same = |dir: PathBuf| {
        parent == dir
            || matches!(
                (parent.canonicalize(), dir.canonicalize()),
                (Ok(a), Ok(b)) if a == b
            )
    };
    if same(data.routines()) {
        Some(Kind::Routine)
    } else if same(data.reminders()) {
        Some(Kind::Reminder)
    } else {
        None
    }
}

/// The file's text after the call, or `None` when the call will fail anyway (an edit whose
/// text is missing or not unique) or is not a write this hook knows.
fn resulting_text(tool: &str, input: &Value, path: &Path) -> Option<String> {
    match tool {
        "Write" => input.get("content")?.as_str().map(str::to_owned),
        "Edit" => replace(&std::fs::read_to_string(path).ok()?, input),
        "MultiEdit" => {
            let mut text = std::fs::read_to_string(path).ok()?;
            for edit in input.get("edits")?.as_array()? {
                text = replace(&text, edit)?;
            }
            Some(text)
        }
        _ => None,
    }
}

/// One edit (`old_string`, `new_string`, `replace_all`) applied as the CLI applies it.
fn replace(text: &str, edit: &Value) -> Option<String> {
    let old = edit.get("old_string")?.as_str()?;
    let new = edit.get("new_string")?.as_str()?;
    let all = edit
        .get("replace_all")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if old.is_empty() {
        return None;
    }
    match (text.matches(old).count(), all) {
        (0, _) => None,
        (_, true) => Some(text.replace(old, new)),
        (1, false) => Some(text.replacen(old, new, 1)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> (tempfile::TempDir, DataDir) {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path().join("d"));
        data.ensure().unwrap();
        (tmp, data)
    }

    fn reason(answer: &Value) -> &str {
        answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default()
    }

    const GOOD: &str =
        "---\nid: a\ncron: \"0 9 * * *\"\nbackground: true\ndescription: d\n---\nhi\n";

    #[test]
    fn a_write_that_would_break_a_routine_is_denied_with_the_prefix() {
        let (_tmp, data) = data();
        let input = json!({"file_path": "routines/a.md", "content": "---\nid: a\n---\nhi\n"});
        let answer = review("Write", &input, &data).expect("an answer");
        assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
        assert!(
            reason(&answer).starts_with(
                "routine-validator: routines/a.md was not written: missing required field `cron`."
            ),
            "{answer}"
        );
        let good = json!({"file_path": "routines/a.md", "content": GOOD});
        assert_eq!(review("Write", &good, &data), None);
        // Not a job file: no opinion, however it looks.
        let notes = json!({"file_path": "notes/a.md", "content": "x"});
        assert_eq!(review("Write", &notes, &data), None);
        let nested = json!({"file_path": "routines/old/a.md", "content": "x"});
        assert_eq!(review("Write", &nested, &data), None);
        let dotted = data.root().join("notes/../reminders/r.md");
        let reminder = json!({"file_path": dotted, "content": "no frontmatter"});
        assert!(reason(&review("Write", &reminder, &data).unwrap()).contains("no YAML"));
    }

    #[test]
    fn an_edit_is_checked_on_the_file_it_would_leave() {
        let (_tmp, data) = data();
        let file = data.routines().join("a.md");
        std::fs::write(&file, GOOD).unwrap();
        let edit =
            |old: &str, new: &str| json!({"file_path": file, "old_string": old, "new_string": new});
        let broken = review("Edit", &edit("0 9 * * *", "0 9 * *"), &data).unwrap();
        assert!(reason(&broken).contains("must have 5 fields"), "{broken}");
        assert_eq!(review("Edit", &edit("hi", "hello"), &data), None);
        // Text the file does not hold: the CLI refuses the edit itself.
        assert_eq!(review("Edit", &edit("absent", "x"), &data), None);
        let warned = review("Edit", &edit("description: d\n", ""), &data).unwrap();
        let context = warned["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or_default();
        assert!(
            context.starts_with("routine-validator: routines/a.md is valid, with warnings")
                && context.contains("no `description`"),
            "{warned}"
        );
        assert!(warned["hookSpecificOutput"]
            .get("permissionDecision")
            .is_none());
    }
}
