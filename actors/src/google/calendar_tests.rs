use super::*;
use chrono_tz::America::New_York;

fn event(start: When, end: When) -> Event {
    Event {
        id: "ev1".into(),
        summary: Some("Dentist".into()),
        description: None,
        location: Some("Main St".into()),
        html_link: None,
        status: Some("confirmed".into()),
        attendees: vec![],
        start,
        end,
    }
}

#[test]
fn timed_events_show_in_the_configured_zone_and_all_day_ones_by_date() {
    let timed = event(
        When {
            date_time: Some("2026-02-24T14:00:00Z".into()),
            date: None,
        },
        When {
            date_time: Some("2026-02-24T15:30:00Z".into()),
            date: None,
        },
    );
    assert_eq!(
        timed.line(New_York),
        "  ev1  2026-02-24  09:00-10:30  Dentist"
    );
    let all_day = event(
        When {
            date_time: None,
            date: Some("2026-02-25".into()),
        },
        When::default(),
    );
    assert_eq!(
        all_day.line(New_York),
        "  ev1  2026-02-25  (all-day)     Dentist"
    );
    let shown = timed.details(New_York).join("\n");
    assert!(shown.contains("location:    Main St"), "{shown}");
    assert!(shown.ends_with("id:          ev1"), "{shown}");
}

#[test]
fn times_are_read_in_the_zone_and_bad_ones_refused() {
    let t = parse_time("--start", "2026-07-01T09:30", New_York).unwrap();
    assert_eq!(stamp(&t), "2026-07-01T09:30:00-04:00");
    let with_offset = parse_time("--start", "2026-07-01T09:30:00Z", New_York).unwrap();
    assert_eq!(stamp(&with_offset), "2026-07-01T05:30:00-04:00");
    assert!(parse_time("--start", "2026-13-01T09:30", New_York).is_err());
    assert!(parse_time("--start", "tomorrow 9", New_York).is_err());
    let gap = parse_time("--start", "2026-03-08T02:30", New_York).unwrap_err();
    assert!(gap.to_string().contains("does not exist"), "{gap}");
}

#[test]
fn the_window_runs_from_local_midnight_across_dst() {
    let now = DateTime::parse_from_rfc3339("2026-03-07T15:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let (from, to) = window(now, New_York, 2);
    assert_eq!(stamp(&from), "2026-03-07T00:00:00-05:00");
    assert_eq!(stamp(&to), "2026-03-09T00:00:00-04:00");
}

#[test]
fn an_end_before_the_start_is_refused_before_any_call() {
    let start = parse_time("--start", "2026-07-01T10:00", New_York).unwrap();
    let end = parse_time("--end", "2026-07-01T09:00", New_York).unwrap();
    let fields = Fields {
        summary: Some("x".into()),
        start: Some(start),
        end: Some(end),
        description: None,
    };
    assert!(fields.body(New_York).is_err());
}
