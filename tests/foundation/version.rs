//! `ollim-bot --version`: the bot's version, the commit it was built from, the claude CLI's
//! version (from a fake `claude`), and a clear word when there is no CLI.

use std::process::{Command, Output};

use crate::fake_claude::FakeClaude;

fn version_with(claude: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("--version")
        .env("OLLIM_CLAUDE_BIN", claude)
        .env_remove("DISCORD_TOKEN")
        .output()
        .expect("run ollim-bot")
}

fn head_commit() -> String {
    let out = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("git");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn version_names_the_bot_its_commit_and_the_claude_cli() {
    let claude = FakeClaude::new(true, "2.1.330", None, &[]);
    let out = version_with(&claude.bin());
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            format!(
                "ollim-bot {} (commit {})",
                env!("CARGO_PKG_VERSION"),
                head_commit()
            )
            .as_str(),
            "claude 2.1.330 (Claude Code)"
        ],
        "{text}"
    );
    let short = Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("-V")
        .env("OLLIM_CLAUDE_BIN", claude.bin())
        .output()
        .expect("run ollim-bot");
    assert_eq!(String::from_utf8_lossy(&short.stdout), text);
}

#[test]
fn version_without_a_claude_cli_says_so_and_still_succeeds() {
    let out = version_with(std::path::Path::new("/nonexistent/claude"));
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("ollim-bot "), "{text}");
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("claude: not found") && l.contains("OLLIM_CLAUDE_BIN")),
        "{text}"
    );
}
