use std::fs;

use chrono::{DateTime, Utc};

use super::*;
use crate::base::clock::ManualClock;

fn at(ts: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(ts)
        .unwrap()
        .with_timezone(&Utc)
}

fn line(ts: &str, cost: f64) -> UsageRecord {
    UsageRecord {
        ts: DateTime::parse_from_rfc3339(ts).unwrap(),
        kind: UsageKind::Fork,
        session: "s".into(),
        model: None,
        cost_usd: cost,
        total_cost_usd: None,
        input_tokens: 1,
        output_tokens: 2,
        cache_read_tokens: 3,
        cache_write_tokens: 4,
    }
}

#[actix::test]
async fn turns_are_appended_and_old_lines_pruned_at_start_and_a_day_later() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    fs::create_dir_all(data.state()).unwrap();
    let path = data.state_file(file::FILE_NAME);
    let kept =
        r#"{"ts":"2026-06-01T08:00:00+02:00","kind":"conversation","session":"k","cost_usd":0.5}"#;
    let old =
        r#"{"ts":"2025-01-01T08:00:00+01:00","kind":"conversation","session":"o","cost_usd":9.0}"#;
    // A torn last line: kept as it is, and the next line starts fresh.
    fs::write(&path, format!("{old}\n{kept}\n{{\"ts\":")).unwrap();
    let clock = ManualClock::new(at("2026-11-27T12:00:00Z"));
    let log = UsageLog::in_data_dir(&data, clock.shared(), chrono_tz::UTC).start();
    log.send(RecordTurn(line("2026-11-27T12:00:00Z", 0.25)))
        .await
        .unwrap();
    let text = fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[..2], [kept, "{\"ts\":"]);
    assert_eq!(lines.len(), 3);
    let read = file::read(&path).unwrap();
    assert_eq!(read.records.len(), 2);
    assert_eq!(read.records[1], line("2026-11-27T12:00:00Z", 0.25));

    // 400 days after `kept`, and a day after the last prune: the next turn prunes it.
    clock.set(at("2027-07-07T12:00:00Z"));
    log.send(RecordTurn(line("2027-07-07T12:00:00Z", 0.125)))
        .await
        .unwrap();
    let read = file::read(&path).unwrap();
    let costs: Vec<f64> = read.records.iter().map(|r| r.cost_usd).collect();
    assert_eq!(costs, [0.25, 0.125]);
    assert_eq!(
        read.skipped, 1,
        "the torn line is kept, never dropped unread"
    );
}
