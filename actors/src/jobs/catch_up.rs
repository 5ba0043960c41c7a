//! A routine's `catch-up` field *(ours, SPEC §16)*: how late a missed fire time may still run.
//!
//! ```text
//! catch-up: "2h"      run a missed time up to two hours late
//! catch-up: "30m"     ... thirty minutes late (a bare number is minutes too)
//! catch-up: "1d"      ... a day late
//! catch-up: "none"    never run a missed time (`0`, `off`, `no` and `false` say the same)
//! ```
//!
//! Absent, the `/config` key `catch_up_window` decides. A window longer than [`MAX_WINDOW`] is
//! refused: the run history keeps 30 days, and a week is already far past any use.

use std::fmt;
use std::str::FromStr;

use chrono::Duration;

/// The longest window accepted (a week, in minutes).
pub const MAX_WINDOW_MINUTES: i64 = 7 * 24 * 60;
/// The longest window accepted.
pub const MAX_WINDOW: Duration = Duration::minutes(MAX_WINDOW_MINUTES);

/// What a routine's `catch-up` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CatchUp {
    /// Not set: the configured `catch_up_window` applies.
    #[default]
    Default,
    /// Missed times never run.
    Never,
    /// A missed time runs when it is at most this many minutes late.
    Within(i64),
}

impl CatchUp {
    /// The window in force, given the configured default (`None`: missed times never run).
    pub fn window(self, configured: Duration) -> Option<Duration> {
        let minutes = match self {
            CatchUp::Default => configured.num_minutes(),
            CatchUp::Never => 0,
            CatchUp::Within(m) => m,
        };
        (minutes > 0).then(|| Duration::minutes(minutes))
    }
}

/// Why a `catch-up` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`catch-up` {value:?} is not a window: write none, or minutes, hours or days such as 30m, 2h, 1d (at most 7d)")]
pub struct BadCatchUp {
    /// The value as written.
    pub value: String,
}

impl FromStr for CatchUp {
    type Err = BadCatchUp;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let bad = || BadCatchUp {
            value: raw.to_owned(),
        };
        let text = raw.trim().to_ascii_lowercase();
        if matches!(text.as_str(), "none" | "off" | "no" | "false" | "never") {
            return Ok(CatchUp::Never);
        }
        let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
            Some((at, _)) => (&text[..at], text[at..].trim()),
            None => (text.as_str(), "m"),
        };
        let n: i64 = digits.parse().map_err(|_| bad())?;
        let minutes = match unit {
            "m" | "min" | "mins" | "minutes" => Some(n),
            "h" | "hour" | "hours" => n.checked_mul(60),
            "d" | "day" | "days" => n.checked_mul(24 * 60),
            _ => None,
        }
        .ok_or_else(bad)?;
        match minutes {
            0 => Ok(CatchUp::Never),
            m if m <= MAX_WINDOW_MINUTES => Ok(CatchUp::Within(m)),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for CatchUp {
    /// The spelling the writer puts in a file (`2h`, `30m`, `none`); `Default` is never written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CatchUp::Default => f.write_str("default"),
            CatchUp::Never => f.write_str("none"),
            CatchUp::Within(m) if m % (24 * 60) == 0 => write!(f, "{}d", m / (24 * 60)),
            CatchUp::Within(m) if m % 60 == 0 => write!(f, "{}h", m / 60),
            CatchUp::Within(m) => write!(f, "{m}m"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_read_in_minutes_hours_and_days() {
        for (text, expected) in [
            ("2h", CatchUp::Within(120)),
            ("30m", CatchUp::Within(30)),
            ("45", CatchUp::Within(45)),
            ("1d", CatchUp::Within(1440)),
            (" 3 hours ", CatchUp::Within(180)),
            ("none", CatchUp::Never),
            ("Off", CatchUp::Never),
            ("0", CatchUp::Never),
            ("7d", CatchUp::Within(MAX_WINDOW_MINUTES)),
        ] {
            assert_eq!(text.parse::<CatchUp>(), Ok(expected), "{text}");
        }
        for bad in [
            "",
            "soon",
            "-1h",
            "8d",
            "2w",
            "1.5h",
            "99999999999999999999",
        ] {
            assert!(bad.parse::<CatchUp>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn written_forms_read_back() {
        for c in [
            CatchUp::Never,
            CatchUp::Within(90),
            CatchUp::Within(120),
            CatchUp::Within(2880),
        ] {
            assert_eq!(c.to_string().parse::<CatchUp>(), Ok(c));
        }
        assert_eq!(CatchUp::Within(120).to_string(), "2h");
    }

    #[test]
    fn the_window_in_force_falls_back_to_the_configured_one() {
        let configured = Duration::hours(2);
        assert_eq!(CatchUp::Default.window(configured), Some(configured));
        assert_eq!(CatchUp::Default.window(Duration::zero()), None);
        assert_eq!(CatchUp::Never.window(configured), None);
        assert_eq!(
            CatchUp::Within(30).window(configured),
            Some(Duration::minutes(30))
        );
    }
}
