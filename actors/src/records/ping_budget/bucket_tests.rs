use super::*;
use chrono::{Duration, TimeZone};
use chrono_tz::America::Los_Angeles;

fn at(h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 2, 24, h, m, 0).unwrap()
}

fn empty_at(now: DateTime<Utc>) -> Bucket {
    Bucket {
        available: 0.0,
        ..Bucket::fresh(now, Tz::UTC)
    }
}

#[test]
fn refill_keeps_fractional_tokens() {
    let b = empty_at(at(10, 0)).settled(at(10, 45), Tz::UTC);
    assert!((b.available - 0.5).abs() < 1e-12, "got {}", b.available);
    assert_eq!(b.whole_tokens(), 0);
    assert!(!b.has_token());
}

#[test]
fn fractions_from_separate_reads_add_up_to_a_whole_token() {
    // Six reads 15 minutes apart add 1/6 six times: 0.9999999999999999 in floating point.
    let mut b = empty_at(at(10, 0));
    for step in 1..=6 {
        b = b.settled(at(10, 0) + Duration::minutes(15 * step), Tz::UTC);
    }
    assert_eq!(b.whole_tokens(), 1);
    assert!(b.has_token());
    assert_eq!(b.minutes_to_next_refill(), Some(90));
}

#[test]
fn refill_across_hours_is_capped_at_capacity() {
    let start = empty_at(at(0, 0));
    assert_eq!(start.settled(at(4, 30), Tz::UTC).whole_tokens(), 3);
    let much_later = start.settled(at(23, 0), Tz::UTC);
    assert_eq!(much_later.available, 5.0);
    assert_eq!(much_later.minutes_to_next_refill(), None);
}

#[test]
fn time_running_backwards_regains_nothing() {
    let b = empty_at(at(12, 0)).settled(at(11, 0), Tz::UTC);
    assert_eq!(b.available, 0.0);
}

#[test]
fn next_refill_counts_the_missing_fraction() {
    let b = empty_at(at(10, 0)).settled(at(10, 48), Tz::UTC);
    assert_eq!(b.minutes_to_next_refill(), Some(42));
    let whole = Bucket {
        available: 3.0,
        ..b.clone()
    };
    assert_eq!(whole.minutes_to_next_refill(), Some(90));
    let almost = Bucket {
        available: 3.999,
        ..b
    };
    assert_eq!(almost.minutes_to_next_refill(), Some(1));
}

#[test]
fn spending_takes_one_token_and_counts_it() {
    let mut b = Bucket::fresh(at(9, 0), Tz::UTC);
    b.spend();
    b.spend();
    assert_eq!(b.available, 3.0);
    assert_eq!(b.daily_used, 2);
}

#[test]
fn counters_reset_at_local_midnight_not_utc_midnight() {
    // 15:30 PST on Feb 23 is 23:30 UTC; UTC midnight passes at 16:00 PST.
    let before_utc_midnight = Utc.with_ymd_and_hms(2026, 2, 23, 23, 30, 0).unwrap();
    let mut b = Bucket::fresh(before_utc_midnight, Los_Angeles);
    b.spend();
    b.critical_used = 1;
    let after_utc_midnight = before_utc_midnight + Duration::hours(1);
    let same_local_day = b.settled(after_utc_midnight, Los_Angeles);
    assert_eq!(
        (same_local_day.daily_used, same_local_day.critical_used),
        (1, 1)
    );
    // 00:30 PST on Feb 24 is 08:30 UTC.
    let after_local_midnight = Utc.with_ymd_and_hms(2026, 2, 24, 8, 30, 0).unwrap();
    let next_day = same_local_day.settled(after_local_midnight, Los_Angeles);
    assert_eq!((next_day.daily_used, next_day.critical_used), (0, 0));
    assert_eq!(
        next_day.daily_used_reset,
        NaiveDate::from_ymd_opt(2026, 2, 24).unwrap()
    );
}

#[test]
fn refills_between_counts_whole_periods_only() {
    assert_eq!(refills_between(90, at(9, 0), at(12, 0)), 2);
    assert_eq!(refills_between(90, at(9, 0), at(10, 29)), 0);
    assert_eq!(refills_between(60, at(9, 0), at(12, 0)), 3);
    assert_eq!(refills_between(90, at(12, 0), at(9, 0)), 0);
}

#[test]
fn file_round_trips_in_the_zone_with_its_offset() {
    let mut b = Bucket::fresh(
        Utc.with_ymd_and_hms(2026, 2, 24, 22, 30, 0).unwrap(),
        Los_Angeles,
    );
    b.available = 2.25;
    let json = serde_json::to_value(BucketFile::new(&b, Los_Angeles)).unwrap();
    assert_eq!(json["last_refill"], "2026-02-24T14:30:00.000000-08:00");
    assert_eq!(json["daily_used_reset"], "2026-02-24");
    assert_eq!(json.as_object().unwrap().len(), 8);
    let back = BucketFile::parse(json.to_string().as_bytes()).unwrap();
    assert_eq!(back, b);
}

#[test]
fn out_of_range_values_are_clamped_and_named() {
    let now = at(12, 0);
    let wild = Bucket {
        capacity: u32::MAX,
        available: 1e12,
        refill_rate_minutes: u32::MAX,
        last_refill: now + Duration::days(400),
        ..Bucket::fresh(now, Tz::UTC)
    };
    let (fixed, changed) = wild.clamped(now);
    assert_eq!(fixed.capacity, MAX_CAPACITY);
    assert_eq!(fixed.refill_rate_minutes, MAX_REFILL_MINUTES);
    assert_eq!(fixed.available, f64::from(MAX_CAPACITY));
    assert_eq!(fixed.last_refill, now);
    assert_eq!(changed.len(), 4, "{changed:?}");
    let sane = Bucket::fresh(now, Tz::UTC);
    assert_eq!(sane.clone().clamped(now), (sane, Vec::new()));
}

#[test]
fn file_with_zero_refill_rate_is_rejected() {
    let text = r#"{"capacity": 5, "available": 1.0, "refill_rate_minutes": 0,
        "last_refill": "2026-02-24T14:30:00-08:00", "critical_used": 0,
        "critical_reset_date": "2026-02-24", "daily_used": 0, "daily_used_reset": "2026-02-24"}"#;
    assert!(matches!(
        BucketFile::parse(text.as_bytes()),
        Err(FileError::ZeroRefillRate)
    ));
}
