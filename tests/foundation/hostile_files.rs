//! Job directories as a careless or hostile world leaves them: two files with one id, links
//! out of the data directory or to nothing, directories named like files, and files git never
//! saw. Each is named in a warning and none is read where it should not be.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use chrono::{TimeZone, Utc};
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::jobs::Job;
use ollim_actors::scheduling::scheduler::plan::Plan;

use crate::fixtures::{capture_logs, fresh_dir};

fn routine(id: &str, body: &str) -> String {
    format!("---\nid: \"{id}\"\ncron: \"0 9 * * *\"\n---\n{body}\n")
}

fn reminder(id: &str, body: &str) -> String {
    format!("---\nid: \"{id}\"\nrun-at: \"2026-03-02T09:00:00-05:00\"\n---\n{body}\n")
}

fn warnings(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains("WARN")).collect()
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

#[test]
fn two_files_with_one_id_warn_once_naming_both_and_the_first_by_name_fires() {
    let tmp = fresh_dir("duplicate_ids");
    let data = DataDir::new(tmp.path().join("data"));
    data.ensure().expect("data dir");
    fs::write(
        data.reminders().join("a-oven.md"),
        reminder("dup00001", "oven"),
    )
    .unwrap();
    fs::write(
        data.reminders().join("b-copy.md"),
        reminder("dup00001", "copy"),
    )
    .unwrap();
    fs::write(
        data.routines().join("a-walk.md"),
        routine("dup00002", "walk"),
    )
    .unwrap();
    fs::write(
        data.routines().join("b-copy.md"),
        routine("dup00002", "copy"),
    )
    .unwrap();
    let start = Utc.with_ymd_and_hms(2026, 3, 2, 13, 0, 0).unwrap();
    let mut plan = Plan::new(&data, chrono_tz::America::New_York, start);

    let (_, log) = capture_logs(|| plan.refresh(start));
    let warned = warnings(&log);
    assert_eq!(warned.len(), 2, "{log}");
    for (dir, kind) in [("reminders", "reminder"), ("routines", "routine")] {
        let line = warned
            .iter()
            .find(|l| l.contains(&format!("two {kind} files share an id")))
            .unwrap_or_else(|| panic!("no {kind} warning in {log}"));
        assert!(
            line.contains(&format!("{dir}/a-")),
            "names the file used: {line}"
        );
        assert!(
            line.contains(&format!("{dir}/b-copy.md")),
            "names the file ignored: {line}"
        );
    }
    assert_eq!(plan.len(), 2, "one job per id");

    // A later change elsewhere does not repeat the warning.
    fs::write(
        data.reminders().join("c-other.md"),
        reminder("other001", "x"),
    )
    .unwrap();
    let (_, again) = capture_logs(|| plan.refresh(start));
    assert!(warnings(&again).is_empty(), "{again}");

    let due = plan.take_due(Utc.with_ymd_and_hms(2026, 3, 2, 14, 0, 0).unwrap());
    let bodies: Vec<String> = due
        .iter()
        .map(|d| match &d.job {
            Job::Reminder(r) => format!("reminder {}", r.message),
            Job::Routine(r) => format!("routine {}", r.message),
            other => format!("{other:?}"),
        })
        .collect();
    assert!(bodies.contains(&"reminder oven".to_owned()), "{bodies:?}");
    assert!(bodies.contains(&"routine walk".to_owned()), "{bodies:?}");
    assert!(!bodies.iter().any(|b| b.ends_with("copy")), "{bodies:?}");
}

/// A reminders directory with one good file, a link out of the data directory, a link to
/// nothing, a link that stays inside, and a directory named like a file.
#[cfg(unix)]
fn hostile_reminders(root: &Path) -> DataDir {
    use std::os::unix::fs::symlink;
    let data = DataDir::new(root.join("data"));
    data.ensure().expect("data dir");
    let dir = data.reminders();
    fs::write(dir.join("good.md"), reminder("good0001", "good")).unwrap();
    let outside = root.join("elsewhere");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.md"), reminder("leak0001", "secret")).unwrap();
    symlink(outside.join("secret.md"), dir.join("out.md")).unwrap();
    symlink(dir.join("nowhere.md"), dir.join("dangling.md")).unwrap();
    fs::write(data.root().join("kept.md"), reminder("kept0001", "kept")).unwrap();
    symlink(data.root().join("kept.md"), dir.join("in.md")).unwrap();
    fs::create_dir(dir.join("folder.md")).unwrap();
    data
}

#[cfg(unix)]
#[test]
fn the_scheduler_reads_links_only_inside_the_data_directory_and_names_what_it_skips() {
    let tmp = fresh_dir("hostile_links_plan");
    let data = hostile_reminders(tmp.path());
    let start = Utc.with_ymd_and_hms(2026, 3, 2, 13, 0, 0).unwrap();
    let mut plan = Plan::new(&data, chrono_tz::America::New_York, start);
    let (_, log) = capture_logs(|| plan.refresh(start));
    let warned = warnings(&log);
    for (name, reason) in [
        ("out.md", "outside the data directory"),
        ("dangling.md", "which does not exist"),
        ("folder.md", "is a directory"),
    ] {
        assert!(
            warned
                .iter()
                .any(|l| l.contains(name) && l.contains(reason)),
            "{name}: {reason} in {log}"
        );
    }
    assert_eq!(warned.len(), 3, "{log}");
    let ids: Vec<String> = plan.upcoming().into_iter().map(|j| j.id.0).collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(ids.contains(&"good0001".to_owned()) && ids.contains(&"kept0001".to_owned()));
    let (_, again) = capture_logs(|| plan.refresh(start));
    assert!(warnings(&again).is_empty(), "warned once: {again}");
}

#[cfg(unix)]
#[test]
fn reminder_list_skips_links_out_and_to_nothing_and_directories_naming_each() {
    let tmp = fresh_dir("hostile_links_cli");
    let data = hostile_reminders(tmp.path());
    let o = cli(data.root(), &["reminder", "list"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        out.contains("good0001") && out.contains("kept0001"),
        "{out}"
    );
    assert!(
        !out.contains("leak0001"),
        "a link out is not followed: {out}"
    );
    for name in ["out.md", "dangling.md", "folder.md"] {
        assert!(
            err.lines().any(|l| l.contains("WARN") && l.contains(name)),
            "{name} named in {err}"
        );
    }
}

#[test]
fn a_removed_file_git_never_tracked_is_committed_without_a_warning() {
    let tmp = fresh_dir("untracked_removal");
    let data = DataDir::new(tmp.path().join("data"));
    data.ensure().expect("data dir");
    let file = data.reminders().join("by-hand.md");
    fs::write(&file, reminder("hand0001", "written by hand")).unwrap();
    fs::remove_file(&file).unwrap();
    let (_, log) = capture_logs(|| data.commit(&file, "auto: fired reminders/by-hand.md"));
    assert!(warnings(&log).is_empty(), "{log}");

    // A tracked file's removal is still recorded.
    let tracked = data.reminders().join("tracked.md");
    fs::write(&tracked, reminder("trak0001", "tracked")).unwrap();
    data.commit(&tracked, "add");
    fs::remove_file(&tracked).unwrap();
    let (_, log) = capture_logs(|| data.commit(&tracked, "remove"));
    assert!(warnings(&log).is_empty(), "{log}");
    let subjects = Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(data.root())
        .output()
        .expect("git log");
    assert_eq!(String::from_utf8_lossy(&subjects.stdout), "remove\nadd\n");
}

#[test]
fn routine_list_marks_crons_the_scheduler_refuses_and_add_refuses_them() {
    let tmp = fresh_dir("invalid_crons");
    let data = DataDir::new(tmp.path().join("data"));
    data.ensure().expect("data dir");
    let write = |name: &str, id: &str, cron: &str| {
        let text = format!("---\nid: \"{id}\"\ncron: \"{cron}\"\n---\n{name}\n");
        fs::write(data.routines().join(format!("{name}.md")), text).unwrap();
    };
    write("minute", "bad00001", "60 * * * *");
    write("step", "bad00002", "*/0 * * * *");
    write("fine", "good0001", "0 9 * * *");
    let o = cli(data.root(), &["routine", "list"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    let line = |id: &str| {
        out.lines()
            .find(|l| l.contains(id))
            .unwrap_or_else(|| panic!("{id} listed: {out}"))
            .to_owned()
    };
    assert!(
        line("bad00001")
            .contains("INVALID cron '60 * * * *' (minute: 60 is out of range 0-59; never fires)"),
        "{out}"
    );
    assert!(
        line("bad00002").contains("INVALID cron '*/0 * * * *'"),
        "{out}"
    );
    assert!(!line("good0001").contains("INVALID"), "{out}");

    for cron in ["60 * * * *", "*/0 * * * *"] {
        let o = cli(
            data.root(),
            &["routine", "add", "--cron", cron, "-m", "refused"],
        );
        assert_eq!(o.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&o.stderr).contains("invalid cron"));
    }
    assert_eq!(fs::read_dir(data.routines()).unwrap().count(), 3);
}

#[test]
fn ids_like_dot_dot_slash_are_refused_from_the_command_line_and_from_files() {
    let tmp = fresh_dir("bad_ids");
    let data = DataDir::new(tmp.path().join("data"));
    data.ensure().expect("data dir");
    for kind in ["routine", "reminder"] {
        let o = cli(data.root(), &[kind, "cancel", "../../x"]);
        assert_eq!(o.status.code(), Some(1), "{kind} cancel");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("\"../../x\" is not a valid id"), "{err}");
    }
    let o = cli(
        data.root(),
        &[
            "reminder",
            "add",
            "--delay",
            "5",
            "-m",
            "x",
            "--max-chain",
            "2",
            "--chain-parent",
            "../../x",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--chain-parent"));
    assert_eq!(
        fs::read_dir(data.reminders()).unwrap().count(),
        0,
        "nothing written"
    );

    fs::write(
        data.routines().join("escape.md"),
        routine("../../x", "escape"),
    )
    .unwrap();
    fs::write(data.routines().join("fine.md"), routine("good0001", "fine")).unwrap();
    let chained = "---\nid: \"chain001\"\nrun-at: \"2026-03-02T09:00:00-05:00\"\nmax-chain: 2\nchain-parent: \"../up\"\n---\nx\n";
    fs::write(data.reminders().join("chained.md"), chained).unwrap();
    let routines = cli(data.root(), &["routine", "list"]);
    let (out, err) = (
        String::from_utf8_lossy(&routines.stdout),
        String::from_utf8_lossy(&routines.stderr),
    );
    assert!(
        out.contains("good0001") && !out.contains("../../x"),
        "{out}"
    );
    assert!(
        err.contains("escape.md") && err.contains("not a valid id"),
        "{err}"
    );
    let reminders = cli(data.root(), &["reminder", "list"]);
    let err = String::from_utf8_lossy(&reminders.stderr);
    assert!(
        err.contains("chained.md") && err.contains("\"../up\""),
        "{err}"
    );
}
