//! Reminders run in the background unless they say otherwise (SPEC §17): `reminder add`
//! writes `background: false` for `--foreground`, accepts the deprecated `--background` with a
//! warning, refuses both at once, and `reminder list` tags foreground reminders `[fg]` and
//! shows each time in the configured zone whatever offset the file carries.

use std::fs;

use crate::cli::Env;

fn out(o: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn only_reminder(env: &Env) -> String {
    let mut files: Vec<_> = fs::read_dir(env.data.join("reminders"))
        .expect("reminders dir")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    fs::read_to_string(files.remove(0)).expect("reads")
}

#[test]
fn foreground_is_written_and_the_background_default_is_not() {
    let env = Env::new();
    let o = env.run(&[
        "reminder",
        "add",
        "--delay",
        "5",
        "-m",
        "stretch",
        "--foreground",
    ]);
    let (stdout, stderr) = out(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains(": [fg] at "), "{stdout}");
    assert!(only_reminder(&env).contains("\nbackground: false\n"));

    let env = Env::new();
    let o = env.run(&["reminder", "add", "--delay", "5", "-m", "stretch"]);
    assert!(o.status.success());
    assert!(out(&o).0.contains(": [bg] at "), "{}", out(&o).0);
    assert!(!only_reminder(&env).contains("background:"));
}

#[test]
fn background_is_deprecated_and_exclusive_with_foreground() {
    let env = Env::new();
    let o = env.run(&["reminder", "add", "--delay", "5", "-m", "x", "--background"]);
    let (stdout, stderr) = out(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("--background is deprecated"), "{stderr}");
    assert!(stdout.contains("[bg]"), "{stdout}");

    let env = Env::new();
    let o = env.run(&[
        "reminder",
        "add",
        "--delay",
        "5",
        "-m",
        "x",
        "--background",
        "--foreground",
    ]);
    assert!(!o.status.success());
    assert!(out(&o).1.contains("--foreground"), "{}", out(&o).1);
    assert!(!env.data.join("reminders").exists() || only_reminders_empty(&env));
}

fn only_reminders_empty(env: &Env) -> bool {
    fs::read_dir(env.data.join("reminders")).map_or(true, |mut d| d.next().is_none())
}

#[test]
fn list_tags_foreground_and_shows_times_in_the_configured_zone() {
    let env = Env::new();
    let dir = env.data.join("reminders");
    fs::create_dir_all(&dir).expect("reminders dir");
    fs::write(
        dir.join("berlin.md"),
        "---\nid: \"b0b0b0b0\"\nrun-at: \"2026-12-24T15:00:00+01:00\"\nbackground: false\n---\nCall mum\n",
    )
    .expect("writes");
    fs::write(
        dir.join("quiet.md"),
        "---\nid: \"c0c0c0c0\"\nrun-at: \"2026-12-24T10:30:00-05:00\"\nreflect: false\nsubagent: \"gmail-reader\"\n---\nCheck the oven\n",
    )
    .expect("writes");
    let (stdout, stderr) = out(&env.run(&["reminder", "list"]));
    assert!(stderr.is_empty(), "{stderr}");
    // 15:00 in Berlin is 09:00 in New York, the configured zone.
    assert!(
        stdout.contains("b0b0b0b0  [fg] at 2026-12-24 09:00"),
        "{stdout}"
    );
    assert!(
        stdout.contains("c0c0c0c0  [bg] at 2026-12-24 10:30"),
        "{stdout}"
    );
}
