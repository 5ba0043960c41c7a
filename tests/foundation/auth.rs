//! `ollim-bot auth login|status|logout` through the real binary, with a fake `claude` script
//! named by `OLLIM_CLAUDE_BIN` (or found on `PATH`), and the start-up check against the same
//! fakes. The scripts print what the real CLI (2.1.x) prints; nothing signs in anywhere.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ollim_actors::claude::brain::auth::{self, AuthState, STATUS_TIMEOUT};
use ollim_actors::claude::brain::locate;

/// `claude auth status --json` when signed out (exit 1).
const SIGNED_OUT: &str = r#"{
  "loggedIn": false,
  "authMethod": "none",
  "apiProvider": "firstParty",
  "analyticsDisabled": false,
  "loginExpiresAt": null,
  "consoleProfileSignInOffered": true
}"#;

/// `claude auth status --json` when signed in with a subscription (exit 0).
const SIGNED_IN: &str = r#"{
  "loggedIn": true,
  "authMethod": "claude.ai",
  "apiProvider": "firstParty",
  "subscriptionType": "pro",
  "storedClaudeAiLogin": true
}"#;

/// A temp dir holding a fake `claude` that records its arguments in `args.txt`.
struct FakeClaude {
    dir: tempfile::TempDir,
}

impl FakeClaude {
    /// A fake that prints `stdout` for `auth status` and exits with `code` for every command.
    /// Only shell builtins, so it runs with an empty `PATH`; `stdout` must not hold `'`.
    fn new(stdout: &str, code: i32) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let args = dir.path().join("args.txt");
        let script = format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" > '{}'\nif [ \"$2\" = status ]; then printf '%s\\n' '{stdout}'; fi\nexit {code}\n",
            args.display()
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

    fn bin(&self) -> PathBuf {
        self.dir.path().join("claude")
    }

    /// The arguments of the last run, as one line.
    fn last_args(&self) -> String {
        fs::read_to_string(self.dir.path().join("args.txt"))
            .expect("the fake was not run")
            .trim_end()
            .to_owned()
    }
}

fn ollim(args: &[&str], claude_bin: Option<&Path>, path: &OsStr) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ollim-bot"));
    cmd.args(args)
        .env("PATH", path)
        .env_remove(locate::BINARY_VAR)
        .env_remove("RUST_LOG");
    if let Some(bin) = claude_bin {
        cmd.env(locate::BINARY_VAR, bin);
    }
    cmd.output().expect("run ollim-bot")
}

fn no_path() -> &'static OsStr {
    OsStr::new("/nonexistent")
}

#[test]
fn auth_status_passes_the_cli_output_and_exit_code_through() {
    let fake = FakeClaude::new(SIGNED_OUT, 1);
    let out = ollim(&["auth", "status"], Some(&fake.bin()), no_path());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fake.last_args(), "auth status");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"loggedIn\": false"));

    let fake = FakeClaude::new(SIGNED_IN, 0);
    let out = ollim(&["auth", "status"], Some(&fake.bin()), no_path());
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn unusual_exit_codes_are_passed_through_unchanged() {
    let fake = FakeClaude::new("", 3);
    let out = ollim(&["auth", "logout"], Some(&fake.bin()), no_path());
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(fake.last_args(), "auth logout");
}

#[test]
fn login_options_reach_the_cli() {
    let fake = FakeClaude::new("", 0);
    let out = ollim(
        &["auth", "login", "--email", "me@example.com", "--console"],
        Some(&fake.bin()),
        no_path(),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        fake.last_args(),
        "auth login --email me@example.com --console"
    );
}

#[test]
fn claude_on_path_is_used_when_no_binary_is_named() {
    let fake = FakeClaude::new(SIGNED_IN, 0);
    let out = ollim(&["auth", "status"], None, fake.dir.path().as_os_str());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(fake.last_args(), "auth status");
}

#[test]
fn missing_binary_says_how_to_install_and_exits_1() {
    let out = ollim(&["auth", "login"], None, no_path());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("claude CLI not found"), "{err}");
    assert!(err.contains("OLLIM_CLAUDE_BIN"), "{err}");

    let out = ollim(
        &["auth", "status"],
        Some(Path::new("/nonexistent/claude")),
        no_path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not an executable file"));
}

#[test]
fn startup_check_classifies_the_named_binary() {
    let signed_in = FakeClaude::new(SIGNED_IN, 0);
    let signed_out = FakeClaude::new(SIGNED_OUT, 1);
    let check = |fake: &FakeClaude| {
        let bin = locate::find_claude_in(Some(fake.bin().as_os_str()), None).expect("locate");
        auth::check_with(&bin, false, STATUS_TIMEOUT)
    };
    assert_eq!(
        check(&signed_in),
        AuthState::LoggedIn {
            method: "claude.ai".into()
        }
    );
    assert_eq!(signed_in.last_args(), "auth status --json");
    let AuthState::NotLoggedIn(hint) = check(&signed_out) else {
        panic!("signed-out cli not recognised");
    };
    assert!(hint.contains("ollim-bot auth login"), "{hint}");
}
