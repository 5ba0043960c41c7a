//! When the auto-update timer looks (SPEC §12 `auto_update_interval`, `auto_update_hour`):
//! every interval, acting only within the update hour (local time). So that a long interval
//! never steps over the whole hour, the timer also wakes when the hour begins.

use chrono::{DateTime, Duration, NaiveTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;

/// Whether `now` falls in the update hour, in `tz`.
pub fn in_window(now: DateTime<Utc>, hour: u8, tz: Tz) -> bool {
    now.with_timezone(&tz).hour() == u32::from(hour)
}

/// The next time the update hour begins after `now` (a day whose hour a daylight-saving jump
/// skips has none).
pub fn next_window_start(now: DateTime<Utc>, hour: u8, tz: Tz) -> DateTime<Utc> {
    let local = now.with_timezone(&tz);
    let at = NaiveTime::from_hms_opt(u32::from(hour.min(23)), 0, 0).unwrap_or(NaiveTime::MIN);
    let mut day = local.date_naive();
    for _ in 0..3 {
        let naive = day.and_time(at);
        let start = tz
            .from_local_datetime(&naive)
            .earliest()
            .map(|t| t.with_timezone(&Utc));
        if let Some(start) = start.filter(|s| *s > now) {
            return start;
        }
        day = day.succ_opt().unwrap_or(day);
    }
    now + Duration::days(1)
}

/// When to look next after `now`: `interval` later, or when the update hour begins if that
/// comes first.
pub fn next_check(now: DateTime<Utc>, interval: Duration, hour: u8, tz: Tz) -> DateTime<Utc> {
    (now + interval).min(next_window_start(now, hour, tz))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn berlin(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
        let tz: Tz = "Europe/Berlin".parse().unwrap();
        tz.with_ymd_and_hms(y, mo, d, h, mi, 0)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn checks_come_every_interval_and_at_the_start_of_the_hour() {
        let tz: Tz = "Europe/Berlin".parse().unwrap();
        let hour = Duration::minutes(60);
        // 05:30 → 06:00 (the hour begins before the interval ends).
        assert_eq!(
            next_check(berlin(2026, 3, 2, 5, 30), hour, 6, tz),
            berlin(2026, 3, 2, 6, 0)
        );
        // 06:00 → 07:00 (the interval), outside the hour.
        assert_eq!(
            next_check(berlin(2026, 3, 2, 6, 0), hour, 6, tz),
            berlin(2026, 3, 2, 7, 0)
        );
        // A 3-hour interval from 04:00 does not step over 06:00.
        assert_eq!(
            next_check(berlin(2026, 3, 2, 4, 0), Duration::hours(3), 6, tz),
            berlin(2026, 3, 2, 6, 0)
        );
        // A short interval inside the hour stays inside it.
        assert_eq!(
            next_check(berlin(2026, 3, 2, 6, 10), Duration::minutes(15), 6, tz),
            berlin(2026, 3, 2, 6, 25)
        );
        assert!(in_window(berlin(2026, 3, 2, 6, 59), 6, tz));
        assert!(!in_window(berlin(2026, 3, 2, 7, 0), 6, tz));
    }

    #[test]
    fn an_hour_skipped_by_daylight_saving_waits_for_the_next_day() {
        let tz: Tz = "Europe/Berlin".parse().unwrap();
        // 29 March 2026: 02:00 jumps to 03:00, so there is no 02:00 that day.
        let before = berlin(2026, 3, 29, 1, 30);
        let start = next_window_start(before, 2, tz);
        assert_eq!(start, berlin(2026, 3, 30, 2, 0));
        // After today's hour, tomorrow's.
        assert_eq!(
            next_window_start(berlin(2026, 3, 2, 6, 0), 6, tz),
            berlin(2026, 3, 3, 6, 0)
        );
    }
}
