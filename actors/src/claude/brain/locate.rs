//! Finding the `claude` binary (protocol reference §2): `OLLIM_CLAUDE_BIN` when set, else
//! `claude` on `PATH`, else an error that says how to install it.

use std::env;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::Error;

/// The variable naming an explicit binary.
pub const BINARY_VAR: &str = "OLLIM_CLAUDE_BIN";

/// Finds the CLI using the process environment.
pub fn find_claude() -> Result<PathBuf, Error> {
    find_claude_in(
        env::var_os(BINARY_VAR).as_deref(),
        env::var_os("PATH").as_deref(),
    )
}

/// Finds the CLI from an explicit override and a `PATH` value (separated for tests).
pub fn find_claude_in(explicit: Option<&OsStr>, path: Option<&OsStr>) -> Result<PathBuf, Error> {
    if let Some(explicit) = explicit.filter(|v| !v.is_empty()) {
        let candidate = PathBuf::from(explicit);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
        return Err(Error::BinaryNotFound {
            searched: format!(
                "{BINARY_VAR}={} is not an executable file",
                candidate.display()
            ),
        });
    }
    let found = path
        .into_iter()
        .flat_map(env::split_paths)
        .map(|dir| dir.join("claude"))
        .find(|candidate| is_executable(candidate));
    found.ok_or_else(|| Error::BinaryNotFound {
        searched: format!("{BINARY_VAR} unset and no `claude` on PATH"),
    })
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn fake_binary(dir: &Path, executable: bool) -> PathBuf {
        let path = dir.join("claude");
        fs::write(&path, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = if executable { 0o755 } else { 0o644 };
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
        }
        path
    }

    #[test]
    fn explicit_variable_wins_over_path() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let explicit = fake_binary(a.path(), true);
        fake_binary(b.path(), true);
        let found = find_claude_in(Some(explicit.as_os_str()), Some(b.path().as_os_str()));
        assert_eq!(found.unwrap(), explicit);
    }

    #[test]
    fn path_is_searched_in_order_and_skips_non_executables() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        fake_binary(a.path(), false);
        let good = fake_binary(b.path(), true);
        let path = env::join_paths([a.path(), b.path()]).unwrap();
        assert_eq!(find_claude_in(None, Some(&path)).unwrap(), good);
    }

    #[test]
    fn missing_binary_error_says_how_to_install() {
        let empty = tempfile::tempdir().unwrap();
        let err = find_claude_in(None, Some(empty.path().as_os_str())).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("tools/install-claude.sh"), "{text}");
        assert!(text.contains(BINARY_VAR), "{text}");
    }

    #[test]
    fn explicit_path_that_is_not_executable_is_reported() {
        let a = tempfile::tempdir().unwrap();
        let bad = fake_binary(a.path(), false);
        let err = find_claude_in(Some(bad.as_os_str()), None).unwrap_err();
        assert!(err.to_string().contains("is not an executable file"));
    }
}
