//! The simulated year's independent oracle: when each cron expression fires, found by stepping
//! every UTC minute of the simulated span and reading the local wall clock, with its own cron
//! reader (the product's `cron` module is never called here).
//!
//! The rule it encodes is the one `actors/src/jobs/cron/mod.rs` documents (SPEC §3: standard five
//! fields, day-of-week 0 or 7 = Sunday, Vixie cron's day rule, DST-correct): each wall-clock
//! reading fires at most once — a reading the clock shows twice (fall-back) at its first
//! occurrence, a reading the clock skips (spring-forward) at the first instant after the skip.
//! Stepping minutes, that is: a minute whose reading was already shown fires nothing; a minute
//! whose reading jumped past others fires for its own reading and for every skipped one.

use chrono::{DateTime, Datelike, Duration, NaiveDateTime, Timelike, Utc};
use chrono_tz::Tz;

/// One wall-clock minute's fields, as cron reads them.
#[derive(Debug, Clone, Copy)]
struct Reading {
    minute: u8,
    hour: u8,
    day: u8,
    month: u8,
    /// 0 = Sunday.
    weekday: u8,
}

impl Reading {
    fn of(local: NaiveDateTime) -> Reading {
        Reading {
            minute: local.minute() as u8,
            hour: local.hour() as u8,
            day: local.day() as u8,
            month: local.month() as u8,
            weekday: local.weekday().num_days_from_sunday() as u8,
        }
    }
}

/// What the wall clock shows at each UTC minute of the span.
pub struct Minutes {
    /// The first minute stepped.
    first: DateTime<Utc>,
    /// Per UTC minute: its reading, or `None` when the clock already showed that reading.
    shown: Vec<Option<Reading>>,
    /// Minutes right after a spring-forward skip, with the readings skipped.
    skipped: Vec<(usize, Vec<Reading>)>,
    /// Runs of minutes that show one local date: where each starts (the day fields are
    /// checked once per run, so a monthly cron looks at a few hundred minutes, not all).
    days: Vec<usize>,
}

impl Minutes {
    /// Every whole UTC minute strictly after `after` up to `until`, read in `tz`.
    pub fn step(after: DateTime<Utc>, until: DateTime<Utc>, tz: Tz) -> Minutes {
        let first_ts = (after.timestamp().div_euclid(60) + 1) * 60;
        let first = DateTime::from_timestamp(first_ts, 0).expect("a valid start");
        let count = ((until - first).num_minutes() + 1).max(0) as usize;
        let mut shown = Vec::with_capacity(count);
        let mut skipped = Vec::new();
        let mut latest: Option<NaiveDateTime> = None;
        let mut days = Vec::new();
        for index in 0..count {
            let at = first + Duration::minutes(index as i64);
            let local = at.with_timezone(&tz).naive_local();
            match latest {
                Some(seen) if local <= seen => {
                    shown.push(None);
                    continue;
                }
                Some(seen) if local - seen > Duration::minutes(1) => {
                    let jumped = (1..(local - seen).num_minutes())
                        .map(|m| Reading::of(seen + Duration::minutes(m)))
                        .collect();
                    skipped.push((index, jumped));
                }
                _ => {}
            }
            if latest.is_none_or(|seen| seen.date() != local.date()) {
                days.push(index);
            }
            latest = Some(local);
            shown.push(Some(Reading::of(local)));
        }
        Minutes {
            first,
            shown,
            skipped,
            days,
        }
    }

    /// How many minutes showed a reading a second time (fall-back).
    pub fn repeated(&self) -> usize {
        self.shown.iter().filter(|r| r.is_none()).count()
    }

    /// How many readings were skipped (spring-forward).
    pub fn skipped(&self) -> usize {
        self.skipped.iter().map(|(_, r)| r.len()).sum()
    }

    /// The instants at which `cron` fires, in order.
    pub fn fires(&self, cron: &Cron) -> Vec<DateTime<Utc>> {
        let mut hits = Vec::new();
        let ends = self.days.iter().skip(1).copied().chain([self.shown.len()]);
        for (start, end) in self.days.iter().copied().zip(ends) {
            let Some(day) = self.shown[start] else {
                continue;
            };
            if !cron.matches_day(day) {
                continue;
            }
            for (index, reading) in self.shown[start..end].iter().enumerate() {
                if reading.is_some_and(|r| cron.matches_time(r)) {
                    hits.push(start + index);
                }
            }
        }
        for (index, readings) in &self.skipped {
            if readings
                .iter()
                .any(|r| cron.matches_day(*r) && cron.matches_time(*r))
            {
                hits.push(*index);
            }
        }
        hits.sort_unstable();
        hits.dedup();
        hits.into_iter()
            .map(|i| self.first + Duration::minutes(i as i64))
            .collect()
    }
}

/// A five-field cron expression as this oracle reads it.
#[derive(Debug, Clone)]
pub struct Cron {
    minute: u64,
    hour: u64,
    day: u64,
    month: u64,
    weekday: u64,
    /// Both day fields restricted (neither starts with `*`): either one may match.
    either_day: bool,
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const WEEKDAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

impl Cron {
    /// Reads `expr`; panics on anything it does not understand (the test writes the crons).
    pub fn parse(expr: &str) -> Cron {
        let f: Vec<&str> = expr.split_whitespace().collect();
        assert_eq!(f.len(), 5, "oracle: `{expr}` needs five fields");
        let mut weekday = field(f[4], 0, 7, &WEEKDAYS, 0);
        if weekday & 1 << 7 != 0 {
            weekday = (weekday & !(1 << 7)) | 1;
        }
        Cron {
            minute: field(f[0], 0, 59, &[], 0),
            hour: field(f[1], 0, 23, &[], 0),
            day: field(f[2], 1, 31, &[], 0),
            month: field(f[3], 1, 12, &MONTHS, 1),
            weekday,
            either_day: !f[2].starts_with('*') && !f[4].starts_with('*'),
        }
    }

    fn matches_day(&self, r: Reading) -> bool {
        let by_day = self.day & 1 << r.day != 0;
        let by_weekday = self.weekday & 1 << r.weekday != 0;
        let day = if self.either_day {
            by_day || by_weekday
        } else {
            by_day && by_weekday
        };
        day && self.month & 1 << r.month != 0
    }

    fn matches_time(&self, r: Reading) -> bool {
        self.minute & 1 << r.minute != 0 && self.hour & 1 << r.hour != 0
    }
}

/// One field's values as bits: `*`, numbers, names, `a-b`, `/step` on `*`, a range or a start.
fn field(text: &str, min: u32, max: u32, names: &[&str], first_name: u32) -> u64 {
    let value = |t: &str| -> u32 {
        t.parse().unwrap_or_else(|_| {
            let at = names
                .iter()
                .position(|n| n.eq_ignore_ascii_case(t))
                .unwrap_or_else(|| panic!("oracle: cannot read `{t}`"));
            at as u32 + first_name
        })
    };
    let mut bits = 0u64;
    for item in text.split(',') {
        let (base, step) = match item.split_once('/') {
            Some((b, s)) => (b, s.parse::<u32>().expect("oracle: a step")),
            None => (item, 1),
        };
        let (lo, hi) = if base == "*" {
            (min, max)
        } else if let Some((a, b)) = base.split_once('-') {
            // A weekday range may end on the name SUN, meaning 7.
            let end = if b.eq_ignore_ascii_case("sun") {
                7
            } else {
                value(b)
            };
            (value(a), end)
        } else if item.contains('/') {
            (value(base), max)
        } else {
            (value(base), value(base))
        };
        let mut v = lo;
        while v <= hi {
            bits |= 1 << v;
            v += step;
        }
    }
    bits
}
