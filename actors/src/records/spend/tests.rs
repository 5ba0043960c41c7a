use chrono::TimeZone;

use super::*;
use crate::jobs::JobId;
use crate::records::runs::{JobKind, Outcome, Trigger};

const NY: Tz = chrono_tz::America::New_York;

fn record(ended: &str, cost: Option<f64>) -> RunRecord {
    let at = DateTime::parse_from_rfc3339(ended).unwrap();
    RunRecord {
        run: "r".into(),
        job: JobId("a1b2c3d4".into()),
        kind: JobKind::Routine,
        tag: "routine-bg".into(),
        name: "n".into(),
        file: "routines/n.md".into(),
        scheduled: at,
        started: Some(at),
        ended: at,
        outcome: Outcome::Ok,
        pinged: false,
        reported: false,
        cost_usd: cost,
        turns: None,
        error: None,
        late_since: None,
        trigger: Trigger::Schedule,
        alerted: false,
        count: None,
        session: None,
    }
}

#[test]
fn the_day_starts_at_local_midnight_and_the_month_on_the_first() {
    let now = NY.with_ymd_and_hms(2026, 3, 2, 9, 0, 0).unwrap();
    let records = [
        record("2026-02-28T23:00:00-05:00", Some(5.0)), // last month
        record("2026-03-01T12:00:00-05:00", Some(2.0)), // this month, yesterday
        record("2026-03-01T23:59:00-05:00", Some(1.0)), // yesterday, 04:59 UTC today
        record("2026-03-02T00:00:00-05:00", Some(0.5)), // today
        record("2026-03-02T08:00:00-05:00", None),      // no cost reported
        record("2026-03-02T08:30:00-05:00", Some(0.25)),
    ];
    let spent = Spent::tally(&records, now);
    assert_eq!(spent.today_usd, 0.75);
    assert_eq!(spent.month_usd, 3.75);
}

#[test]
fn standing_checks_the_day_then_the_month_and_leaves_the_tighter_room() {
    let caps = Caps {
        daily_cents: Some(1000),
        monthly_cents: Some(5000),
    };
    let within = Spent {
        today_usd: 1.2,
        month_usd: 49.0,
    };
    let Standing::Within {
        left_usd: Some(left),
    } = within.standing(caps)
    else {
        panic!("{:?}", within.standing(caps));
    };
    assert!((left - 1.0).abs() < 1e-9, "{left}");
    let over_day = Spent {
        today_usd: 10.0,
        month_usd: 60.0,
    };
    assert_eq!(
        over_day.standing(caps).notice().as_deref(),
        Some("background work is paused until midnight: spent $10.00 of $10.00 today (`/config spend_daily_usd` to change)")
    );
    let over_month = Spent {
        today_usd: 1.0,
        month_usd: 50.5,
    };
    assert!(matches!(
        over_month.standing(caps),
        Standing::OverMonthly {
            cap_cents: 5000,
            ..
        }
    ));
    assert_eq!(
        over_day.standing(Caps::default()),
        Standing::Within { left_usd: None }
    );
}

#[test]
fn the_preamble_line_and_the_run_budget() {
    let caps = Caps {
        daily_cents: Some(1000),
        monthly_cents: None,
    };
    let spent = Spent {
        today_usd: 1.2,
        month_usd: 1.2,
    };
    assert_eq!(
        spent.preamble_line(caps).as_deref(),
        Some("spend today: $1.20 of $10.00")
    );
    assert_eq!(spent.preamble_line(Caps::default()), None);
    assert_eq!(run_budget_usd(100, None), 1.0);
    assert_eq!(run_budget_usd(100, Some(0.4)), 0.4);
    assert_eq!(run_budget_usd(100, Some(5.0)), 1.0);
    assert_eq!(run_budget_usd(100, Some(-1.0)), 0.01);
}

#[actix_rt::test]
async fn on_the_31st_the_months_total_still_holds_the_first_days_runs() {
    use crate::base::clock::ManualClock;
    use crate::base::data_dir::DataDir;
    use crate::records::runs::{History, Record};

    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    data.ensure().unwrap();
    let clock = ManualClock::new(NY.with_ymd_and_hms(2026, 3, 1, 0, 45, 0).unwrap().to_utc());
    let log = RunLog::in_data_dir(&data, clock.shared(), NY).start();
    let mut first = record("2026-03-01T00:30:00-05:00", Some(2.0));
    first.run = "first".into();
    log.send(Record(vec![first])).await.unwrap();
    // A line a day, each a minute more than a day after the last, prunes every day of the month.
    for day in 2..=31 {
        let at = NY.with_ymd_and_hms(2026, 3, day, 22, day, 0).unwrap();
        clock.set(at.to_utc());
        let mut line = record(&at.to_rfc3339(), Some(0.5));
        line.run = format!("day-{day}");
        log.send(Record(vec![line])).await.unwrap();
    }
    let spent = log.send(SpendSoFar).await.unwrap();
    assert_eq!(
        spent.month_usd,
        2.0 + 30.0 * 0.5,
        "the 1st's run is counted on the 31st"
    );
    let runs = std::fs::read_to_string(data.state_file("runs.jsonl")).unwrap();
    assert!(runs.contains(r#""run":"first""#), "{runs}");

    // Into April: March's first day is more than 30 days back and not this month.
    clock.set(NY.with_ymd_and_hms(2026, 4, 2, 9, 0, 0).unwrap().to_utc());
    let mut april = record("2026-04-02T09:00:00-04:00", Some(1.0));
    april.run = "april".into();
    log.send(Record(vec![april])).await.unwrap();
    let spent = log.send(SpendSoFar).await.unwrap();
    assert_eq!(spent.month_usd, 1.0);
    let kept = log
        .send(History {
            job: None,
            kind: None,
            limit: usize::MAX,
        })
        .await
        .unwrap();
    assert!(kept.iter().all(|r| r.run != "first"), "pruned in April");
    let runs = std::fs::read_to_string(data.state_file("runs.jsonl")).unwrap();
    assert!(!runs.contains(r#""run":"first""#), "{runs}");
    assert!(runs.contains(r#""run":"day-3""#), "{runs}");
}
