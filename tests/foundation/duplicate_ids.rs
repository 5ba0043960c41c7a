//! Two job files holding one id: `routine list`, `reminder list` and `doctor` mark exactly the
//! file the scheduler ignores, and name the file it uses instead.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use chrono::{TimeZone, Utc};
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::jobs::Job;
use ollim_actors::scheduling::scheduler::plan::Plan;

use crate::fake_claude::FakeClaude;
use crate::fixtures::fresh_dir;

fn routine(id: &str, body: &str) -> String {
    format!("---\nid: \"{id}\"\ncron: \"0 9 * * *\"\n---\n{body}\n")
}

fn reminder(id: &str, body: &str) -> String {
    format!("---\nid: \"{id}\"\nrun-at: \"2026-03-02T09:00:00-05:00\"\n---\n{body}\n")
}

/// Each kind twice under one id: the copy's file name sorts *first* here for routines
/// (`0-copy.md` < `walk.md`) and last for reminders, so neither "the newer file" nor "the
/// second written" would pass for the rule.
fn duplicated(root: &Path) -> DataDir {
    let data = DataDir::new(root.join("data"));
    data.ensure().expect("data dir");
    let put = |dir: &Path, name: &str, text: String| fs::write(dir.join(name), text).unwrap();
    put(&data.routines(), "walk.md", routine("dup00002", "stroll"));
    put(&data.routines(), "0-copy.md", routine("dup00002", "march"));
    put(&data.routines(), "other.md", routine("solo0001", "stretch"));
    put(&data.reminders(), "a-oven.md", reminder("dup00001", "oven"));
    put(
        &data.reminders(),
        "b-copy.md",
        reminder("dup00001", "toast"),
    );
    data
}

fn cli(data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .args(args)
        .env("OLLIM_DATA_DIR", data)
        .env("OLLIM_TIMEZONE", "America/New_York")
        .env_remove("RUST_LOG")
        .output()
        .expect("run ollim-bot")
}

/// The bodies of the jobs the scheduler fires by 10:00 that day.
fn fired_bodies(data: &DataDir) -> Vec<String> {
    let start = Utc.with_ymd_and_hms(2026, 3, 2, 13, 0, 0).unwrap();
    let mut plan = Plan::new(data, chrono_tz::America::New_York, start);
    plan.refresh(start);
    plan.take_due(Utc.with_ymd_and_hms(2026, 3, 2, 15, 0, 0).unwrap())
        .into_iter()
        .map(|d| match d.job {
            Job::Reminder(r) => r.message,
            Job::Routine(r) => r.message,
            other => format!("{other:?}"),
        })
        .collect()
}

/// The lines `ollim-bot <kind> list` prints.
fn listed(data: &Path, kind: &str) -> Vec<String> {
    let o = cli(data, &[kind, "list"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{out}");
    out.lines().map(str::to_owned).collect()
}

#[test]
fn the_lists_mark_the_copy_the_scheduler_ignores_naming_the_file_it_runs() {
    let tmp = fresh_dir("duplicate_ids_lists");
    let data = duplicated(tmp.path());

    // What the scheduler does: the first file by name is the job, the other never fires.
    let fired = fired_bodies(&data);
    assert!(fired.contains(&"oven".to_owned()), "{fired:?}");
    assert!(fired.contains(&"stretch".to_owned()), "{fired:?}");
    assert!(fired.contains(&"march".to_owned()), "{fired:?}");
    assert!(!fired.contains(&"stroll".to_owned()), "{fired:?}");
    assert!(!fired.contains(&"toast".to_owned()), "{fired:?}");

    // The routine the scheduler ignores is walk.md (0-copy.md sorts first).
    let routines = listed(data.root(), "routine");
    let walk = routines
        .iter()
        .find(|l| l.contains("stroll"))
        .expect("stroll listed");
    assert!(
        walk.ends_with("[ignored: duplicate id of routines/0-copy.md]"),
        "{routines:?}"
    );
    let marked: Vec<_> = routines
        .iter()
        .filter(|l| l.contains("[ignored:"))
        .collect();
    assert_eq!(
        marked.len(),
        1,
        "only the ignored file is marked: {routines:?}"
    );

    // The reminder the scheduler ignores is b-copy.md.
    let reminders = listed(data.root(), "reminder");
    let copy = reminders
        .iter()
        .find(|l| l.contains("toast"))
        .expect("toast listed");
    assert!(
        copy.ends_with("[ignored: duplicate id of reminders/a-oven.md]"),
        "{reminders:?}"
    );
    let marked: Vec<_> = reminders
        .iter()
        .filter(|l| l.contains("[ignored:"))
        .collect();
    assert_eq!(
        marked.len(),
        1,
        "only the ignored file is marked: {reminders:?}"
    );
}

/// The two lines of one id read alike (`toast` and `oven` could say the same): the line after
/// the marked one names the file to fix, the one the scheduler ignores.
#[test]
fn the_lists_name_the_ignored_file_on_a_line_of_its_own() {
    let tmp = fresh_dir("duplicate_ids_named");
    let data = duplicated(tmp.path());
    for (kind, ignored) in [
        ("routine", "routines/walk.md"),
        ("reminder", "reminders/b-copy.md"),
    ] {
        let lines = listed(data.root(), kind);
        let at = lines
            .iter()
            .position(|l| l.contains("[ignored:"))
            .unwrap_or_else(|| panic!("a marked line: {lines:?}"));
        assert_eq!(
            lines.get(at + 1).map(String::as_str),
            Some(format!("      ignored file: {ignored}").as_str()),
            "{lines:?}"
        );
        let naming: Vec<_> = lines.iter().filter(|l| l.contains(ignored)).collect();
        assert_eq!(naming.len(), 1, "named once: {lines:?}");
    }
}

#[test]
fn doctor_warns_about_each_ignored_copy_naming_both_files() {
    let tmp = fresh_dir("duplicate_ids_doctor");
    let data = duplicated(tmp.path());
    let claude = FakeClaude::new(true, "2.1.330", None, &[]);
    let o = Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("doctor")
        .current_dir(tmp.path())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", tmp.path().join("home"))
        .env("OLLIM_DATA_DIR", data.root())
        .env("OLLIM_CLAUDE_BIN", claude.bin())
        .env("OLLIM_TIMEZONE", "America/New_York")
        .output()
        .expect("run ollim-bot doctor");
    let text = String::from_utf8_lossy(&o.stdout);
    let warns: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("WARN") && l.contains("shares id"))
        .collect();
    assert_eq!(warns.len(), 2, "one WARN per ignored file:\n{text}");
    for (ignored, kept) in [
        ("routines/walk.md", "routines/0-copy.md"),
        ("reminders/b-copy.md", "reminders/a-oven.md"),
    ] {
        assert!(
            warns
                .iter()
                .any(|l| l.contains(ignored) && l.contains(kept) && l.contains("ignored")),
            "a WARN names {ignored} (ignored) and {kept} (used):\n{text}"
        );
    }
}
