//! Turning a local wall-clock reading into the instant it names in a zone, across DST changes.
//! Part of SPEC §3 (routine `cron`: "evaluated in the configured zone, DST-correct").
//!
//! A reading that happens twice (the hour repeated when clocks fall back) names its first
//! occurrence. A reading that never happens (the hour skipped when clocks spring forward) names the
//! first instant after the skip, e.g. 02:30 on America/New_York's spring-forward day is 03:00 EDT.

use chrono::{DateTime, LocalResult, NaiveDateTime, Offset, TimeDelta, TimeZone, Utc};
use chrono_tz::Tz;

/// The instant `wall` names in `tz`: the first of two, or the end of a gap; `None` only when the
/// zone data offers no answer (no forward jump around a reading that does not exist).
pub(super) fn instant_of(wall: NaiveDateTime, tz: Tz) -> Option<DateTime<Utc>> {
    match tz.from_local_datetime(&wall) {
        LocalResult::Single(at) => Some(at.with_timezone(&Utc)),
        LocalResult::Ambiguous(first, _) => Some(first.with_timezone(&Utc)),
        LocalResult::None => end_of_gap(wall, tz),
    }
}

/// How far two days reach on either side of a gap to find the offsets before and after it.
const AROUND_GAP: TimeDelta = TimeDelta::days(2);

/// The instant at which the clock jumped over `wall`: the first instant whose local reading is
/// later than `wall`. Found by bisection between the readings' two possible instants, because
/// jumps need not fall on whole minutes.
fn end_of_gap(wall: NaiveDateTime, tz: Tz) -> Option<DateTime<Utc>> {
    let offset_at = |naive_utc: NaiveDateTime| {
        i64::from(
            tz.offset_from_utc_datetime(&naive_utc)
                .fix()
                .local_minus_utc(),
        )
    };
    let before = offset_at(wall.checked_sub_signed(AROUND_GAP)?);
    let after = offset_at(wall.checked_add_signed(AROUND_GAP)?);
    // Under the later offset the reading maps to an instant still before the jump; under the
    // earlier offset, to one already past it. The jump lies between.
    let mut early = wall.and_utc().timestamp() - after;
    let mut late = wall.and_utc().timestamp() - before;
    let reads_past = |timestamp: i64| {
        DateTime::from_timestamp(timestamp, 0)
            .is_some_and(|at| at.with_timezone(&tz).naive_local() > wall)
    };
    if early >= late || reads_past(early) || !reads_past(late) {
        return None;
    }
    while late - early > 1 {
        let middle = early + (late - early) / 2;
        if reads_past(middle) {
            late = middle;
        } else {
            early = middle;
        }
    }
    DateTime::from_timestamp(late, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn wall(y: i32, m: u32, d: u32, h: u32, min: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(y, m, d)
            .and_then(|date| date.and_hms_opt(h, min, 0))
            .unwrap_or_else(|| panic!("test date {y}-{m}-{d} {h}:{min} is invalid"))
    }

    fn utc(text: &str) -> DateTime<Utc> {
        text.parse()
            .unwrap_or_else(|err| panic!("test instant {text}: {err}"))
    }

    #[test]
    fn ordinary_reading_uses_the_zone_offset() {
        let at = instant_of(wall(2026, 1, 15, 9, 0), chrono_tz::Europe::Berlin);
        assert_eq!(at, Some(utc("2026-01-15T08:00:00Z")));
    }

    #[test]
    fn repeated_reading_names_its_first_occurrence() {
        // 2025-11-02 01:30 happens at EDT (05:30Z) and again at EST (06:30Z).
        let at = instant_of(wall(2025, 11, 2, 1, 30), chrono_tz::America::New_York);
        assert_eq!(at, Some(utc("2025-11-02T05:30:00Z")));
    }

    #[test]
    fn skipped_reading_names_the_end_of_the_gap() {
        // 2025-03-09 02:00-03:00 does not exist in New York; 03:00 EDT is 07:00Z.
        let tz = chrono_tz::America::New_York;
        for minute in [0, 1, 30, 59] {
            let at = instant_of(wall(2025, 3, 9, 2, minute), tz);
            assert_eq!(at, Some(utc("2025-03-09T07:00:00Z")), "02:{minute:02}");
        }
    }

    #[test]
    fn gap_end_off_the_minute_is_found_to_the_second() {
        // Monrovia moved from -0:44:30 to GMT at 1972-01-07 00:00 local, skipping 00:00-00:44:30.
        let at = instant_of(wall(1972, 1, 7, 0, 30), chrono_tz::Africa::Monrovia);
        assert_eq!(at, Some(utc("1972-01-07T00:44:30Z")));
    }
}
