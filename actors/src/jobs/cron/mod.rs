//! Routine schedules: parsing a standard five-field cron expression and finding when it next
//! fires in the configured zone. Implements SPEC §3, routine field `cron` ("standard 5 fields,
//! day-of-week 0 or 7 = Sunday, evaluated in the configured zone, DST-correct").
//!
//! Choices made here:
//! - Syntax is read and checked by `field.rs` (numbers, names, ranges, steps, lists); errors name
//!   the field and the reason, e.g. `day-of-week: 8 is out of range 0-7`.
//! - Day-of-month and day-of-week combine as in Vixie cron: a field is restricted when its text
//!   does not start with `*`; when both are restricted a day matches if either does, otherwise
//!   both must. The `cron` crate always ANDs the two, so the "either" case runs two crate
//!   schedules (one per day field, the other left `*`) and keeps the earlier time.
//! - The crate numbers weekdays Sunday = 1 and wants a seconds field. Every field is handed to it
//!   as the explicit list of values already checked here (weekdays renumbered, `0` seconds first),
//!   so the crate never sees our syntax.
//! - Time zones (`upcoming.rs`, `wall_clock.rs`): the crate walks local wall-clock readings (run
//!   in `Utc` as a stand-in for naive time) and each is mapped to an instant in the zone. Each
//!   reading fires at most once: a repeated reading (fall-back) at its first occurrence, a skipped
//!   one (spring-forward) at the first instant after the gap. So an hourly `30 * * * *` in New
//!   York fires 01:30 EST, 03:00 EDT, 03:30 EDT on spring-forward day, and 01:30 EDT then
//!   02:30 EST on fall-back day.
//! - The crate's calendar ends in 2100; past that nothing fires.

mod field;
#[cfg(test)]
mod round_trip_props;
mod upcoming;
mod wall_clock;

pub use field::{CronField, FieldProblem};
pub use upcoming::Upcoming;

use std::fmt;
use std::str::FromStr;

use chrono::{Datelike, NaiveDateTime, Timelike};

/// Why a cron expression was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CronError {
    /// Not exactly five whitespace-separated fields.
    #[error(
        "expected 5 fields (minute hour day-of-month month day-of-week), found {found} in `{expr}`"
    )]
    FieldCount {
        /// The expression as given.
        expr: String,
        /// How many fields it has.
        found: usize,
    },
    /// One field's text is not valid.
    #[error("{field}: {problem}")]
    Field {
        /// The expression as given.
        expr: String,
        /// Which field.
        field: CronField,
        /// What is wrong with it.
        problem: FieldProblem,
    },
    /// The `cron` crate refused our translation; a bug here, never the user's input.
    #[error("cron expression `{expr}` translated to `{translated}` was refused: {reason}")]
    Translation {
        /// The expression as given.
        expr: String,
        /// What it was translated to.
        translated: String,
        /// The crate's message.
        reason: String,
    },
}

/// A checked five-field cron expression, ready to say when it fires.
#[derive(Debug, Clone)]
pub struct CronSchedule {
    /// The expression as written, for display and for writing back to disk.
    source: String,
    /// Allowed values per field in written order, as bits (weekdays 0-6, Sunday 0).
    values: [u64; 5],
    /// Both day fields restricted: a day matching either one fires.
    either_day: bool,
    /// One crate schedule, or two when `either_day` (day-of-month only, day-of-week only).
    plans: Vec<cron::Schedule>,
}

impl CronSchedule {
    /// Parses and checks `expr`; the error names the field and the reason.
    pub fn parse(expr: &str) -> Result<CronSchedule, CronError> {
        let texts: Vec<&str> = expr.split_whitespace().collect();
        let Ok(texts) = <[&str; 5]>::try_from(texts.as_slice()) else {
            return Err(CronError::FieldCount {
                expr: expr.to_owned(),
                found: texts.len(),
            });
        };
        let mut values = [0u64; 5];
        for ((slot, field), text) in values.iter_mut().zip(CronField::ALL).zip(texts) {
            *slot = field::expand(field, text).map_err(|problem| CronError::Field {
                expr: expr.to_owned(),
                field,
                problem,
            })?;
        }
        let either_day = !texts[2].starts_with('*') && !texts[4].starts_with('*');
        let translations = if either_day {
            let mut days_of_month = values;
            days_of_month[4] = field::every(CronField::DayOfWeek);
            let mut days_of_week = values;
            days_of_week[2] = field::every(CronField::DayOfMonth);
            vec![translate(&days_of_month), translate(&days_of_week)]
        } else {
            vec![translate(&values)]
        };
        let plans = translations
            .into_iter()
            .map(|translated| {
                cron::Schedule::from_str(&translated).map_err(|err| CronError::Translation {
                    expr: expr.to_owned(),
                    reason: err.to_string(),
                    translated,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CronSchedule {
            source: expr.to_owned(),
            values,
            either_day,
            plans,
        })
    }

    /// The expression as it was written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the wall-clock minute `local` (seconds ignored) is one this schedule names.
    pub fn matches(&self, local: NaiveDateTime) -> bool {
        let has = |index: usize, value: u32| self.values[index] & 1 << value != 0;
        let day_of_month = has(2, local.day());
        let day_of_week = has(4, local.weekday().num_days_from_sunday());
        let day = if self.either_day {
            day_of_month || day_of_week
        } else {
            day_of_month && day_of_week
        };
        has(0, local.minute()) && has(1, local.hour()) && has(3, local.month()) && day
    }
}

impl fmt::Display for CronSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl PartialEq for CronSchedule {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for CronSchedule {}

impl FromStr for CronSchedule {
    type Err = CronError;

    fn from_str(expr: &str) -> Result<Self, Self::Err> {
        CronSchedule::parse(expr)
    }
}

/// The crate's six-field form: seconds `0`, then our five fields as explicit lists.
fn translate(values: &[u64; 5]) -> String {
    let fields = CronField::ALL
        .iter()
        .zip(values)
        .map(|(field, bits)| field::crate_syntax(*field, *bits))
        .collect::<Vec<_>>();
    format!("0 {}", fields.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};
    use chrono_tz::UTC;

    fn schedule(expr: &str) -> CronSchedule {
        CronSchedule::parse(expr).unwrap_or_else(|err| panic!("`{expr}` should parse: {err}"))
    }

    fn utc(text: &str) -> DateTime<Utc> {
        text.parse()
            .unwrap_or_else(|err| panic!("test instant {text}: {err}"))
    }

    fn refusal(expr: &str) -> String {
        match CronSchedule::parse(expr) {
            Ok(_) => panic!("`{expr}` should be refused"),
            Err(err) => err.to_string(),
        }
    }

    /// Weekdays (0 = Sunday) on which `0 9 * * <dow>` fires over two weeks in UTC.
    fn weekdays_fired(dow: &str) -> Vec<u32> {
        let mut days: Vec<u32> = schedule(&format!("0 9 * * {dow}"))
            .fires_within(
                utc("2026-01-04T00:00:00Z"),
                utc("2026-01-18T00:00:00Z"),
                UTC,
            )
            .iter()
            .map(|at| at.weekday().num_days_from_sunday())
            .collect();
        days.sort_unstable();
        days.dedup();
        days
    }

    /// Days of April 2026 (UTC) on which `expr` fires.
    fn april_days(expr: &str) -> Vec<u32> {
        schedule(expr)
            .fires_within(
                utc("2026-04-01T00:00:00Z"),
                utc("2026-04-30T23:59:00Z"),
                UTC,
            )
            .iter()
            .map(|at| at.day())
            .collect()
    }

    #[test]
    fn day_of_week_conversion_fires_on_the_right_days() {
        let cases: [(&str, &[u32]); 12] = [
            ("0", &[0]),
            ("7", &[0]),
            ("sun", &[0]),
            ("SUN", &[0]),
            ("1", &[1]),
            ("5-7", &[0, 5, 6]),
            ("FRI-SUN", &[0, 5, 6]),
            ("MON-FRI", &[1, 2, 3, 4, 5]),
            ("*/2", &[0, 2, 4, 6]),
            ("1-5/2", &[1, 3, 5]),
            ("0,3,7", &[0, 3]),
            ("sat,Tue", &[2, 6]),
        ];
        for (dow, expected) in cases {
            assert_eq!(weekdays_fired(dow), expected, "day-of-week `{dow}`");
        }
    }

    #[test]
    fn crate_receives_sunday_one_numbering_and_seconds() {
        let plans = |expr: &str| -> Vec<String> {
            schedule(expr)
                .plans
                .iter()
                .map(|p| p.source().to_owned())
                .collect()
        };
        assert_eq!(plans("0 9 * * 5-7"), ["0 0 9 * * 1,6,7"]);
        assert_eq!(plans("0 9 * * 0"), ["0 0 9 * * 1"]);
        assert_eq!(
            plans("*/20 9-17/4 1,15 JAN-MAR *"),
            ["0 0,20,40 9,13,17 1,15 1,2,3 *"]
        );
        assert_eq!(plans("0 9 13 * 5"), ["0 0 9 13 * *", "0 0 9 * * 6"]);
    }

    #[test]
    fn refusals_name_the_field_and_the_reason() {
        let cases = [
            (
                "0 9 * *",
                "expected 5 fields (minute hour day-of-month month day-of-week), found 4 in `0 9 * *`",
            ),
            (
                "0 0 9 * * 1",
                "expected 5 fields (minute hour day-of-month month day-of-week), found 6 in `0 0 9 * * 1`",
            ),
            ("0 9 * * 8", "day-of-week: 8 is out of range 0-7"),
            ("60 * * * *", "minute: 60 is out of range 0-59"),
            ("0 24 * * *", "hour: 24 is out of range 0-23"),
            ("0 9 0 * *", "day-of-month: 0 is out of range 1-31"),
            ("0 9 * 13 *", "month: 13 is out of range 1-12"),
            ("*/0 * * * *", "minute: bad step `0` (a step is a whole number of at least 1)"),
            ("*/x * * * *", "minute: bad step `x` (a step is a whole number of at least 1)"),
            ("0 9 * FOO *", "month: unknown name `FOO` (expected JAN-DEC)"),
            ("0 9 * * funday", "day-of-week: unknown name `funday` (expected SUN-SAT)"),
            ("0 mon * * *", "hour: `mon` is not a number"),
            ("0 9 L * *", "day-of-month: `L` is not standard cron syntax"),
            ("0 9 15W * *", "day-of-month: `15W` is not standard cron syntax"),
            ("0 9 * * 5L", "day-of-week: `5L` is not standard cron syntax"),
            ("0 9 * * 5#3", "day-of-week: `5#3` is not standard cron syntax"),
            ("0 9 ? * MON", "day-of-month: `?` is not standard cron syntax"),
            ("0 9 * * 5-1", "day-of-week: range 5-1 runs backwards"),
            ("0 9 1,,2 * *", "day-of-month: empty list item"),
            ("0 9-17-2 * * *", "hour: cannot read `9-17-2`"),
        ];
        for (expr, message) in cases {
            assert_eq!(refusal(expr), message, "`{expr}`");
        }
    }

    #[test]
    fn both_day_fields_restricted_fire_on_either() {
        // April 2026: Fridays are 3, 10, 17, 24; the 13th is a Monday.
        assert_eq!(april_days("0 9 13 * 5"), [3, 10, 13, 17, 24]);
    }

    #[test]
    fn one_day_field_unrestricted_leaves_the_other_alone() {
        assert_eq!(april_days("0 9 13 * *"), [13]);
        assert_eq!(april_days("0 9 * * 5"), [3, 10, 17, 24]);
    }

    #[test]
    fn star_prefixed_day_field_still_combines_with_and() {
        // `*/7` is Sunday only but starts with `*`, so days 1-7 AND Sunday: the first Sunday.
        assert_eq!(april_days("0 9 1-7 * */7"), [5]);
    }

    #[test]
    fn matches_follows_the_day_rule() {
        let either = schedule("0 9 13 * 5");
        let at = |text: &str| {
            NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M")
                .unwrap_or_else(|err| panic!("test reading {text}: {err}"))
        };
        assert!(either.matches(at("2026-04-03 09:00")), "a Friday");
        assert!(either.matches(at("2026-04-13 09:00")), "the 13th");
        assert!(!either.matches(at("2026-04-14 09:00")), "neither");
        assert!(!either.matches(at("2026-04-03 09:01")), "wrong minute");
        assert!(!schedule("0 9 13 * *").matches(at("2026-04-03 09:00")));
    }

    #[test]
    fn keeps_the_text_as_written() {
        let job = schedule("  30 8  * * mon-fri ");
        assert_eq!(job.as_str(), "  30 8  * * mon-fri ");
        assert_eq!(job.to_string(), job.as_str());
    }
}
