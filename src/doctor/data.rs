//! The data directory: present, writable (asked of the system, nothing written), and a git
//! repository with `git` installed, so markdown changes get committed; the agent's memory,
//! `context.md`, within the size a session carries.

use std::path::Path;
use std::process::{Command, Stdio};

use rustix::fs::{access, Access};

use super::{Check, Inputs};

/// The data directory checks.
pub fn checks(inputs: &Inputs<'_>) -> Vec<Check> {
    let root = inputs.data.root();
    if !root.exists() {
        return vec![Check::warn(
            "data directory",
            format!("{} does not exist yet", root.display()),
            "the first start creates it (or set OLLIM_DATA_DIR to your existing one)",
        )];
    }
    if !root.is_dir() {
        return vec![Check::fail(
            "data directory",
            format!("{} is not a directory", root.display()),
            "move that file away, or set OLLIM_DATA_DIR elsewhere",
        )];
    }
    let mut checks = vec![writable(root, "data directory")];
    let state = inputs.data.state();
    if state.is_dir() {
        checks.push(writable(&state, "state/"));
    }
    checks.push(git(root));
    checks.extend(memory(&inputs.data));
    checks
}

/// `context.md`, the agent's memory: its size against what the system prompt carries (SPEC
/// §18); nothing when there is none yet.
fn memory(data: &ollim_actors::base::data_dir::DataDir) -> Option<Check> {
    use ollim_actors::agent::memory::{over_limit, read, FILE_NAME, PROMPT_CAP};
    let check = match read(data) {
        Ok(None) => return None,
        Ok(Some(text)) => match over_limit(&text) {
            None => Check::pass(
                FILE_NAME,
                format!(
                    "{} characters of the {PROMPT_CAP} a session carries",
                    text.chars().count()
                ),
            ),
            Some(over) => Check::warn(
                FILE_NAME,
                format!(
                    "{over} characters over its limit of {PROMPT_CAP}: sessions see only the \
                     first {PROMPT_CAP}"
                ),
                "ask the assistant to condense its memory, or edit context.md (`ollim-bot memory show`)",
            ),
        },
        Err(e) => Check::warn(
            FILE_NAME,
            format!("cannot be read: {e}"),
            "make context.md a readable text file, or remove it",
        ),
    };
    Some(check)
}

fn writable(dir: &Path, name: &str) -> Check {
    match access(dir, Access::WRITE_OK | Access::EXEC_OK) {
        Ok(()) => Check::pass(name, format!("{} is writable", dir.display())),
        Err(e) => Check::fail(
            name,
            format!("{} is not writable: {e}", dir.display()),
            format!(
                "give the user running the bot write access (`chown -R $USER {}`)",
                dir.display()
            ),
        ),
    }
}

fn git(root: &Path) -> Check {
    let installed = Command::new("git")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        return Check::warn(
            "git",
            "git is not installed: changes to routines, reminders and skills are not committed",
            "install git (the bot then makes the data directory a repository at start)",
        );
    }
    if root.join(".git").exists() {
        Check::pass("git", "the data directory is a git repository")
    } else {
        Check::warn(
            "git",
            "the data directory is not a git repository yet, so changes are not committed",
            "start the bot once (it runs `git init`), or run `git init` there",
        )
    }
}
