//! Quiet hours *(ours, SPEC §16)*: a daily window of local time in which background jobs may
//! not ping the user unless the matter is critical. Set with `/config quiet_hours 22:00-08:00`
//! (off by default); a window may cross midnight. This module is the pure part: reading and
//! showing a window, whether an instant falls inside it, and until when. The runtime config
//! keeps the setting; the main session answers what is in force now
//! (`main_session::QuietHoursNow`); background forks refuse pings inside it and the preamble
//! says so.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Duration, FixedOffset, NaiveTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;

/// Minutes in a day.
const DAY_MINUTES: u16 = 24 * 60;

/// A daily window `[start, end)` of local wall-clock time, in minutes after midnight. `start`
/// after `end` crosses midnight; the two are never equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QuietHours {
    start: u16,
    end: u16,
}

/// Why a window was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    /// Not `HH:MM-HH:MM`.
    #[error("{0:?} is not a window like 22:00-08:00")]
    Shape(String),
    /// Start and end are the same time: an empty window, or the whole day.
    #[error("{0:?} starts and ends at the same time")]
    Empty(String),
}

impl QuietHours {
    /// The window from `start` to `end` (minutes after midnight, each below 1440, not equal).
    pub fn new(start: u16, end: u16) -> Option<Self> {
        (start < DAY_MINUTES && end < DAY_MINUTES && start != end).then_some(Self { start, end })
    }

    /// Whether `at` falls inside the window, in the local time of `tz`.
    pub fn contains(&self, at: DateTime<Utc>, tz: Tz) -> bool {
        let local = at.with_timezone(&tz);
        let minute = (local.hour() * 60 + local.minute()) as u16;
        if self.start < self.end {
            (self.start..self.end).contains(&minute)
        } else {
            minute >= self.start || minute < self.end
        }
    }

    /// When the window that holds `at` ends (the next local `end` time after `at`); `None`
    /// when `at` is outside the window.
    pub fn ends_after(&self, at: DateTime<Utc>, tz: Tz) -> Option<DateTime<FixedOffset>> {
        if !self.contains(at, tz) {
            return None;
        }
        let local = at.with_timezone(&tz);
        let end = NaiveTime::from_hms_opt(u32::from(self.end / 60), u32::from(self.end % 60), 0)?;
        let mut day = local.date_naive();
        for _ in 0..3 {
            // A day whose `end` falls in a DST gap: an hour later, past the jump.
            let candidate = tz
                .from_local_datetime(&day.and_time(end))
                .earliest()
                .or_else(|| {
                    tz.from_local_datetime(&(day.and_time(end) + Duration::hours(1)))
                        .earliest()
                });
            if let Some(c) = candidate.filter(|c| *c > local) {
                return Some(c.fixed_offset());
            }
            day = day.succ_opt()?;
        }
        None
    }

    /// The start as `HH:MM`.
    fn start_text(&self) -> String {
        hh_mm(self.start)
    }

    /// The end as `HH:MM`.
    fn end_text(&self) -> String {
        hh_mm(self.end)
    }
}

fn hh_mm(minutes: u16) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// Reads `H:MM` or `HH:MM` (24-hour).
fn read_time(text: &str) -> Option<u16> {
    let (h, m) = text.trim().split_once(':')?;
    let ok = |s: &str, n| !s.is_empty() && s.len() <= n && s.chars().all(|c| c.is_ascii_digit());
    if !ok(h, 2) || !ok(m, 2) || m.len() != 2 {
        return None;
    }
    let (h, m) = (h.parse::<u16>().ok()?, m.parse::<u16>().ok()?);
    (h < 24 && m < 60).then_some(h * 60 + m)
}

impl FromStr for QuietHours {
    type Err = WindowError;
    /// `22:00-08:00` (spaces around the dash allowed).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let shape = || WindowError::Shape(text.to_owned());
        let (a, b) = text.split_once('-').ok_or_else(shape)?;
        let (start, end) = (
            read_time(a).ok_or_else(shape)?,
            read_time(b).ok_or_else(shape)?,
        );
        QuietHours::new(start, end).ok_or_else(|| WindowError::Empty(text.to_owned()))
    }
}

impl fmt::Display for QuietHours {
    /// `22:00-08:00`, the way it is typed and stored.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.start_text(), self.end_text())
    }
}

/// Quiet hours as they stand at one instant: the setting, and when the window holding that
/// instant ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuietNow {
    /// The configured window; `None` when quiet hours are off.
    pub window: Option<QuietHours>,
    /// When the window in effect now ends; `None` outside the window (or when off).
    pub until: Option<DateTime<FixedOffset>>,
}

impl QuietNow {
    /// The state of `window` at `at` in `tz`.
    pub fn at(window: Option<QuietHours>, at: DateTime<Utc>, tz: Tz) -> Self {
        QuietNow {
            window,
            until: window.and_then(|w| w.ends_after(at, tz)),
        }
    }

    /// When quiet hours in effect now end, as the agent and the user read it (`8:00 AM`).
    pub fn until_text(&self) -> Option<String> {
        self.until.map(clock_time)
    }

    /// The `/ping-budget` line: `quiet hours: off`, `quiet hours: 22:00-08:00`, or
    /// `quiet hours: 22:00-08:00 (in effect until 8:00 AM)`.
    pub fn status_line(&self) -> String {
        match (self.window, self.until_text()) {
            (None, _) => "quiet hours: off".to_owned(),
            (Some(w), None) => format!("quiet hours: {w}"),
            (Some(w), Some(until)) => format!("quiet hours: {w} (in effect until {until})"),
        }
    }
}

/// `8:00 AM`, `10:30 PM`.
pub fn clock_time(at: DateTime<FixedOffset>) -> String {
    at.format("%-I:%M %p").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TZ: Tz = chrono_tz::America::New_York;

    /// `h:m` local time in New York on 2026-03-02 (a Monday, EST, UTC-5).
    fn local(h: u32, m: u32) -> DateTime<Utc> {
        TZ.with_ymd_and_hms(2026, 3, 2, h, m, 0)
            .unwrap()
            .with_timezone(&Utc)
    }

    fn window(text: &str) -> QuietHours {
        text.parse().unwrap()
    }

    #[test]
    fn windows_read_and_show_as_typed() {
        assert_eq!(window("22:00-08:00").to_string(), "22:00-08:00");
        assert_eq!(window("9:30 - 17:00").to_string(), "09:30-17:00");
        for bad in [
            "",
            "22-08",
            "22:00",
            "25:00-08:00",
            "22:60-08:00",
            "22:0-08:00",
            "x:00-1:00",
        ] {
            assert!(
                matches!(bad.parse::<QuietHours>(), Err(WindowError::Shape(_))),
                "{bad:?}"
            );
        }
        assert_eq!(
            "08:00-08:00".parse::<QuietHours>(),
            Err(WindowError::Empty("08:00-08:00".into()))
        );
    }

    #[test]
    fn a_window_across_midnight_holds_late_evening_and_early_morning() {
        let w = window("22:00-08:00");
        for (h, m, inside) in [
            (21, 59, false),
            (22, 0, true),
            (23, 30, true),
            (0, 0, true),
            (7, 59, true),
            (8, 0, false),
            (12, 0, false),
        ] {
            assert_eq!(w.contains(local(h, m), TZ), inside, "{h}:{m:02}");
        }
    }

    #[test]
    fn a_window_within_one_day_holds_only_its_span() {
        let w = window("13:00-14:30");
        assert!(!w.contains(local(12, 59), TZ));
        assert!(w.contains(local(13, 0), TZ));
        assert!(w.contains(local(14, 29), TZ));
        assert!(!w.contains(local(14, 30), TZ));
    }

    #[test]
    fn until_is_the_next_end_after_now() {
        let w = Some(window("22:00-08:00"));
        let evening = QuietNow::at(w, local(23, 0), TZ);
        assert_eq!(
            evening.until.map(|u| u.to_rfc3339()),
            Some("2026-03-03T08:00:00-05:00".to_owned())
        );
        assert_eq!(evening.until_text().as_deref(), Some("8:00 AM"));
        let morning = QuietNow::at(w, local(6, 15), TZ);
        assert_eq!(
            morning.until.map(|u| u.to_rfc3339()),
            Some("2026-03-02T08:00:00-05:00".to_owned())
        );
        assert_eq!(QuietNow::at(w, local(12, 0), TZ).until, None);
    }

    #[test]
    fn the_status_line_says_off_set_or_in_effect() {
        assert_eq!(
            QuietNow::at(None, local(23, 0), TZ).status_line(),
            "quiet hours: off"
        );
        let w = Some(window("22:00-08:00"));
        assert_eq!(
            QuietNow::at(w, local(12, 0), TZ).status_line(),
            "quiet hours: 22:00-08:00"
        );
        assert_eq!(
            QuietNow::at(w, local(23, 0), TZ).status_line(),
            "quiet hours: 22:00-08:00 (in effect until 8:00 AM)"
        );
    }

    #[test]
    fn an_end_in_a_dst_gap_moves_past_the_jump() {
        // 2026-03-08: New York jumps from 2:00 to 3:00.
        let w = window("23:00-02:30");
        let at = TZ
            .with_ymd_and_hms(2026, 3, 8, 1, 0, 0)
            .unwrap()
            .with_timezone(&Utc);
        let until = w.ends_after(at, TZ).unwrap();
        assert_eq!(until.to_rfc3339(), "2026-03-08T03:30:00-04:00");
    }
}
