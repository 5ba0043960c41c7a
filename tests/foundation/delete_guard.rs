//! `tasks delete` run by a background job is refused even when the job strips its own mark:
//! the CLI reads the mark its ancestors were started with too (SPEC §20).

use std::process::Command;

const REFUSAL: &str = "background jobs cannot delete tasks or events";

/// Runs `ollim-bot tasks delete <id>` from a shell whose environment carries `mark`, with
/// `strip` removing the mark from the command's own environment.
fn delete_from_a_shell(mark: Option<&str>, strip: bool) -> (bool, String) {
    let data = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_ollim-bot");
    let unset = if strip {
        "env -u OLLIM_AGENT_SESSION "
    } else {
        ""
    };
    let mut shell = Command::new("sh");
    // `exec` is avoided on purpose: the command must run as the shell's child.
    shell
        .args([
            "-c",
            &format!("{unset}'{bin}' tasks delete abc123; exit $?"),
        ])
        .env("OLLIM_DATA_DIR", data.path())
        .env_remove("OLLIM_AGENT_SESSION");
    if let Some(mark) = mark {
        shell.env("OLLIM_AGENT_SESSION", mark);
    }
    let out = shell.output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_background_job_that_strips_its_mark_is_still_refused() {
    let (ok, stderr) = delete_from_a_shell(Some("background"), true);
    assert!(!ok);
    assert!(stderr.contains(REFUSAL), "{stderr}");
    let (ok, stderr) = delete_from_a_shell(Some("background"), false);
    assert!(!ok);
    assert!(stderr.contains(REFUSAL), "{stderr}");
}

#[test]
fn the_owners_own_shell_is_not_taken_for_a_job() {
    let (ok, stderr) = delete_from_a_shell(None, false);
    assert!(!ok, "no Google connection here");
    assert!(!stderr.contains(REFUSAL), "{stderr}");
}
