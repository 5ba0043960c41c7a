//! `ollim-bot doctor` through the real binary: a healthy set-up passes every check and exits 0,
//! and nothing in the data directory changes (doctor only reads); a data directory not made yet
//! and a memory over its limit are warnings. The set-ups that fail are in `doctor_failures.rs`,
//! which runs doctor the same way (`Setup`) and reads its report with `has`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::fake_claude::FakeClaude;

/// A token shaped like Discord's (the id part is base64 of a number).
const TOKEN: &str = "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gabcde.fakefakefakefakefakefakefakefakefake00";

/// A Desktop-app client file in Google's installed-app format.
pub(crate) const CREDENTIALS: &str = r#"{"installed":{"client_id":"cid.apps.googleusercontent.com","client_secret":"csecret","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com/token","redirect_uris":["http://localhost"]}}"#;

pub(crate) struct Setup {
    _tmp: tempfile::TempDir,
    pub(crate) cwd: PathBuf,
    pub(crate) data: PathBuf,
}

impl Setup {
    pub(crate) fn new() -> Self {
        let tmp = tempfile::tempdir().expect("temp dir");
        let cwd = tmp.path().join("work");
        let data = tmp.path().join("data");
        fs::create_dir_all(&cwd).unwrap();
        Setup {
            _tmp: tmp,
            cwd,
            data,
        }
    }

    pub(crate) fn write(&self, rel: &str, text: &str) {
        let path = self.data.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// Runs `ollim-bot doctor` in `cwd` with only `env` (and the claude binary) set.
    pub(crate) fn doctor(&self, claude: &Path, env: &[(&str, &str)]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
            .arg("doctor")
            .current_dir(&self.cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.cwd.join("home"))
            .env("OLLIM_DATA_DIR", &self.data)
            .env("OLLIM_CLAUDE_BIN", claude)
            .envs(env.iter().copied())
            .output()
            .expect("run ollim-bot doctor")
    }

    /// Every file under the data directory with its bytes (and mode), to prove nothing changed.
    pub(crate) fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            let Ok(entries) = fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    out.insert(p.clone(), Vec::new());
                    walk(&p, out);
                } else {
                    out.insert(p.clone(), fs::read(&p).unwrap_or_default());
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.data, &mut out);
        out
    }
}

fn git_init(dir: &Path) {
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .status()
        .expect("git")
        .success();
    assert!(ok, "git init");
}

/// The report's lines, and the line after each (the fix, for WARN and FAIL).
pub(crate) fn report(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts the report has a `status` line naming `name` and saying `detail`, followed by a fix.
pub(crate) fn has(report: &str, status: &str, name: &str, detail: &str) {
    let lines: Vec<&str> = report.lines().collect();
    let found = lines.iter().enumerate().find(|(_, l)| {
        l.trim_start().starts_with(status) && l.contains(name) && l.contains(detail)
    });
    let Some((i, _)) = found else {
        panic!("no {status} line for {name:?} saying {detail:?} in:\n{report}");
    };
    if status != "PASS" {
        assert!(
            lines
                .get(i + 1)
                .is_some_and(|l| l.trim_start().starts_with("→ ")),
            "the {status} for {name} says what to do:\n{report}"
        );
    }
}

pub(crate) fn in_minutes(minutes: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::minutes(minutes))
        .with_timezone(&chrono_tz::Europe::Berlin)
        .format("%Y-%m-%dT%H:%M:%S%:z")
        .to_string()
}

#[test]
fn a_healthy_set_up_passes_every_check_and_changes_nothing() {
    let s = Setup::new();
    fs::write(
        s.cwd.join(".env"),
        format!("DISCORD_TOKEN={TOKEN}\nOLLIM_USER_NAME=Sam\nOLLIM_BOT_NAME=Ollie\n"),
    )
    .unwrap();
    s.write(
        "routines/morning.md",
        "---\nid: \"a1b2c3d4\"\ncron: \"30 8 * * *\"\nallowed-tools:\n  - \"Read\"\n---\nMorning check-in.\n",
    );
    s.write(
        "reminders/break.md",
        &format!(
            "---\nid: \"b1b2c3d4\"\nrun-at: \"{}\"\n---\nTake a break.\n",
            in_minutes(30)
        ),
    );
    s.write(
        "webhooks/github-ci.md",
        "---\nid: \"github-ci\"\nfields:\n  type: \"object\"\n  properties:\n    repo:\n      type: \"string\"\n      maxLength: 100\n---\nCI finished for {repo}.\n",
    );
    s.write(
        "skills/task-review/SKILL.md",
        "---\nname: \"task-review\"\ndescription: \"Review open tasks.\"\n---\nList open tasks.\n",
    );
    // Claude Code's format: no `name` (the directory's), no `description`.
    s.write(
        "skills/deploy-check/SKILL.md",
        "---\nallowed-tools:\n  - \"Read\"\n---\nCheck the deploy.\n",
    );
    s.write(
        "state/ping_budget.json",
        r#"{"capacity": 5, "available": 4.5, "refill_rate_minutes": 90, "last_refill": "2026-02-24T09:00:00.000000+01:00", "critical_used": 0, "critical_reset_date": "2026-02-24", "daily_used": 1, "daily_used_reset": "2026-02-24"}"#,
    );
    s.write(
        "state/pending_updates.json",
        r#"[{"ts": "2026-02-24T09:00:00+01:00", "message": "checked the inbox"}]"#,
    );
    s.write(
        "state/sessions.json",
        "0b4e2d9c-1f7a-4c1e-9d2b-7a1c5e3f9b00",
    );
    s.write(
        "state/session_history.jsonl",
        "{\"session_id\": \"0b4e2d9c-1f7a-4c1e-9d2b-7a1c5e3f9b00\", \"event\": \"created\", \"timestamp\": \"2026-02-24T09:00:00+01:00\", \"parent_session_id\": null}\n",
    );
    s.write("state/fork_messages.json", "[]");
    s.write("state/inquiries.json", "{}");
    s.write("state/config.json", r#"{"model_main": "opus"}"#);
    s.write("state/credentials.json", CREDENTIALS);
    // The original's token.json (google-auth's to_json), its access token long expired.
    s.write(
        "state/token.json",
        r#"{"token": "ya29.old", "refresh_token": "1//refresh", "token_uri": "https://oauth2.googleapis.com/token", "client_id": "cid.apps.googleusercontent.com", "client_secret": "csecret", "scopes": ["https://www.googleapis.com/auth/tasks", "https://www.googleapis.com/auth/calendar.events", "https://www.googleapis.com/auth/gmail.readonly"], "universe_domain": "googleapis.com", "account": "", "expiry": "2026-02-24T09:00:00.000000Z"}"#,
    );
    s.write("context.md", "- Sam is moving in May\n");
    git_init(&s.data);
    let claude = FakeClaude::new(true, "2.1.330", None, &[]);
    let before = s.snapshot();
    let out = s.doctor(
        &claude.bin(),
        &[
            ("OLLIM_TIMEZONE", "Europe/Berlin"),
            ("WEBHOOK_PORT", "8787"),
            ("WEBHOOK_SECRET", "s3cret"),
        ],
    );
    let text = report(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        !text.contains("WARN") && !text.contains("FAIL"),
        "all pass:\n{text}"
    );
    for (name, detail) in [
        (".env", "3 variables"),
        ("DISCORD_TOKEN", "well-formed (bot 123456789012345678)"),
        ("variables", "everything Discord needs"),
        ("zone", "Europe/Berlin (OLLIM_TIMEZONE)"),
        ("context.md", "23 characters of the 12000 a session carries"),
        ("webhooks", "WEBHOOK_PORT and WEBHOOK_SECRET are set"),
        ("data directory", "is writable"),
        ("state/", "is writable"),
        ("git", "is a git repository"),
        ("ping_budget.json", "the ping budget"),
        ("pending_updates.json", "1 pending updates"),
        ("sessions.json", "resumes session 0b4e2d9c"),
        ("session_history.jsonl", "1 events"),
        ("fork_messages.json", "0 records"),
        ("inquiries.json", "0 entries"),
        ("config.json", "1 entry"),
        ("bot.pid", "no bot is running"),
        ("routines/morning.md", "a1b2c3d4 `30 8 * * *`, next "),
        ("reminders/break.md", "b1b2c3d4 fires "),
        ("webhooks/github-ci.md", "POST /hook/github-ci"),
        ("skills/task-review/SKILL.md", "Review open tasks."),
        (
            "skills/deploy-check/SKILL.md",
            "skill deploy-check (no description)",
        ),
        ("claude", "claude"),
        ("version", "2.1.330 (Claude Code), tested (2.1.197 to "),
        ("signed in", "yes (claude.ai)"),
        ("google", "the next call refreshes it"),
    ] {
        has(&text, "PASS", name, detail);
    }
    assert!(
        text.contains("CET (in ") || text.contains("CEST (in "),
        "{text}"
    );
    assert_eq!(s.snapshot(), before, "doctor changed the data directory");
}

#[test]
fn a_data_directory_that_does_not_exist_yet_is_a_warning() {
    let s = Setup::new();
    let claude = FakeClaude::new(true, "2.1.330", None, &[]);
    let out = s.doctor(&claude.bin(), &[("OLLIM_TIMEZONE", "UTC")]);
    let text = report(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    has(&text, "WARN", "data directory", "does not exist yet");
    assert!(!s.data.exists(), "doctor created nothing");
}

#[test]
fn a_memory_over_its_limit_is_warned_about() {
    let s = Setup::new();
    s.write("context.md", &"x".repeat(13_000));
    let claude = FakeClaude::new(true, "2.1.330", None, &[]);
    let out = s.doctor(&claude.bin(), &[("OLLIM_TIMEZONE", "Europe/Berlin")]);
    has(
        &report(&out),
        "WARN",
        "context.md",
        "1000 characters over its limit of 12000",
    );
}

/// The CLI's version against the tested releases: older and newer ones are warned about with
/// what to do, never failed.
#[test]
fn a_cli_outside_the_tested_releases_is_a_warning_naming_the_range() {
    for (version, says) in [
        (
            "2.1.100",
            "is older than the releases the bot is tested with",
        ),
        ("2.3.0", "is newer than the releases the bot is tested with"),
    ] {
        let s = Setup::new();
        let claude = FakeClaude::new(true, version, None, &[]);
        let text = report(&s.doctor(&claude.bin(), &[]));
        has(&text, "WARN", "version", says);
        assert!(
            text.contains("2.1.197 to 2.1.332 (pinned 2.1.332)"),
            "{text}"
        );
    }
}
