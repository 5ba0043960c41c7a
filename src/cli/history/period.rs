//! `--since`: how far back to look — `30m`, `24h`, `3d`, `1w`, or `today` (since local
//! midnight in the configured zone).

use chrono::{DateTime, Duration, TimeZone, Utc};
use chrono_tz::Tz;

/// The instant a `--since` value starts at.
pub fn since(text: &str, now: DateTime<Utc>, tz: Tz) -> Result<DateTime<Utc>, String> {
    let text = text.trim().to_ascii_lowercase();
    if text == "today" {
        let midnight = now.with_timezone(&tz).date_naive().and_hms_opt(0, 0, 0);
        return midnight
            .and_then(|m| tz.from_local_datetime(&m).earliest())
            .map(|m| m.with_timezone(&Utc))
            .ok_or_else(|| "local midnight does not exist today".to_owned());
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: i64 = number.parse().map_err(|_| {
        format!("--since {text:?}: use a number and a unit (30m, 24h, 3d, 1w) or today")
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
        assert!(since("3 days", now(), tz).is_err());
        assert!(since("d", now(), tz).is_err());
        assert!(since("5y", now(), tz).is_err());
    }
}
