//! Many `ollim-bot` commands at once on one data directory, as the agent's parallel Bash calls
//! or a shell loop with `&` produce them: every add gets its own file, and every file is
//! committed.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use ollim_actors::jobs::{store, Reminder};

fn spawn(data: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .args(args)
        .env("OLLIM_DATA_DIR", data)
        .env("OLLIM_TIMEZONE", "America/New_York")
        .env_remove("DISCORD_TOKEN")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ollim-bot")
}

/// Starts every command before waiting for any, so they run side by side.
fn run_all(data: &Path, commands: &[Vec<String>]) -> Vec<Output> {
    let children: Vec<Child> = commands
        .iter()
        .map(|args| {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            spawn(data, &args)
        })
        .collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait for ollim-bot"))
        .collect()
}

/// The id in `scheduled <id>: ...`.
fn scheduled_id(o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && out.starts_with("scheduled "),
        "stdout: {out}\nstderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out["scheduled ".len()..]
        .split(':')
        .next()
        .expect("an id")
        .to_owned()
}

fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("the directory exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
}

fn git(data: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(data)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn fifty_simultaneous_adds_of_one_message_keep_fifty_files() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let data = tmp.path().join("data");
    let add: Vec<String> = ["reminder", "add", "--delay", "30", "-m", "check the oven"]
        .map(str::to_owned)
        .to_vec();
    let outputs = run_all(&data, &vec![add; 50]);
    let printed: BTreeSet<String> = outputs.iter().map(scheduled_id).collect();
    assert_eq!(printed.len(), 50, "every add printed its own id");

    let files = markdown_files(&data.join("reminders"));
    let on_disk: BTreeSet<String> = files
        .iter()
        .map(|path| {
            let reminder: Reminder = store::load_file(path)
                .unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()));
            assert_eq!(reminder.message, "check the oven");
            reminder.id.0
        })
        .collect();
    assert_eq!(files.len(), 50, "one file per add: {files:#?}");
    assert_eq!(on_disk, printed, "each printed id is in a file of its own");
    let names: BTreeSet<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(names.contains("check-the-oven.md") && names.contains("check-the-oven-50.md"));
}

#[test]
fn simultaneous_adds_are_all_committed() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let data = tmp.path().join("data");
    // The repository exists first, as it does for anyone past their first command.
    scheduled_id(
        &run_all(
            &data,
            &[vec![
                "routine".into(),
                "add".into(),
                "--cron".into(),
                "0 9 * * *".into(),
                "-m".into(),
                "first".into(),
            ]],
        )[0],
    );
    let commands: Vec<Vec<String>> = (0..20)
        .map(|n| {
            [
                "reminder",
                "add",
                "--delay",
                "30",
                "-m",
                &format!("errand number {n}"),
            ]
            .map(str::to_owned)
            .to_vec()
        })
        .collect();
    let outputs = run_all(&data, &commands);
    for o in &outputs {
        scheduled_id(o);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!stderr.contains("index.lock"), "{stderr}");
    }
    assert_eq!(
        git(
            &data,
            &["status", "--porcelain", "--", "routines", "reminders"]
        ),
        "",
        "no job file left uncommitted"
    );
    let log = git(&data, &["log", "--format=%s"]);
    assert_eq!(
        log.lines()
            .filter(|l| l.starts_with("add reminder "))
            .count(),
        20,
        "{log}"
    );
}
