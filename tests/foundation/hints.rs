//! The commands the bot's hints name run from the owner's shell as shown: `ollim-bot …` only
//! when their `PATH` finds this program, else the program's own path; and a `PATH` whose
//! `ollim-bot` is another program (the Python original's script) is pointed out.

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::doctor::Setup;
use crate::fake_claude::{FakeClaude, LOGIN_CODE};

const BOT: &str = env!("CARGO_BIN_EXE_ollim-bot");

/// `dir` first on the test's own `PATH`.
fn path_with(dir: &Path) -> String {
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The command in a doctor line saying "run `<command> auth login`".
fn login_command(report: &str) -> String {
    let at = report
        .find(" auth login`")
        .unwrap_or_else(|| panic!("a sign-in hint: {report}"));
    let start = report[..at].rfind('`').expect("an opening backtick") + 1;
    report[start..at].to_owned()
}

#[test]
fn the_sign_in_hint_names_a_command_that_runs_from_here() {
    let setup = Setup::new();
    let claude = FakeClaude::new(false, "2.1.330", None, &[]);
    let empty = tempfile::tempdir().unwrap();
    let out = setup.doctor(&claude.bin(), &[("PATH", &path_with(empty.path()))]);
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    // No `ollim-bot` on PATH: the hint names the binary.
    let command = login_command(&report);
    assert_eq!(command, BOT, "{report}");
    // And it runs as shown: the sign-in goes through.
    let mut login = Command::new(&command)
        .args(["auth", "login"])
        .env("OLLIM_CLAUDE_BIN", claude.bin())
        .env("OLLIM_DATA_DIR", &setup.data)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("the named command runs");
    writeln!(login.stdin.take().unwrap(), "{LOGIN_CODE}").unwrap();
    assert!(login.wait().unwrap().success());
    assert!(claude.is_signed_in(), "signed in through the named command");
}

#[test]
fn ollim_bot_is_named_when_path_finds_this_program() {
    let setup = Setup::new();
    let claude = FakeClaude::new(false, "2.1.330", None, &[]);
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(BOT, bin.path().join("ollim-bot")).unwrap();
    let out = setup.doctor(&claude.bin(), &[("PATH", &path_with(bin.path()))]);
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(login_command(&report), "ollim-bot", "{report}");
    assert!(
        report.contains("PASS  ollim-bot on PATH: this program"),
        "{report}"
    );
}

#[test]
fn another_ollim_bot_on_path_is_pointed_out() {
    let setup = Setup::new();
    let claude = FakeClaude::new(false, "2.1.330", None, &[]);
    let bin = tempfile::tempdir().unwrap();
    let python = bin.path().join("ollim-bot");
    std::fs::write(&python, "#!/usr/bin/env python3\nimport ollim_bot.main\n").unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = setup.doctor(&claude.bin(), &[("PATH", &path_with(bin.path()))]);
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        report.contains("WARN  ollim-bot on PATH: another program"),
        "{report}"
    );
    assert!(report.contains(&python.display().to_string()), "{report}");
    assert_eq!(
        login_command(&report),
        BOT,
        "never the other program: {report}"
    );
}
