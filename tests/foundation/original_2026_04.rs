//! A data directory in the shape the original's documentation of 2026-04 shows
//! (`tests/fixtures/original-2026-04/`: routines, reminders with and without `background:`,
//! webhooks with `skills:`/`subagent:`/`reflect:`, skills without `name`, `tool-policy.yaml`, an
//! installed agent) is read with no warning by `routine list`, `reminder list` and `doctor`
//! (SPEC §17, issue 22). The tier-2 half, each job running as the docs say, is
//! `tests/forks/original_data.rs`.

use std::fs;
use std::path::Path;
use std::process::Command;

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("dir");
    for entry in fs::read_dir(from).expect("fixture dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/original-2026-04")
}

fn run(data: &Path, home: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .args(args)
        .env("OLLIM_DATA_DIR", data)
        .env("OLLIM_TIMEZONE", "America/Los_Angeles")
        .env("HOME", home)
        .env("WEBHOOK_PORT", "8787")
        .env("WEBHOOK_SECRET", "a-long-enough-shared-secret")
        .env_remove("DISCORD_TOKEN")
        .env_remove("RUST_LOG")
        .output()
        .expect("run ollim-bot");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_originals_data_directory_loads_without_a_warning() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let data = tmp.path().join("data");
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).expect("home");
    copy_tree(&fixture(), &data);

    let (ok, routines, stderr) = run(&data, &home, &["routine", "list"]);
    assert!(ok && stderr.is_empty(), "{stderr}");
    assert_eq!(routines.lines().count(), 6, "{routines}");
    assert!(!routines.contains("INVALID"), "{routines}");
    assert!(
        routines.contains("3d4e5f6a  [bg,isolated] cron '15 9 * * *'  (subagent: gmail-reader)"),
        "{routines}"
    );
    assert!(routines.contains("(no-reflect)"), "{routines}");

    let (ok, reminders, stderr) = run(&data, &home, &["reminder", "list"]);
    assert!(ok && stderr.is_empty(), "{stderr}");
    assert_eq!(reminders.lines().count(), 4, "{reminders}");
    // No `background:` key: the background, as the original runs it since 2026-03-10.
    assert!(
        reminders.contains("6a7b8c9d  [bg] at 2099-06-01 18:30"),
        "{reminders}"
    );
    // 15:00 at +01:00 is 07:00 in Los Angeles (PDT).
    assert!(
        reminders.contains("7b8c9d0e  [fg] at 2099-06-01 07:00"),
        "{reminders}"
    );

    let (_, report, _) = run(&data, &home, &["doctor"]);
    let ours = [
        "routines/",
        "reminders/",
        "webhooks/",
        "skills/",
        "tool-policy",
        "tool policy",
    ];
    let bad: Vec<&str> = report
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("WARN") || l.starts_with("FAIL"))
        .filter(|l| ours.iter().any(|o| l.contains(o)))
        .collect();
    assert!(bad.is_empty(), "{bad:#?}\n{report}");
    assert!(
        report.contains("PASS  routines/inbox-triage.md"),
        "the report's shape: {report}"
    );
    for hook in ["ci-status", "parcel", "mail-digest"] {
        assert!(report.contains(&format!("POST /hook/{hook}")), "{report}");
    }
    assert!(report.contains("skills/inbox-rules/SKILL.md"), "{report}");
}
