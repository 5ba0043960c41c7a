//! A stand-in `claude` for what happens outside a session: `--version`, `auth status --json`
//! and `auth login`, printing what the real CLI (2.1.330) prints. Anything else is handed to
//! `pass_to` (the real CLI, for a bot that must also hold a conversation) or fails.
//!
//! Sign-in state is a file beside the script (`signed-in`): `auth status` reports signed in
//! when it exists, and `auth login` creates it once the right code is pasted.

use std::fs;
use std::path::{Path, PathBuf};

/// What `claude auth login` prints before it waits for a code (real 2.1.330 wording).
pub const LOGIN_URL: &str = "https://claude.ai/oauth/authorize?code=true&client_id=fake&state=xyz";
/// The code the fake login accepts.
pub const LOGIN_CODE: &str = "fake-code-123";

/// The script and its state, removed when dropped.
pub struct FakeClaude {
    dir: tempfile::TempDir,
}

impl FakeClaude {
    /// A fake that is signed in (`signed_in`) or not, answers `--version` with `version`, and
    /// runs `pass_to` (when given) for every other command, with `pass_env` exported first.
    pub fn new(
        signed_in: bool,
        version: &str,
        pass_to: Option<&Path>,
        pass_env: &[(&str, &str)],
    ) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let state = dir.path().join("signed-in");
        if signed_in {
            fs::write(&state, "").expect("sign in");
        }
        let exports: String = pass_env
            .iter()
            .map(|(k, v)| format!("export {k}='{v}'\n"))
            .collect();
        let other = match pass_to {
            Some(real) => format!("{exports}exec '{}' \"$@\"", real.display()),
            None => "echo \"fake claude: unexpected arguments: $*\" >&2\nexit 9".to_owned(),
        };
        let state = state.display();
        let script = format!(
            r#"#!/bin/sh
if [ "$1" = "--version" ]; then
  echo '{version} (Claude Code)'
  exit 0
fi
if [ "$1 $2" = "auth status" ]; then
  if [ -f '{state}' ]; then
    printf '%s\n' '{{"loggedIn": true, "authMethod": "claude.ai", "apiProvider": "firstParty"}}'
    exit 0
  fi
  printf '%s\n' '{{"loggedIn": false, "authMethod": "none", "apiProvider": "firstParty"}}'
  exit 1
fi
if [ "$1 $2" = "auth login" ]; then
  echo 'Opening browser to sign in…'
  echo "If the browser didn't open, visit:"
  echo '{LOGIN_URL}'
  printf 'Paste code here if prompted > '
  while read -r code; do
    if [ "$code" = '{LOGIN_CODE}' ]; then
      : > '{state}'
      echo 'Login successful.'
      exit 0
    fi
    echo 'Invalid code. Please try again.'
    printf 'Paste code here if prompted > '
  done
  exit 1
fi
{other}
"#
        );
        let bin = dir.path().join("claude");
        fs::write(&bin, script).expect("write fake claude");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        FakeClaude { dir }
    }

    /// The script.
    pub fn bin(&self) -> PathBuf {
        self.dir.path().join("claude")
    }

    /// Whether the fake has been signed in.
    pub fn is_signed_in(&self) -> bool {
        self.dir.path().join("signed-in").exists()
    }
}
