//! `ollim-bot cal …` against the fake: the window from local midnight, times in the
//! configured zone (America/New_York here), and the event bodies Google gets.

use chrono::TimeZone;
use chrono_tz::America::New_York;
use serde_json::json;

use crate::harness::Setup;

/// Today at `h:m` New York time, as RFC 3339 in UTC.
fn today_at(h: u32, m: u32) -> String {
    let today = chrono::Utc::now().with_timezone(&New_York).date_naive();
    New_York
        .from_local_datetime(&today.and_hms_opt(h, m, 0).unwrap())
        .earliest()
        .unwrap()
        .with_timezone(&chrono::Utc)
        .to_rfc3339()
}

fn today() -> String {
    chrono::Utc::now()
        .with_timezone(&New_York)
        .format("%Y-%m-%d")
        .to_string()
}

#[test]
fn today_lists_events_from_local_midnight_in_the_configured_zone() {
    let s = Setup::connected();
    let dentist = s.fake.add_event(json!({
        "summary": "Dentist",
        "start": {"dateTime": today_at(9, 0)},
        "end": {"dateTime": today_at(10, 30)},
    }));
    let offsite = s.fake.add_event(json!({
        "summary": "Offsite",
        "start": {"date": today()},
        "end": {"date": today()},
    }));
    let far = (chrono::Utc::now() + chrono::Duration::days(3)).to_rfc3339();
    s.fake.add_event(
        json!({"summary": "Later", "start": {"dateTime": far}, "end": {"dateTime": far}}),
    );
    let lines = s.run(&["cal", "today"]).lines();
    let day = today();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(
        lines.contains(&format!("  {dentist}  {day}  09:00-10:30  Dentist")),
        "{lines:#?}"
    );
    assert!(
        lines.contains(&format!("  {offsite}  {day}  (all-day)     Offsite")),
        "{lines:#?}"
    );
    let list = &s.fake.requests_to("/calendar/v3/calendars/primary/events")[0];
    let q = list.query_pairs();
    let time_min = &q.iter().find(|(k, _)| k == "timeMin").unwrap().1;
    assert!(
        time_min.starts_with(&format!("{day}T00:00:00-0")),
        "local midnight: {time_min}"
    );
    assert!(q.contains(&("singleEvents".into(), "true".into())));
    assert!(q.contains(&("orderBy".into(), "startTime".into())));

    let week = s.run(&["cal", "upcoming", "--days", "7"]).lines();
    assert_eq!(week.len(), 3, "{week:#?}");
    assert!(week[2].ends_with("Later"), "in start order: {week:#?}");
}

#[test]
fn no_events_says_so_and_show_prints_the_details() {
    let s = Setup::connected();
    assert_eq!(s.run(&["cal", "today"]).lines(), ["no events"]);
    let id = s.fake.add_event(json!({
        "summary": "Dentist",
        "location": "12 Main St",
        "description": "bring the form",
        "attendees": [{"email": "sam@example.com"}, {"email": "dr@example.com"}],
        "start": {"dateTime": "2026-02-24T14:00:00Z"},
        "end": {"dateTime": "2026-02-24T15:00:00Z"},
    }));
    let shown = s.run(&["cal", "show", &id]).lines();
    assert_eq!(shown[0], "title:       Dentist");
    assert_eq!(shown[1], "when:        2026-02-24  09:00-10:00  Dentist");
    assert!(
        shown.contains(&"location:    12 Main St".to_owned()),
        "{shown:#?}"
    );
    assert!(shown.contains(&"attendees:   sam@example.com, dr@example.com".to_owned()));
    assert_eq!(shown.last().unwrap(), &format!("id:          {id}"));
}

#[test]
fn add_update_and_delete_send_local_times_with_the_zone() {
    let s = Setup::connected();
    let created = s
        .run(&[
            "cal",
            "add",
            "Dentist",
            "--start",
            "2026-07-01T09:30",
            "--end",
            "2026-07-01T10:15",
            "--description",
            "bring the form",
        ])
        .lines();
    let event = s.fake.events()[0].clone();
    let id = event["id"].as_str().unwrap().to_owned();
    assert_eq!(created, [format!("created {id}: Dentist")]);
    assert_eq!(
        event["start"],
        json!({"dateTime": "2026-07-01T09:30:00-04:00", "timeZone": "America/New_York"})
    );
    assert_eq!(event["description"], "bring the form");

    let updated = s
        .run(&[
            "cal",
            "update",
            &id,
            "--summary",
            "Dentist (moved)",
            "--start",
            "2026-07-01T11:00",
            "--end",
            "2026-07-01T12:00",
        ])
        .lines();
    assert_eq!(updated, [format!("updated {id}")]);
    let event = s.fake.events()[0].clone();
    assert_eq!(event["summary"], "Dentist (moved)");
    assert_eq!(event["end"]["dateTime"], "2026-07-01T12:00:00-04:00");

    assert_eq!(
        s.run(&["cal", "delete", &id]).lines(),
        [format!("deleted {id}")]
    );
    assert!(s.fake.events().is_empty());
}
