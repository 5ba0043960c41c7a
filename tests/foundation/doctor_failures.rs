//! `ollim-bot doctor` on set-ups that fail, through the real binary: a broken one gets a FAIL
//! or WARN with what to do for each thing wrong and exits 1, and nothing in the data directory
//! changes (doctor only reads); a missing CLI and an unwritable data directory fail.

use std::fs;
use std::process::Command;

use crate::doctor::{has, in_minutes, report, Setup, CREDENTIALS};
use crate::fake_claude::FakeClaude;

#[test]
fn a_broken_set_up_fails_with_what_to_do_and_changes_nothing() {
    let s = Setup::new();
    fs::write(
        s.cwd.join(".env"),
        "OLLIM_BOT_NAME=Ollie\nthis line is wrong\n",
    )
    .unwrap();
    s.write(
        "routines/bad-cron.md",
        "---\nid: \"c1c2c3c4\"\ncron: \"every morning\"\n---\nBad.\n",
    );
    s.write(
        "routines/first.md",
        "---\nid: \"d1d2d3d4\"\ncron: \"0 9 * * *\"\nallowed-tools:\n  - \"Bash(*)\"\n---\nFirst.\n",
    );
    s.write(
        "routines/second.md",
        "---\nid: \"d1d2d3d4\"\ncron: \"0 10 * * *\"\n---\nSame id.\n",
    );
    s.write(
        "routines/wide.md",
        "---\nid: \"d5d6d7d8\"\ncron: \"0 11 * * *\"\nbackground: true\nallowed-tools:\n  - \"Bash(ollim-bot x; rm -rf /)\"\n---\nWide.\n",
    );
    s.write("tool-policy.yaml", "bg_forks:\n  override: [\"Read\"\n");
    s.write(
        "reminders/late.md",
        &format!(
            "---\nid: \"e1e2e3e4\"\nrun-at: \"{}\"\n---\nLate.\n",
            in_minutes(-90)
        ),
    );
    s.write(
        "reminders/garbled.md",
        "---\nid: \"f1f2f3f4\"\nrun-at: \"next tuesday\"\n---\nGarbled.\n",
    );
    s.write(
        "webhooks/broken.md",
        "---\nfields:\n  type: \"object\"\n---\nNo id.\n",
    );
    s.write(
        "webhooks/fine.md",
        "---\nid: \"fine\"\nfields:\n  type: \"object\"\n---\nFine.\n",
    );
    s.write(
        "skills/misnamed/SKILL.md",
        "---\nname: \"other-name\"\ndescription: \"Wrong directory.\"\n---\nText.\n",
    );
    s.write("state/ping_budget.json", "{\"capacity\": ");
    s.write("state/sessions.json", "two words");
    s.write(
        "state/session_history.jsonl",
        "{\"session_id\": \"a\", \"event\": \"created\", \"timestamp\": \"2026-02-24T09:00:00+01:00\"}\nnot json\n",
    );
    s.write("state/config.json", "[1, 2]");
    s.write("state/pending_updates.json.corrupt-20260224T090000Z", "{");
    s.write("state/bot.pid", "not a pid");
    s.write("state/credentials.json", CREDENTIALS);
    s.write("state/token.json", "{\"token\": ");
    s.write("state/google_auth_revoked", "");
    let claude = FakeClaude::new(false, "3.0.0", None, &[]);
    let before = s.snapshot();
    let out = s.doctor(
        &claude.bin(),
        &[
            ("DISCORD_TOKEN", "Bot not-a-token"),
            ("OLLIM_TIMEZONE", "Mars/Olympus"),
            ("WEBHOOK_PORT", "8787"),
            ("OLLIM_HANG_TIMEOUT_SECS", "soon"),
        ],
    );
    let text = report(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for (status, name, detail) in [
        ("FAIL", ".env", "line"),
        ("FAIL", "DISCORD_TOKEN", "does not look like a bot token"),
        ("FAIL", "OLLIM_USER_NAME", "missing"),
        (
            "FAIL",
            "OLLIM_TIMEZONE",
            "\"Mars/Olympus\" is not an IANA time zone",
        ),
        (
            "WARN",
            "webhooks",
            "WEBHOOK_PORT is set without WEBHOOK_SECRET",
        ),
        ("FAIL", "OLLIM_HANG_TIMEOUT_SECS", "\"soon\""),
        ("WARN", "git", "not a git repository"),
        ("FAIL", "ping_budget.json", "does not parse"),
        ("FAIL", "sessions.json", "more than one word"),
        ("FAIL", "session_history.jsonl", "line 2"),
        ("FAIL", "config.json", "does not parse"),
        ("WARN", "pending_updates.json.corrupt-", "set aside"),
        ("WARN", "bot.pid", "not a process id"),
        ("FAIL", "routines/bad-cron.md", "skipped"),
        ("WARN", "routines/first.md", "allowed-tools: "),
        (
            "FAIL",
            "routines/wide.md",
            "unsafe: a background run is skipped",
        ),
        ("WARN", "tool-policy.yaml", "is not valid"),
        ("WARN", "routines/second.md", "shares id d1d2d3d4"),
        ("WARN", "reminders/late.md", "e1e2e3e4 was due"),
        ("FAIL", "reminders/garbled.md", "skipped"),
        ("FAIL", "webhooks/broken.md", "skipped"),
        ("WARN", "webhooks/", "no webhook server"),
        ("FAIL", "skills/misnamed/SKILL.md", "skipped"),
        (
            "WARN",
            "version",
            "3.0.0 (Claude Code) is newer than the releases the bot is tested with",
        ),
        ("FAIL", "signed in", "no"),
        ("FAIL", "google", "token.json"),
        ("WARN", "google_auth_revoked", "refused the grant"),
    ] {
        has(&text, status, name, detail);
    }
    assert!(
        text.contains("(1h 30m ago)") || text.contains("(1h 29m ago)"),
        "{text}"
    );
    assert_eq!(s.snapshot(), before, "doctor changed the data directory");
}

#[test]
fn a_missing_cli_and_an_unwritable_data_directory_fail() {
    let s = Setup::new();
    // /proc/self exists and is a directory nobody (not even root) may create files in.
    let out = Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("doctor")
        .current_dir(&s.cwd)
        .env_clear()
        .env("PATH", "/nonexistent")
        .env("OLLIM_DATA_DIR", "/proc/self")
        .env("OLLIM_TIMEZONE", "UTC")
        .output()
        .expect("run ollim-bot doctor");
    let text = report(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    has(&text, "FAIL", "data directory", "is not writable");
    has(&text, "FAIL", "claude", "not found");
    has(&text, "WARN", "git", "git is not installed");
    has(&text, "WARN", "DISCORD_TOKEN", "runs on the console");
}
