use std::fs;
use std::io::Write as _;

use chrono::{DateTime, Utc};

use super::*;
use crate::records::usage::record::UsageKind;

fn record(ts: &str, cost: f64) -> UsageRecord {
    UsageRecord {
        ts: DateTime::parse_from_rfc3339(ts).unwrap(),
        kind: UsageKind::Conversation,
        session: "s1".into(),
        model: Some("claude-sonnet-4-5".into()),
        cost_usd: cost,
        total_cost_usd: Some(cost),
        input_tokens: 10,
        output_tokens: 5,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
    }
}

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-27T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

#[test]
fn a_torn_line_is_skipped_and_the_next_append_starts_fresh() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(FILE_NAME);
    append(&path, &record("2026-11-01T10:00:00Z", 0.5), false).unwrap();
    fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"{\"ts\":\"half")
        .unwrap();
    assert!(torn_end(&path).unwrap());
    append(&path, &record("2026-11-02T10:00:00Z", 0.25), true).unwrap();
    let read = read(&path).unwrap();
    let costs: Vec<f64> = read.records.iter().map(|r| r.cost_usd).collect();
    assert_eq!(costs, [0.5, 0.25]);
    assert_eq!((read.skipped, read.torn_end), (1, false));
}

#[test]
fn pruning_removes_lines_older_than_400_days_and_keeps_the_rest_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(FILE_NAME);
    // Hand-written lines in an order and spacing serde would not produce, so a rewrite that
    // re-encoded them would show.
    let old =
        r#"{"ts":"2025-10-23T11:59:00+00:00","kind":"conversation","session":"a","cost_usd":1.0}"#;
    let edge = r#"{ "cost_usd": 2.50, "ts": "2025-10-23T14:01:00+02:00", "kind": "fork", "session": "b" }"#;
    let corrupt = r#"{"ts": not json"#;
    let recent = r#"{"kind":"conversation","ts":"2026-11-27T09:00:00+01:00","session":"c","cost_usd":0.125,"input_tokens":7}"#;
    fs::write(&path, format!("{old}\n{edge}\n{corrupt}\n{recent}\n")).unwrap();
    let pruned = prune(&path, now()).unwrap();
    assert_eq!(
        pruned,
        Pruned {
            removed: 1,
            unreadable: 1
        }
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        format!("{edge}\n{corrupt}\n{recent}\n")
    );
    // Nothing old left: the file is not touched again.
    let before = fs::metadata(&path).unwrap().modified().unwrap();
    assert_eq!(prune(&path, now()).unwrap().removed, 0);
    assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), before);
}

#[test]
fn a_missing_file_reads_and_prunes_as_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(FILE_NAME);
    let read = read(&path).unwrap();
    assert!(read.records.is_empty() && read.skipped == 0);
    assert_eq!(prune(&path, now()).unwrap(), Pruned::default());
    assert!(!path.exists());
}
