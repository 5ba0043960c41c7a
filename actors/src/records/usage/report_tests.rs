use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;

use super::*;
use crate::records::runs::{Outcome, RunRecord, Trigger};
use crate::records::usage::render::{self, JobList};

const TZ: Tz = chrono_tz::Europe::Berlin;

fn t(ts: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(ts).unwrap()
}

fn turn(ts: &str, kind: UsageKind, cost: f64, input: u64) -> UsageRecord {
    UsageRecord {
        ts: t(ts),
        kind,
        session: "s".into(),
        model: None,
        cost_usd: cost,
        total_cost_usd: None,
        input_tokens: input,
        output_tokens: 1,
        cache_read_tokens: 100,
        cache_write_tokens: 10,
    }
}

fn run(job: &str, ended: &str, outcome: Outcome, cost: Option<f64>) -> RunRecord {
    RunRecord {
        run: format!("{job}-{ended}"),
        job: JobId(job.into()),
        kind: JobKind::Routine,
        tag: "routine-bg".into(),
        name: format!("job {job}"),
        file: format!("routines/{job}.md"),
        scheduled: t(ended),
        started: Some(t(ended)),
        ended: t(ended),
        outcome,
        pinged: false,
        reported: false,
        cost_usd: cost,
        turns: Some(1),
        error: None,
        late_since: None,
        trigger: Trigger::Schedule,
        alerted: false,
        count: None,
        session: None,
    }
}

fn now() -> DateTime<Utc> {
    t("2026-11-27T12:00:00+01:00").with_timezone(&Utc)
}

#[test]
fn windows_start_at_local_midnight_and_add_up_the_lines_inside_them() {
    let usage = [
        // Today in Berlin (23:30 UTC the day before is 00:30 local).
        turn("2026-11-26T23:30:00Z", UsageKind::Conversation, 0.5, 100),
        turn("2026-11-27T11:00:00+01:00", UsageKind::Fork, 0.25, 20),
        // Yesterday 23:59 local: in 7 days, not today.
        turn(
            "2026-11-26T23:59:00+01:00",
            UsageKind::Conversation,
            1.0,
            1000,
        ),
        // 6 days before today at 00:00 local: the first moment of the 7-day window.
        turn("2026-11-21T00:00:00+01:00", UsageKind::Conversation, 2.0, 1),
        // A second before it: only in 30 days.
        turn("2026-11-20T23:59:59+01:00", UsageKind::Conversation, 4.0, 1),
        // Older than 30 days: nowhere.
        turn("2026-10-01T12:00:00+02:00", UsageKind::Conversation, 8.0, 1),
    ];
    let runs = [
        run(
            "aaaa",
            "2026-11-27T09:00:00+01:00",
            Outcome::Ok,
            Some(0.125),
        ),
        run(
            "bbbb",
            "2026-11-25T09:00:00+01:00",
            Outcome::Failed,
            Some(0.0625),
        ),
        run("aaaa", "2026-11-24T09:00:00+01:00", Outcome::Missed, None),
        run("aaaa", "2026-11-23T09:00:00+01:00", Outcome::Skipped, None),
        run("cccc", "2026-10-20T09:00:00+02:00", Outcome::Ok, Some(3.0)),
    ];
    let report = build(&usage, &runs, now(), TZ, &windows_for(None));
    let [today, week, month] = &report.windows[..] else {
        panic!("three windows: {report:?}");
    };
    assert_eq!(
        today.since,
        TZ.with_ymd_and_hms(2026, 11, 27, 0, 0, 0).unwrap()
    );
    assert_eq!(
        week.since,
        TZ.with_ymd_and_hms(2026, 11, 21, 0, 0, 0).unwrap()
    );
    assert_eq!(
        month.since,
        TZ.with_ymd_and_hms(2026, 10, 29, 0, 0, 0).unwrap()
    );

    assert_eq!(
        (today.conversation.cost_usd, today.conversation.turns),
        (0.5, 1)
    );
    assert_eq!((today.forks.cost_usd, today.forks.input_tokens), (0.25, 20));
    assert_eq!((today.jobs_cost_usd, today.job_runs), (0.125, 1));
    assert_eq!(today.total_usd(), 0.875);

    assert_eq!(week.conversation.cost_usd, 0.5 + 1.0 + 2.0);
    assert_eq!(week.conversation.input_tokens, 100 + 1000 + 1);
    assert_eq!(week.conversation.cache_read_tokens, 300);
    assert_eq!((week.jobs_cost_usd, week.job_runs), (0.125 + 0.0625, 2));
    assert_eq!(month.conversation.cost_usd, 7.5);
    assert_eq!(month.conversation.turns, 4);
    let jobs: Vec<(&str, f64, u64)> = month
        .jobs
        .iter()
        .map(|j| (j.job.0.as_str(), j.cost_usd, j.runs))
        .collect();
    assert_eq!(jobs, [("aaaa", 0.125, 1), ("bbbb", 0.0625, 1)]);

    let text = render::text(&report, JobList::Top(1));
    assert!(
        text.contains("today (since 00:00, Europe/Berlin): $0.8750"),
        "{text}"
    );
    assert!(
        text.contains("last 7 days (since Sat 2026-11-21): $3.9375"),
        "{text}"
    );
    assert!(
        text.contains(
            "top jobs, last 30 days:\n  $0.1250 · 1 run · routine aaaa · job aaaa\nnote:"
        ),
        "{text}"
    );
    assert!(text.contains("subscription"), "{text}");
}

#[test]
fn a_window_of_n_days_and_the_limits_of_days() {
    assert_eq!(windows_for(Some(3)), [1, 3]);
    assert_eq!(windows_for(Some(1)), [1]);
    assert_eq!(parse_days(" 14 ").unwrap(), 14);
    for bad in ["0", "401", "-1", "week"] {
        assert!(parse_days(bad).is_err(), "{bad}");
    }
    let report = build(&[], &[], now(), TZ, &windows_for(Some(90)));
    let text = render::text(&report, JobList::All);
    assert!(text.contains("last 90 days"), "{text}");
    assert!(text.contains("job runs are kept 30 days"), "{text}");
}

#[test]
fn a_midnight_a_clock_change_skips_starts_the_day_at_its_first_moment() {
    // Havana skips from 00:00 to 01:00 when summer time starts (2026-03-08).
    let havana: Tz = chrono_tz::America::Havana;
    let d = NaiveDate::from_ymd_opt(2026, 3, 8).unwrap();
    let m = midnight(havana, d);
    assert_eq!(m.date_naive(), d);
    assert!(m.time() <= chrono::NaiveTime::from_hms_opt(1, 0, 0).unwrap());
}

#[test]
fn counts_read_with_thousands_separated() {
    assert_eq!(render::count(0), "0");
    assert_eq!(render::count(999), "999");
    assert_eq!(render::count(1000), "1,000");
    assert_eq!(render::count(1234567), "1,234,567");
}

#[test]
fn a_long_job_name_is_shortened_and_the_id_still_says_which() {
    let mut long = run("dddd", "2026-11-27T09:00:00+01:00", Outcome::Ok, Some(0.5));
    long.name = "x".repeat(60);
    let report = build(&[], &[long], now(), TZ, &windows_for(Some(1)));
    let text = render::text(&report, JobList::Top(5));
    let line = text.lines().find(|l| l.contains("dddd")).unwrap();
    assert!(line.ends_with(&format!("{}…", "x".repeat(39))), "{line}");
}
