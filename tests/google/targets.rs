//! Which calendars and which task list (SPEC §17): `google_calendars` read and merged with
//! each line tagged, a calendar that answers 404 skipped, writes to the first calendar,
//! `--calendar` and `cal calendars`; `google_task_list`, `--list`, `tasks show` and the `[+]`
//! notes marker.

use chrono_tz::America::New_York;
use serde_json::json;

use crate::harness::Setup;
use crate::support::fake_google::{Failure, OWNER};

/// Today at `h:00` New York time, as RFC 3339.
fn today_at(h: u32) -> String {
    let today = chrono::Utc::now().with_timezone(&New_York).date_naive();
    chrono::TimeZone::from_local_datetime(&New_York, &today.and_hms_opt(h, 0, 0).unwrap())
        .earliest()
        .unwrap()
        .to_rfc3339()
}

fn day() -> String {
    chrono::Utc::now()
        .with_timezone(&New_York)
        .format("%Y-%m-%d")
        .to_string()
}

fn timed(summary: &str, h: u32) -> serde_json::Value {
    json!({"summary": summary, "start": {"dateTime": today_at(h)}, "end": {"dateTime": today_at(h + 1)}})
}

fn configure(s: &Setup, config: serde_json::Value) {
    std::fs::write(s.state("config.json"), config.to_string()).unwrap();
}

#[test]
fn configured_calendars_are_merged_in_start_order_and_tagged() {
    let s = Setup::connected();
    configure(
        &s,
        json!({"google_calendars": "primary,work@example.com,gone@example.com"}),
    );
    let late = s.fake.add_event(timed("Gym", 18));
    let standup = s.fake.add_event_to("work@example.com", timed("Standup", 9));
    let early = s.fake.add_event(timed("Run", 7));
    s.fake.fail_next(Failure {
        method: Some("GET"),
        path_contains: "/calendars/gone@example.com/",
        status: 404,
        message: "Not Found",
    });
    let d = day();
    assert_eq!(
        s.run(&["cal", "today"]).lines(),
        [
            "(calendar 'gone@example.com' not found — skipped)".to_owned(),
            format!("  {early}  {d}  07:00-08:00  Run [primary]"),
            format!("  {standup}  {d}  09:00-10:00  Standup [work@example.com]"),
            format!("  {late}  {d}  18:00-19:00  Gym [primary]"),
        ]
    );
    assert_eq!(
        s.run(&["cal", "upcoming", "--calendar", "work@example.com"])
            .lines(),
        [format!("  {standup}  {d}  09:00-10:00  Standup")],
        "one calendar asked: no tag"
    );
}

#[test]
fn writes_go_to_the_first_calendar_unless_one_is_named() {
    let s = Setup::connected();
    configure(&s, json!({"google_calendars": "work@example.com, primary"}));
    s.fake.add_calendar("work@example.com", "Work");
    let add = |extra: &[&str]| {
        let mut args = vec![
            "cal",
            "add",
            "Review",
            "--start",
            "2026-07-01T09:00",
            "--end",
            "2026-07-01T10:00",
        ];
        args.extend_from_slice(extra);
        s.run(&args).lines()
    };
    add(&[]);
    assert_eq!(s.fake.events_in("work@example.com").len(), 1);
    assert!(s.fake.events().is_empty());
    add(&["--calendar", "primary"]);
    let id = s.fake.events()[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        s.run(&["cal", "show", &id, "--calendar", "primary"])
            .lines()[0],
        "title:       Review"
    );
    assert!(
        s.run(&["cal", "show", &id])
            .failure()
            .contains("no such item"),
        "without --calendar the first configured one is asked"
    );
    s.run(&[
        "cal",
        "update",
        &id,
        "--calendar",
        "primary",
        "--summary",
        "Moved",
    ])
    .lines();
    assert_eq!(s.fake.events()[0]["summary"], "Moved");
    s.run(&["cal", "delete", &id, "--calendar", "primary"])
        .lines();
    assert!(s.fake.events().is_empty());
}

#[test]
fn an_empty_calendar_setting_means_primary_and_calendars_lists_the_account() {
    let s = Setup::connected();
    configure(&s, json!({"google_calendars": " "}));
    s.fake.add_event(timed("Run", 7));
    let lines = s.run(&["cal", "today"]).lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].ends_with("  Run"),
        "one calendar: untagged {lines:?}"
    );

    s.fake.add_calendar("work@example.com", "Work");
    s.fake
        .add_calendar("family12345@group.calendar.google.com", "Family");
    s.fake.set_page_size(2);
    assert_eq!(
        s.run(&["cal", "calendars"]).lines(),
        [
            "  primary                                  My Calendar",
            "  work@example.com                         Work",
            "  family12345@group.calendar.google.com    Family",
        ]
    );
    assert_eq!(
        s.fake
            .requests_to("/calendar/v3/users/me/calendarList")
            .len(),
        2,
        "every page"
    );
    assert!(OWNER.contains('@'));
}

#[test]
fn a_grant_without_the_calendar_list_scope_is_told_how_to_reconnect() {
    let s = Setup::connected();
    s.fake.fail_next(Failure {
        method: Some("GET"),
        path_contains: "/calendarList",
        status: 403,
        message: "Request had insufficient authentication scopes.",
    });
    let err = s.run(&["cal", "calendars"]).failure();
    assert!(
        err.contains("token.json") && err.contains("/google-auth"),
        "{err}"
    );
}

#[test]
fn the_configured_task_list_is_used_unless_list_names_one() {
    let s = Setup::connected();
    configure(&s, json!({"google_task_list": "errands"}));
    let milk = s
        .fake
        .add_task_to("errands", "Buy milk", Some("2%, the blue one"));
    s.fake.add_task("On the default list", None, false);
    assert_eq!(
        s.run(&["tasks", "list"]).lines(),
        [format!("  {milk}  (no due)      [ ]  Buy milk [+]")]
    );
    assert_eq!(
        s.run(&["tasks", "show", &milk]).lines(),
        [
            "title:     Buy milk".to_owned(),
            "status:    needs action".to_owned(),
            "due:       (no due)".to_owned(),
            "notes:     2%, the blue one".to_owned(),
            format!("id:        {milk}"),
        ]
    );
    let other = s.run(&["tasks", "list", "--list", "@default"]).lines();
    assert_eq!(other.len(), 1, "{other:?}");
    assert!(other[0].ends_with("[ ]  On the default list"), "{other:?}");

    s.run(&["tasks", "add", "Stamps", "--list", "@default"])
        .lines();
    s.run(&["tasks", "add", "Bread"]).lines();
    assert_eq!(s.fake.tasks().len(), 2);
    assert_eq!(s.fake.tasks_in("errands").len(), 2);
    s.run(&["tasks", "update", &milk, "--title", "Buy oat milk"])
        .lines();
    s.run(&["tasks", "done", &milk]).lines();
    assert_eq!(s.fake.tasks_in("errands")[0]["status"], "completed");
    s.run(&["tasks", "delete", &milk]).lines();
    assert_eq!(s.fake.tasks_in("errands").len(), 1);
    assert!(s
        .run(&["tasks", "show", &milk, "--list", "nope"])
        .failure()
        .contains("no such item"));
}

#[test]
fn a_blank_or_spaced_calendar_or_list_is_refused_before_anything_is_sent() {
    let s = Setup::connected();
    let before = s.snapshot();
    for args in [
        &["cal", "today", "--calendar", "my work"][..],
        &[
            "cal",
            "add",
            "X",
            "--start",
            "2026-07-01T09:00",
            "--end",
            "2026-07-01T10:00",
            "--calendar",
            " ",
        ],
        &["tasks", "list", "--list", ""],
        &["tasks", "done", "t1", "--list", "two words"],
    ] {
        let err = s.run(args).failure();
        assert!(err.contains("is not a"), "{args:?}: {err}");
    }
    assert!(s.fake.requests().is_empty(), "nothing reached Google");
    assert_eq!(s.snapshot(), before);
}

#[test]
fn an_unreadable_config_warns_and_uses_the_defaults_without_touching_it() {
    let s = Setup::connected();
    std::fs::write(s.state("config.json"), "{half").unwrap();
    s.fake.add_task("Buy milk", None, false);
    let run = s.run(&["tasks", "list"]);
    assert_eq!(run.lines().len(), 1, "{run:?}");
    assert!(run.stderr.contains("config.json"), "{run:?}");
    assert_eq!(
        std::fs::read_to_string(s.state("config.json")).unwrap(),
        "{half"
    );
}
