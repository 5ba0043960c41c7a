//! Short, bounded runs of the `claude` binary outside a session: its version
//! (`claude --version`) and, for [`super::auth`], `claude auth status`. Each run has a deadline
//! so a hung CLI never holds up a start, `doctor` or `/version`.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long `claude --version` may take.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs `binary args…` with no input, returning its exit code and stdout, or why it could not
/// (not startable, or still running after `timeout`, when it is killed). Blocks the calling
/// thread for up to `timeout`.
pub fn run_short(
    binary: &Path,
    args: &[&str],
    timeout: Duration,
) -> Result<(Option<i32>, String), String> {
    let shown = format!("`claude {}`", args.join(" "));
    let mut child = Command::new(binary)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("could not run {}: {e}", binary.display()))?;
    let Some(mut stdout) = child.stdout.take() else {
        return Err("no stdout pipe".to_owned());
    };
    // The reader finishes when the CLI closes stdout (normally: when it exits), so waiting on
    // it with a deadline bounds the whole run without polling.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let read = stdout.read_to_string(&mut text).map(|_| text);
        let _ = tx.send(read);
    });
    match rx.recv_timeout(timeout) {
        Ok(Ok(text)) => {
            let status = child
                .wait()
                .map_err(|e| format!("waiting for {shown}: {e}"))?;
            Ok((status.code(), text))
        }
        Ok(Err(e)) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(format!("reading {shown}: {e}"))
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(format!(
                "{shown} did not answer within {}s",
                timeout.as_secs()
            ))
        }
    }
}

/// The CLI's version line (`2.1.330 (Claude Code)`), or why there is none.
pub fn version(binary: &Path) -> Result<String, String> {
    let (code, out) = run_short(binary, &["--version"], VERSION_TIMEOUT)?;
    let line = out.lines().next().unwrap_or("").trim().to_owned();
    match code {
        Some(0) if !line.is_empty() => Ok(line),
        _ => Err(format!(
            "`claude --version` exited with {} and printed {line:?}",
            code.map_or_else(|| "a signal".to_owned(), |c| format!("code {c}"))
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &Path, body: &str) -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("claude");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn version_is_the_first_line_the_cli_prints() {
        let dir = tempfile::tempdir().unwrap();
        let bin = script(dir.path(), "echo '2.1.330 (Claude Code)'");
        assert_eq!(version(&bin).unwrap(), "2.1.330 (Claude Code)");
    }

    #[test]
    fn a_failing_or_silent_cli_has_no_version() {
        let dir = tempfile::tempdir().unwrap();
        let bin = script(dir.path(), "exit 3");
        assert!(version(&bin).unwrap_err().contains("code 3"));
        assert!(version(Path::new("/nonexistent/claude"))
            .unwrap_err()
            .contains("could not run"));
    }
}
