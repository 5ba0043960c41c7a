//! The owner's calendar days in their zone: where a day and a month begin. The spend caps, the
//! `/usage` windows and the run history's month all count from these instants.

use chrono::{DateTime, Datelike, NaiveDate, TimeZone};
use chrono_tz::Tz;

/// Local midnight of `date` in `tz`: the earliest, where a clock change repeats midnight, and
/// the first moment of the day that exists, where one skips it.
pub fn midnight(tz: Tz, date: NaiveDate) -> DateTime<Tz> {
    let mut at = date.and_hms_opt(0, 0, 0).unwrap_or_default();
    for _ in 0..24 * 4 {
        if let Some(t) = tz.from_local_datetime(&at).earliest() {
            return t;
        }
        at += chrono::Duration::minutes(15);
    }
    tz.from_utc_datetime(&at)
}

/// Local midnight on the first of `now`'s month.
pub fn month_start(now: DateTime<Tz>) -> DateTime<Tz> {
    let first = now.date_naive().with_day(1).unwrap_or_default();
    midnight(now.timezone(), first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skipped_midnight_is_the_days_first_moment_and_the_month_starts_on_the_first() {
        // Santiago springs forward at midnight: 2026-09-06 starts at 01:00.
        let tz = chrono_tz::America::Santiago;
        let date = NaiveDate::from_ymd_opt(2026, 9, 6).unwrap();
        assert_eq!(midnight(tz, date).to_rfc3339(), "2026-09-06T01:00:00-03:00");
        let now = tz.with_ymd_and_hms(2026, 3, 31, 23, 0, 0).unwrap();
        assert_eq!(month_start(now).to_rfc3339(), "2026-03-01T00:00:00-03:00");
    }
}
