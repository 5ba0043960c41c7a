//! The `routine` subcommands, run as the real binary against a fresh data directory per test,
//! and the data directory and output readers the job commands' tests share (the `reminder`
//! subcommands' own tests are in `reminder_cli.rs`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh data directory and the real binary run against it (also used by `routine_control`
/// and `reminder_cli`).
pub(crate) struct Env {
    _tmp: tempfile::TempDir,
    pub(crate) data: PathBuf,
}

impl Env {
    pub(crate) fn new() -> Self {
        let tmp = tempfile::tempdir().expect("temp dir");
        let data = tmp.path().join("data");
        Env { _tmp: tmp, data }
    }

    pub(crate) fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
            .args(args)
            .env("OLLIM_DATA_DIR", &self.data)
            .env("OLLIM_TIMEZONE", "America/New_York")
            .env_remove("DISCORD_TOKEN")
            .env_remove("RUST_LOG")
            .output()
            .expect("run ollim-bot")
    }

    pub(crate) fn files(&self, sub: &str) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = fs::read_dir(self.data.join(sub))
            .map(|rd| rd.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        v.sort();
        v
    }
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub(crate) fn assert_rejected(o: &Output, needle: &str) {
    assert_eq!(
        o.status.code(),
        Some(1),
        "stdout: {}\nstderr: {}",
        stdout(o),
        stderr(o)
    );
    assert!(
        stderr(o).contains(needle),
        "stderr should mention {needle:?}: {}",
        stderr(o)
    );
}

/// The id printed by `scheduled <id>: ...`.
pub(crate) fn scheduled_id(o: &Output) -> String {
    let out = stdout(o);
    let rest = out
        .strip_prefix("scheduled ")
        .unwrap_or_else(|| panic!("unexpected output {out:?}"));
    rest.split(':').next().unwrap().to_owned()
}

pub(crate) fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap()
}

#[test]
fn help_lists_the_job_commands() {
    let env = Env::new();
    let o = env.run(&["help"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(
        text.starts_with("ollim-bot -- ADHD-friendly Discord assistant"),
        "the original's banner: {text}"
    );
    for word in ["routine", "reminder", "console"] {
        assert!(text.contains(word), "help should mention {word}: {text}");
    }
}

#[test]
fn routine_add_writes_a_slug_named_file_and_prints_the_schedule() {
    let env = Env::new();
    let o = env.run(&[
        "routine",
        "add",
        "--cron",
        "30 8 * * 1-5",
        "-m",
        "Morning briefing!",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = scheduled_id(&o);
    assert_eq!(id.len(), 8);
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(
        stdout(&o),
        format!("scheduled {id}: cron '30 8 * * 1-5' -- Morning briefing!\n")
    );
    let files = env.files("routines");
    assert_eq!(files, vec![env.data.join("routines/morning-briefing.md")]);
    assert_eq!(
        read(&files[0]),
        format!("---\nid: \"{id}\"\ncron: \"30 8 * * 1-5\"\n---\nMorning briefing!\n")
    );
}

#[test]
fn routine_add_with_every_flag_writes_every_field() {
    let env = Env::new();
    let o = env.run(&[
        "routine",
        "add",
        "--cron",
        "0 9 * * *",
        "-m",
        "check email",
        "-d",
        "email triage",
        "--background",
        "--model",
        "haiku",
        "--no-thinking",
        "--isolated",
        "--update-main-session",
        "always",
        "--no-ping",
        "--allowed-tools",
        "Read",
        "Bash(git status:*)",
        "--skills",
        "inbox-zero",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = scheduled_id(&o);
    assert_eq!(
        stdout(&o),
        format!(
            "scheduled {id}: [bg,isolated] cron '0 9 * * *'  (model: haiku)  (no-thinking) -- email triage\n"
        )
    );
    let text = read(&env.files("routines")[0]);
    assert_eq!(
        text,
        format!(
            "---\nid: \"{id}\"\ncron: \"0 9 * * *\"\nbackground: true\nmodel: \"haiku\"\nthinking: false\n\
isolated: true\ndescription: \"email triage\"\nupdate-main-session: \"always\"\nallow-ping: false\n\
allowed-tools:\n  - \"Read\"\n  - \"Bash(git status:*)\"\nskills:\n  - \"inbox-zero\"\n---\ncheck email\n"
        )
    );
}

#[test]
fn routine_list_and_cancel_round_trip() {
    let env = Env::new();
    let empty = env.run(&["routine", "list"]);
    assert_eq!(stdout(&empty), "no routines\n");
    let id = scheduled_id(&env.run(&["routine", "add", "--cron", "0 7 * * *", "-m", "wake up"]));
    let list = stdout(&env.run(&["routine", "list"]));
    assert!(
        list.contains(&id) && list.contains("cron '0 7 * * *'") && list.contains("wake up"),
        "{list}"
    );
    let cancel = env.run(&["routine", "cancel", &id]);
    assert_eq!(stdout(&cancel), format!("cancelled {id}\n"));
    assert!(env.files("routines").is_empty());
    assert_rejected(
        &env.run(&["routine", "cancel", &id]),
        &format!("routine {id} not found"),
    );
}

#[test]
fn bad_routine_input_is_rejected_and_writes_nothing() {
    let env = Env::new();
    let cases: &[(&[&str], &str)] = &[
        (
            &["routine", "add", "--cron", "0 9 * *", "-m", "x"],
            "invalid cron",
        ),
        (
            &["routine", "add", "--cron", "61 9 * * *", "-m", "x"],
            "invalid cron",
        ),
        (
            &["routine", "add", "--cron", "0 9 * * 8", "-m", "x"],
            "invalid cron",
        ),
        (
            &[
                "routine",
                "add",
                "--cron",
                "0 9 * * *",
                "-m",
                "x",
                "--update-main-session",
                "sometimes",
            ],
            "sometimes",
        ),
        (
            &[
                "routine",
                "add",
                "--cron",
                "0 9 * * *",
                "-m",
                "x",
                "--model",
                "gpt",
            ],
            "gpt",
        ),
        (
            &["routine", "add", "--cron", "0 9 * * *", "-m", "   "],
            "must not be empty",
        ),
        (&["routine", "add", "-m", "no cron"], "--cron"),
    ];
    for (args, needle) in cases {
        let o = env.run(args);
        assert_rejected(&o, needle);
        assert!(env.files("routines").is_empty(), "{args:?} wrote a file");
    }
}

#[test]
fn writes_are_committed_to_the_data_directory_repo() {
    let env = Env::new();
    let id = scheduled_id(&env.run(&["routine", "add", "--cron", "0 9 * * *", "-m", "hello"]));
    env.run(&["routine", "cancel", &id]);
    let log = Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(&env.data)
        .output()
        .expect("git log");
    let log = String::from_utf8_lossy(&log.stdout);
    assert_eq!(
        log.lines().collect::<Vec<_>>(),
        [format!("remove routine {id}"), format!("add routine {id}")]
    );
}

#[test]
fn invalid_time_zone_names_the_variable() {
    let env = Env::new();
    let o = Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .args(["reminder", "add", "--delay", "5", "-m", "x"])
        .env("OLLIM_DATA_DIR", &env.data)
        .env("OLLIM_TIMEZONE", "Mars/Olympus")
        .output()
        .unwrap();
    assert_rejected(&o, "OLLIM_TIMEZONE");
    assert!(env.files("reminders").is_empty());
}
