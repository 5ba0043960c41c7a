//! Condition gates on disk and on the command line (SPEC §16): `--gate` writes a `gate:` key after
//! the original's keys (and nothing when absent), a gate with chaining or redirection is refused
//! writing nothing, and a hand-written file with a gate round-trips byte for byte while one with a
//! bad gate is skipped with the reason.

use std::path::PathBuf;
use std::process::{Command, Output};

use ollim_actors::jobs::{reminder, routine, store, Routine};

/// Runs the real binary on the data directory `data` (also used by `run_limits`).
pub(super) fn run(data: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .args(args)
        .env("OLLIM_DATA_DIR", data)
        .env("OLLIM_TIMEZONE", "America/New_York")
        .env_remove("DISCORD_TOKEN")
        .env_remove("RUST_LOG")
        .output()
        .expect("run ollim-bot")
}

/// The entries of `dir` (none when it is missing).
pub(super) fn files(dir: PathBuf) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default()
}

#[test]
fn routine_and_reminder_add_take_a_gate_and_write_it_last() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let o = run(
        &data,
        &[
            "routine",
            "add",
            "--cron",
            "0 9 * * *",
            "-m",
            "triage mail",
            "--background",
            "--gate",
            "ollim-bot gmail search 'is:unread from:jo'",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("(gate: ollim-bot gmail search 'is:unread from:jo')"),
        "{out}"
    );
    let text = std::fs::read_to_string(&files(data.join("routines"))[0]).unwrap();
    assert!(
        text.ends_with(
            "background: true\ngate: \"ollim-bot gmail search 'is:unread from:jo'\"\n---\ntriage mail\n"
        ),
        "{text}"
    );
    let o = run(
        &data,
        &[
            "reminder",
            "add",
            "--delay",
            "30",
            "-m",
            "stretch",
            "--gate",
            "test -s todo.txt",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&files(data.join("reminders"))[0]).unwrap();
    assert!(
        text.ends_with("gate: \"test -s todo.txt\"\n---\nstretch\n"),
        "{text}"
    );
    let parsed = reminder::parse(&text).unwrap();
    assert_eq!(
        parsed.settings.gate.map(|g| g.to_string()).as_deref(),
        Some("test -s todo.txt")
    );
}

#[test]
fn a_gate_with_chaining_or_redirection_is_refused_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    for gate in [
        "check-mail && rm -rf ~",
        "check-mail | tee x",
        "check-mail > out",
        "a; b",
    ] {
        let o = run(
            &data,
            &[
                "routine",
                "add",
                "--cron",
                "0 9 * * *",
                "-m",
                "x",
                "--gate",
                gate,
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{gate}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("a gate is one command, without ; & | < or >"),
            "{gate}: {err}"
        );
    }
    assert!(files(data.join("routines")).is_empty());
}

#[test]
fn a_hand_written_gate_round_trips_and_a_bad_one_is_skipped_with_its_reason() {
    let text = "---\nid: \"a1b2c3d4\"\ncron: \"0 9 * * 1-5\"\nbackground: true\n\
                description: \"inbox\"\ngate: \"ollim-bot gmail unread --max 5\"\n---\nLook at the inbox.\n";
    let parsed = routine::parse(text).unwrap();
    assert_eq!(routine::to_markdown(&parsed), text);
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("good.md"), text).unwrap();
    std::fs::write(
        tmp.path().join("bad.md"),
        "---\nid: \"b2c3d4e5\"\ncron: \"0 9 * * *\"\ngate: \"check | mail\"\n---\nx\n",
    )
    .unwrap();
    let loaded = store::load_dir::<Routine>(tmp.path()).unwrap();
    assert_eq!(loaded.items.len(), 1);
    let reasons: Vec<String> = loaded
        .skipped
        .iter()
        .map(|(path, err)| format!("{}: {err}", path.display()))
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("bad.md") && r.contains("`gate` \"check | mail\" is refused")),
        "{reasons:?}"
    );
}
