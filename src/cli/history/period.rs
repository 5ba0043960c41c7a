//! `--since`: how far back to look — `30m`, `24h`, `3d`, `1w`; `today` or `yesterday` (from
//! that day's local midnight in the configured zone); or a local date or time, `2026-11-20`,
//! `2026-11-20T08:00` (or with a space, seconds, or an offset such as `Z`).

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;

/// The instant a `--since` value starts at.
pub fn since(text: &str, now: DateTime<Utc>, tz: Tz) -> Result<DateTime<Utc>, String> {
    let text = text.trim().to_ascii_lowercase();
    let today = now.with_timezone(&tz).date_naive();
    let day = match text.as_str() {
        "today" => Some(today),
        "yesterday" => today.pred_opt(),
        other => NaiveDate::parse_from_str(other, "%Y-%m-%d").ok(),
    };
    if let Some(day) = day {
        return local(day.and_hms_opt(0, 0, 0), tz)
            .ok_or_else(|| format!("--since {text:?}: local midnight does not exist that day"));
    }
    if text.starts_with(|c: char| c.is_ascii_digit()) && text.contains('-') {
        return moment(&text, tz).ok_or_else(|| {
            format!("--since {text:?}: write a date as 2026-11-20 or a time as 2026-11-20T08:00")
        });
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: i64 = number.parse().map_err(|_| {
        format!(
            "--since {text:?}: use a number and a unit (30m, 24h, 3d, 1w), today, yesterday, \
             or a date (2026-11-20) or time (2026-11-20T08:00)"
        )
    })?;
    let span = match unit {
        "m" | "min" => Duration::try_minutes(n),
        "h" => Duration::try_hours(n),
        "d" => Duration::try_days(n),
        "w" => Duration::try_weeks(n),
        _ => None,
    }
    .ok_or_else(|| format!("--since {text:?}: the unit must be m, h, d or w (or use today)"))?;
    now.checked_sub_signed(span)
        .ok_or_else(|| format!("--since {text:?} reaches too far back"))
}

/// The instant of a local wall-clock time (the earlier one when clocks go back).
fn local(at: Option<NaiveDateTime>, tz: Tz) -> Option<DateTime<Utc>> {
    at.and_then(|m| tz.from_local_datetime(&m).earliest())
        .map(|m| m.with_timezone(&Utc))
}

/// `2026-11-20T08:00` (or `t`, or a space; seconds allowed) in `tz`, or an RFC 3339 time.
fn moment(text: &str, tz: Tz) -> Option<DateTime<Utc>> {
    if let Ok(at) = DateTime::parse_from_rfc3339(&text.to_ascii_uppercase()) {
        return Some(at.with_timezone(&Utc));
    }
    let text = text.replacen(['t', ' '], "T", 1);
    ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(&text, f).ok())
        .and_then(|at| local(Some(at), tz))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 2, 14, 0, 0).unwrap()
    }

    #[test]
    fn units_and_today() {
        let tz = chrono_tz::America::New_York;
        assert_eq!(
            since("24h", now(), tz).unwrap(),
            now() - Duration::hours(24)
        );
        assert_eq!(since("3d", now(), tz).unwrap(), now() - Duration::days(3));
        assert_eq!(since("1w", now(), tz).unwrap(), now() - Duration::weeks(1));
        assert_eq!(
            since("30m", now(), tz).unwrap(),
            now() - Duration::minutes(30)
        );
        assert_eq!(
            since("today", now(), tz).unwrap(),
            Utc.with_ymd_and_hms(2026, 3, 2, 5, 0, 0).unwrap()
        );
        assert_eq!(
            since("yesterday", now(), tz).unwrap(),
            Utc.with_ymd_and_hms(2026, 3, 1, 5, 0, 0).unwrap()
        );
        assert!(since("3 days", now(), tz).is_err());
        assert!(since("d", now(), tz).is_err());
        assert!(since("5y", now(), tz).is_err());
    }

    #[test]
    fn dates_and_times_are_local() {
        let tz = chrono_tz::America::New_York;
        assert_eq!(
            since("2026-11-20", now(), tz).unwrap(),
            Utc.with_ymd_and_hms(2026, 11, 20, 5, 0, 0).unwrap()
        );
        let eight = Utc.with_ymd_and_hms(2026, 11, 20, 13, 0, 0).unwrap();
        assert_eq!(since("2026-11-20T08:00", now(), tz).unwrap(), eight);
        assert_eq!(since("2026-11-20 08:00:00", now(), tz).unwrap(), eight);
        assert_eq!(since("2026-11-20T13:00:00Z", now(), tz).unwrap(), eight);
        assert!(since("2026-13-01", now(), tz).is_err());
        assert!(since("2026-11-20T25:00", now(), tz).is_err());
    }
}
