//! Whether the Claude CLI is signed in, checked once at start (SPEC §4 `auth`).
//!
//! The bot cannot answer anything until `claude` can reach the model, and a new user's first
//! sign of a missing login would otherwise be an error deep in the first turn. [`check`] runs
//! `claude auth status --json` (which prints `{"loggedIn": true|false, "authMethod": ...}` and
//! exits 0 when signed in, 1 when not) with a short timeout and sorts the answer into an
//! [`AuthState`]; a non-empty `ANTHROPIC_API_KEY` counts as signed in without asking. When the
//! CLI cannot tell us (too old, hung, crashed) the state is [`AuthState::Unknown`] and the bot
//! should carry on: the first turn will say what is wrong.

use std::path::Path;
use std::time::Duration;

use crate::base::own_command;

/// How long `claude auth status` may take before the answer counts as unknown.
pub const STATUS_TIMEOUT: Duration = Duration::from_secs(10);

/// The variable that signs the CLI in with an API key.
pub const API_KEY_VAR: &str = "ANTHROPIC_API_KEY";

/// What to tell a user whose CLI is not signed in.
pub const LOGIN_HINT: &str = "Claude Code is not signed in. Run `ollim-bot auth login` to sign \
     in with your Anthropic account (or set ANTHROPIC_API_KEY), then start ollim-bot again.";

/// What the start-up check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthState {
    /// The CLI can reach the model.
    LoggedIn {
        /// How: the CLI's `authMethod` (`claude.ai`, `api_key`, ...), or `ANTHROPIC_API_KEY`.
        method: String,
    },
    /// The CLI is not signed in; the text says what to do ([`LOGIN_HINT`]).
    NotLoggedIn(String),
    /// The CLI gave no usable answer; the text says why (for the log).
    Unknown(String),
}

/// Checks the CLI at `binary`, using the process environment and [`STATUS_TIMEOUT`]. Blocks
/// the calling thread for up to the timeout (from async code, run it with `spawn_blocking`).
pub fn check(binary: &Path) -> AuthState {
    let api_key = std::env::var_os(API_KEY_VAR).is_some_and(|v| !v.is_empty());
    check_with(binary, api_key, STATUS_TIMEOUT)
}

/// Checks the CLI at `binary`; `api_key_set` short-cuts to signed in, `timeout` bounds the run.
pub fn check_with(binary: &Path, api_key_set: bool, timeout: Duration) -> AuthState {
    if api_key_set {
        return AuthState::LoggedIn {
            method: API_KEY_VAR.to_owned(),
        };
    }
    let state = match run_status(binary, timeout) {
        Ok((code, stdout)) => classify(code, &stdout),
        Err(reason) => AuthState::Unknown(reason),
    };
    match &state {
        AuthState::LoggedIn { method } => tracing::debug!(%method, "claude cli is signed in"),
        AuthState::NotLoggedIn(_) => tracing::warn!("claude cli is not signed in"),
        AuthState::Unknown(reason) => {
            tracing::warn!(%reason, "could not tell whether the claude cli is signed in")
        }
    }
    state
}

/// Sorts the output of `claude auth status --json` (exit code and stdout) into a state.
pub fn classify(exit_code: Option<i32>, stdout: &str) -> AuthState {
    #[derive(serde::Deserialize)]
    struct Status {
        #[serde(rename = "loggedIn")]
        logged_in: bool,
        #[serde(rename = "authMethod", default)]
        auth_method: Option<String>,
    }
    match serde_json::from_str::<Status>(stdout.trim()) {
        Ok(Status {
            logged_in: true,
            auth_method,
        }) => AuthState::LoggedIn {
            method: auth_method.unwrap_or_else(|| "unknown".to_owned()),
        },
        Ok(Status {
            logged_in: false, ..
        }) => AuthState::NotLoggedIn(own_command::in_text(LOGIN_HINT)),
        // Older CLIs print text; their wording for the signed-out case is stable enough.
        Err(_) if stdout.contains("Not logged in") => {
            AuthState::NotLoggedIn(own_command::in_text(LOGIN_HINT))
        }
        Err(reason) => AuthState::Unknown(format!(
            "`claude auth status` exited with {} and printed no status ({reason})",
            exit_code.map_or_else(|| "a signal".to_owned(), |c| format!("code {c}")),
        )),
    }
}

/// Runs `binary auth status --json`, returning its exit code and stdout, or why it could not.
fn run_status(binary: &Path, timeout: Duration) -> Result<(Option<i32>, String), String> {
    super::cli_info::run_short(binary, &["auth", "status", "--json"], timeout)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::PathBuf;

    use super::*;

    /// What the real CLI (2.1.x) prints, signed out and signed in with a subscription.
    const SIGNED_OUT: &str = r#"{
  "loggedIn": false,
  "authMethod": "none",
  "apiProvider": "firstParty",
  "analyticsDisabled": false,
  "loginExpiresAt": null,
  "consoleProfileSignInOffered": true
}"#;
    const SIGNED_IN: &str = r#"{
  "loggedIn": true,
  "authMethod": "claude.ai",
  "apiProvider": "firstParty",
  "subscriptionType": "pro",
  "storedClaudeAiLogin": true
}"#;

    fn fake_claude(dir: &Path, stdout: &str, code: i32) -> PathBuf {
        let path = dir.join("claude");
        let script = format!(
            "#!/bin/sh\n[ \"$1 $2 $3\" = \"auth status --json\" ] || exit 9\ncat <<'EOF'\n{stdout}\nEOF\nexit {code}\n"
        );
        fs::write(&path, script).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        path
    }

    #[test]
    fn signed_in_cli_is_logged_in_with_its_method() {
        let dir = tempfile::tempdir().unwrap();
        let bin = fake_claude(dir.path(), SIGNED_IN, 0);
        assert_eq!(
            check_with(&bin, false, STATUS_TIMEOUT),
            AuthState::LoggedIn {
                method: "claude.ai".into()
            }
        );
    }

    #[test]
    fn signed_out_cli_gets_the_login_hint() {
        let dir = tempfile::tempdir().unwrap();
        let bin = fake_claude(dir.path(), SIGNED_OUT, 1);
        let state = check_with(&bin, false, STATUS_TIMEOUT);
        assert_eq!(state, AuthState::NotLoggedIn(LOGIN_HINT.to_owned()));
        assert!(LOGIN_HINT.contains("ollim-bot auth login"));
    }

    #[test]
    fn api_key_counts_as_signed_in_without_running_the_cli() {
        let dir = tempfile::tempdir().unwrap();
        let bin = fake_claude(dir.path(), SIGNED_OUT, 1);
        assert_eq!(
            check_with(&bin, true, STATUS_TIMEOUT),
            AuthState::LoggedIn {
                method: API_KEY_VAR.into()
            }
        );
    }

    #[test]
    fn old_text_output_saying_not_logged_in_is_understood() {
        assert_eq!(
            classify(
                Some(1),
                "Not logged in. Run claude auth login to authenticate.\n"
            ),
            AuthState::NotLoggedIn(LOGIN_HINT.to_owned())
        );
    }

    #[test]
    fn cli_without_a_status_answer_is_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let bin = fake_claude(dir.path(), "error: unknown command 'auth'", 1);
        let AuthState::Unknown(reason) = check_with(&bin, false, STATUS_TIMEOUT) else {
            panic!("expected unknown");
        };
        assert!(reason.contains("code 1"), "{reason}");
    }

    #[test]
    fn missing_binary_is_unknown_not_a_panic() {
        let state = check_with(Path::new("/nonexistent/claude"), false, STATUS_TIMEOUT);
        assert!(matches!(state, AuthState::Unknown(r) if r.contains("/nonexistent/claude")));
    }

    #[test]
    fn hung_cli_is_cut_off_at_the_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("claude");
        fs::write(&bin, "#!/bin/sh\nexec sleep 30\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
        }
        let started = std::time::Instant::now();
        let state = check_with(&bin, false, Duration::from_millis(200));
        assert!(matches!(state, AuthState::Unknown(r) if r.contains("did not answer")));
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
