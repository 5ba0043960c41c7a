//! File names: slugs of the message, collisions, the id fallback; removal by YAML id; webhook
//! specs named and found by id; the user-authored skill list.

use std::fs;

use ollim_actors::jobs::store;
use ollim_actors::jobs::{reminder, JobId, JobSettings, Reminder, Routine};
use ollim_actors::{jobs::skills, jobs::webhook_spec};

use crate::fixtures::{copy_fixtures, fresh_dir, original};

fn routine(id: &str, message: &str) -> Routine {
    Routine {
        id: JobId(id.to_owned()),
        message: message.to_owned(),
        cron: "0 9 * * *".to_owned(),
        settings: JobSettings::default(),
        paused: false,
        catch_up: Default::default(),
        session: Default::default(),
    }
}

fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<_> = fs::read_dir(dir)
        .expect("lists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn new_file_is_named_by_the_message_slug() {
    let tmp = fresh_dir("named_by_slug");
    let path = store::write(
        tmp.path(),
        &routine("aaaa0001", "Take a break!! Drink water."),
    )
    .expect("writes");
    assert_eq!(path, tmp.path().join("take-a-break-drink-water.md"));
}

#[test]
fn long_message_is_cut_at_fifty_characters() {
    let tmp = fresh_dir("long_message");
    let message = "Review the whole backlog of open tasks and archive anything older than a month";
    let path = store::write(tmp.path(), &routine("aaaa0002", message)).expect("writes");
    assert_eq!(
        path,
        tmp.path()
            .join("review-the-whole-backlog-of-open-tasks-and-archive.md")
    );
}

#[test]
fn same_id_overwrites_the_same_file() {
    let tmp = fresh_dir("same_id_overwrites");
    let first = store::write(tmp.path(), &routine("aaaa0003", "Stretch")).expect("writes");
    let mut changed = routine("aaaa0003", "Stretch");
    changed.cron = "0 10 * * *".to_owned();
    let second = store::write(tmp.path(), &changed).expect("writes");
    assert_eq!(first, second);
    assert_eq!(names_in(tmp.path()), ["stretch.md"]);
    assert_eq!(
        store::load_file::<Routine>(&second).expect("reads").cron,
        "0 10 * * *"
    );
}

#[test]
fn different_ids_with_the_same_slug_get_numbered_names() {
    let tmp = fresh_dir("different_ids_numbered");
    for id in ["aaaa0004", "bbbb0004", "cccc0004"] {
        store::write(tmp.path(), &routine(id, "Stretch!")).expect("writes");
    }
    assert_eq!(
        names_in(tmp.path()),
        ["stretch-2.md", "stretch-3.md", "stretch.md"]
    );
    let loaded = store::load_dir::<Routine>(tmp.path()).expect("lists");
    let ids: Vec<_> = loaded
        .items
        .iter()
        .map(|(p, r)| {
            (
                p.file_name().map(|n| n.to_string_lossy().into_owned()),
                r.id.as_str(),
            )
        })
        .collect();
    assert_eq!(
        ids,
        [
            (Some("stretch-2.md".to_owned()), "bbbb0004"),
            (Some("stretch-3.md".to_owned()), "cccc0004"),
            (Some("stretch.md".to_owned()), "aaaa0004"),
        ]
    );
    // Rewriting the second one lands on its own file, not on a new -4.
    store::write(tmp.path(), &routine("bbbb0004", "Stretch!")).expect("writes");
    assert_eq!(names_in(tmp.path()).len(), 3);
}

#[test]
fn message_without_letters_or_digits_is_named_by_id() {
    let tmp = fresh_dir("named_by_id");
    let path = store::write(tmp.path(), &routine("dddd0005", "🎉 🎉 !!")).expect("writes");
    assert_eq!(path, tmp.path().join("dddd0005.md"));
}

#[test]
fn fresh_reminder_writes_an_isoformat_time_with_offset() {
    let tmp = fresh_dir("fresh_reminder");
    let at = chrono::DateTime::parse_from_rfc3339("2026-02-24T14:00:00.250-08:00").expect("time");
    let background = JobSettings {
        background: true,
        ..JobSettings::default()
    };
    let r = Reminder::new("Call the dentist", at, background);
    let path = store::write(tmp.path(), &r).expect("writes");
    assert_eq!(path, tmp.path().join("call-the-dentist.md"));
    let text = fs::read_to_string(&path).expect("reads");
    assert_eq!(
        text,
        format!("---\nid: \"{}\"\nrun-at: \"2026-02-24T14:00:00.250000-08:00\"\n---\nCall the dentist\n", r.id)
    );
    assert_eq!(reminder::parse(&text).expect("parses"), r);
}

#[test]
fn remove_finds_the_file_by_yaml_id_not_by_name() {
    let tmp = fresh_dir("remove_by_id");
    let dir = copy_fixtures("reminders", tmp.path());
    let removed = store::remove(&dir, "d00dfeed").expect("removes");
    assert_eq!(
        removed,
        Some(dir.join("has-the-quarterly-report-been-sent-check-tasks-for-2.md"))
    );
    assert!(!dir
        .join("has-the-quarterly-report-been-sent-check-tasks-for-2.md")
        .exists());
    assert!(dir
        .join("has-the-quarterly-report-been-sent-check-tasks-for.md")
        .exists());
    assert_eq!(names_in(&dir).len(), 3);
    assert_eq!(
        store::remove(&dir, "d00dfeed").expect("second remove"),
        None
    );
    assert_eq!(
        store::remove(&dir, "has-the-quarterly-report-been-sent-check-tasks-for").expect("by name"),
        None
    );
    assert_eq!(names_in(&dir).len(), 3);
}

#[test]
fn webhook_specs_are_named_by_id_and_found_by_yaml_id() {
    let tmp = fresh_dir("webhook_ids");
    let dir = copy_fixtures("webhooks", tmp.path());
    let mut spec = webhook_spec::find_spec(&dir, "github-ci")
        .expect("lists")
        .expect("found");
    spec.id = "deploy-done".to_owned();
    let path = store::write(&dir, &spec).expect("writes");
    assert_eq!(path, dir.join("deploy-done.md"));
    // The file name does not matter when looking a spec up: only the YAML id does.
    fs::rename(&path, dir.join("renamed.md")).expect("rename");
    assert_eq!(
        webhook_spec::find_spec(&dir, "deploy-done")
            .expect("lists")
            .map(|s| s.id),
        Some("deploy-done".to_owned())
    );
    assert!(webhook_spec::find_spec(&dir, "renamed")
        .expect("lists")
        .is_none());
}

#[test]
fn user_skill_list_leaves_out_generated_skills() {
    let names: Vec<_> = skills::load_user_skills(&original("skills"))
        .expect("lists")
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names, ["email-triage", "task-review"]);
    let all = skills::load_skills(&original("skills")).expect("lists");
    assert_eq!(all.items.len(), 3);
}

#[test]
fn new_skill_is_written_into_its_own_directory() {
    let tmp = fresh_dir("new_skill");
    let skill = ollim_actors::jobs::skills::Skill {
        name: "weekly-review".to_owned(),
        description: "Look back at the week.".to_owned(),
        allowed_tools: None,
        instructions: "Summarise the week's completed tasks.".to_owned(),
    };
    let path = skills::write_skill(tmp.path(), &skill).expect("writes");
    assert_eq!(path, tmp.path().join("weekly-review").join("SKILL.md"));
    assert_eq!(
        skills::read_skill(tmp.path(), "weekly-review").expect("reads"),
        Some(skill)
    );
}
