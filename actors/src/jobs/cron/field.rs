//! One field of a five-field cron expression: reading its text into the set of values it allows,
//! and writing that set back in the `cron` crate's syntax. Part of SPEC §3 (routine `cron`).
//!
//! Accepted per field: `*`, a number, a name (months `JAN`-`DEC`, weekdays `SUN`-`SAT`, any case),
//! a range `a-b`, a step on `*`, on a range or on a single start (`*/15`, `1-5/2`, `5/20` meaning
//! `5-max/20`, as the original's scheduler also read it), and comma lists of those. Day-of-week
//! runs 0-7 with both 0 and 7 meaning Sunday, so `5-7` is Friday to Sunday; a range may also end
//! on the name `SUN` (`FRI-SUN`), read as 7. Quartz-style `L`, `W`, `#` and `?` are refused.
//!
//! Values live in a `u64`, bit `n` standing for value `n`; day-of-week is folded to 0-6 (Sunday 0).

use std::fmt;

/// One of the five fields, in the order they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CronField {
    /// Minute of the hour, 0-59.
    Minute,
    /// Hour of the day, 0-23.
    Hour,
    /// Day of the month, 1-31.
    DayOfMonth,
    /// Month of the year, 1-12 or `JAN`-`DEC`.
    Month,
    /// Day of the week, 0-7 (0 and 7 are Sunday) or `SUN`-`SAT`.
    DayOfWeek,
}

pub(super) const MONTH_NAMES: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
pub(super) const WEEKDAY_NAMES: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

impl CronField {
    /// The five fields in written order.
    pub const ALL: [CronField; 5] = [
        CronField::Minute,
        CronField::Hour,
        CronField::DayOfMonth,
        CronField::Month,
        CronField::DayOfWeek,
    ];

    /// The name used in error messages, e.g. `day-of-week`.
    pub fn label(self) -> &'static str {
        match self {
            CronField::Minute => "minute",
            CronField::Hour => "hour",
            CronField::DayOfMonth => "day-of-month",
            CronField::Month => "month",
            CronField::DayOfWeek => "day-of-week",
        }
    }

    /// The smallest and largest value that may be written (day-of-week allows 7 for Sunday).
    pub(super) fn bounds(self) -> (u32, u32) {
        match self {
            CronField::Minute => (0, 59),
            CronField::Hour => (0, 23),
            CronField::DayOfMonth => (1, 31),
            CronField::Month => (1, 12),
            CronField::DayOfWeek => (0, 7),
        }
    }

    /// Names this field understands, with the value of the first one.
    fn names(self) -> Option<(&'static [&'static str], u32, &'static str)> {
        match self {
            CronField::Month => Some((&MONTH_NAMES, 1, "JAN-DEC")),
            CronField::DayOfWeek => Some((&WEEKDAY_NAMES, 0, "SUN-SAT")),
            _ => None,
        }
    }
}

impl fmt::Display for CronField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Why the text of one field was refused; the Display reads after `"<field>: "`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldProblem {
    /// A number outside what the field allows.
    #[error("{value} is out of range {min}-{max}")]
    OutOfRange {
        /// The number written.
        value: u32,
        /// Smallest allowed.
        min: u32,
        /// Largest allowed.
        max: u32,
    },
    /// A word in a field that only takes numbers.
    #[error("`{0}` is not a number")]
    NotANumber(String),
    /// A word in a named field that is not one of its names.
    #[error("unknown name `{name}` (expected {expected})")]
    UnknownName {
        /// The word written.
        name: String,
        /// The names the field takes, e.g. `JAN-DEC`.
        expected: &'static str,
    },
    /// A step that is not a whole number of at least 1.
    #[error("bad step `{0}` (a step is a whole number of at least 1)")]
    BadStep(String),
    /// A range whose end comes before its start.
    #[error("range {start}-{end} runs backwards")]
    Backwards {
        /// Where the range starts.
        start: u32,
        /// Where it ends.
        end: u32,
    },
    /// Quartz-style syntax (`L`, `W`, `#`, `?`), which standard cron does not have.
    #[error("`{0}` is not standard cron syntax")]
    Unsupported(String),
    /// Nothing between two commas, or at either end of the list.
    #[error("empty list item")]
    Empty,
    /// Text that is none of the accepted shapes, such as `1-2-3`.
    #[error("cannot read `{0}`")]
    Malformed(String),
}

/// Every value of `field`, as bits (day-of-week: 0-6).
pub(super) fn every(field: CronField) -> u64 {
    let (min, max) = field.bounds();
    let max = if field == CronField::DayOfWeek {
        6
    } else {
        max
    };
    (min..=max).fold(0, |bits, v| bits | 1 << v)
}

/// Reads one field's text into the values it allows.
pub(super) fn expand(field: CronField, text: &str) -> Result<u64, FieldProblem> {
    let mut bits = 0u64;
    for item in text.split(',') {
        bits |= expand_item(field, item)?;
    }
    if field == CronField::DayOfWeek && bits & 1 << 7 != 0 {
        bits = (bits & !(1 << 7)) | 1;
    }
    Ok(bits)
}

fn expand_item(field: CronField, item: &str) -> Result<u64, FieldProblem> {
    if item.is_empty() {
        return Err(FieldProblem::Empty);
    }
    if item.contains(['#', '?']) {
        return Err(FieldProblem::Unsupported(item.to_owned()));
    }
    let (base, step) = match item.split_once('/') {
        Some((base, step)) => (base, Some(read_step(step)?)),
        None => (item, None),
    };
    let (min, max) = field.bounds();
    let (start, end) = if base == "*" {
        (min, max)
    } else if let Some((start, end)) = base.split_once('-') {
        let start = read_value(field, start, item)?;
        let mut end_value = read_value(field, end, item)?;
        if field == CronField::DayOfWeek && end_value == 0 && !is_number(end) {
            end_value = 7;
        }
        if start > end_value {
            return Err(FieldProblem::Backwards {
                start,
                end: end_value,
            });
        }
        (start, end_value)
    } else {
        let value = read_value(field, base, item)?;
        (value, if step.is_some() { max } else { value })
    };
    let step = step.unwrap_or(1) as usize;
    Ok((start..=end).step_by(step).fold(0, |bits, v| bits | 1 << v))
}

fn read_step(text: &str) -> Result<u32, FieldProblem> {
    match text.parse::<u32>() {
        Ok(step) if step >= 1 && is_number(text) => Ok(step),
        _ => Err(FieldProblem::BadStep(text.to_owned())),
    }
}

fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Reads one number or name; `item` is the whole list item, quoted when its shape is wrong.
fn read_value(field: CronField, token: &str, item: &str) -> Result<u32, FieldProblem> {
    let (min, max) = field.bounds();
    if is_number(token) {
        let value = token
            .parse::<u32>()
            .map_err(|_| FieldProblem::Malformed(item.to_owned()))?;
        if value < min || value > max {
            return Err(FieldProblem::OutOfRange { value, min, max });
        }
        return Ok(value);
    }
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(FieldProblem::Malformed(item.to_owned()));
    }
    if is_quartz_marker(token) {
        return Err(FieldProblem::Unsupported(token.to_owned()));
    }
    let Some((names, first, expected)) = field.names() else {
        return Err(FieldProblem::NotANumber(token.to_owned()));
    };
    names
        .iter()
        .position(|name| name.eq_ignore_ascii_case(token))
        .map(|index| first + index as u32)
        .ok_or_else(|| FieldProblem::UnknownName {
            name: token.to_owned(),
            expected,
        })
}

/// `L`, `W`, `LW`, `15W`, `5L`: Quartz's last/weekday markers.
fn is_quartz_marker(token: &str) -> bool {
    let marker = token.trim_start_matches(|c: char| c.is_ascii_digit());
    ["L", "W", "LW"]
        .iter()
        .any(|m| m.eq_ignore_ascii_case(marker))
}

/// Writes `bits` for the `cron` crate: `*` when every value is set, else a comma list; weekdays
/// are renumbered from Sunday = 0 to the crate's Sunday = 1.
pub(super) fn crate_syntax(field: CronField, bits: u64) -> String {
    if bits == every(field) {
        return "*".to_owned();
    }
    let shift = u32::from(field == CronField::DayOfWeek);
    (0..64u32)
        .filter(|v| bits & 1 << v != 0)
        .map(|v| (v + shift).to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use CronField::*;

    /// The values `text` allows in `field`, ascending.
    fn values(field: CronField, text: &str) -> Vec<u32> {
        let bits = expand(field, text)
            .unwrap_or_else(|problem| panic!("{field} `{text}` should parse: {problem}"));
        (0..64).filter(|v| bits & 1 << v != 0).collect()
    }

    fn span(from: u32, to: u32) -> Vec<u32> {
        (from..=to).collect()
    }

    #[test]
    fn minute_reads_numbers_ranges_steps_and_lists() {
        assert_eq!(values(Minute, "*"), span(0, 59));
        assert_eq!(values(Minute, "7"), [7]);
        assert_eq!(values(Minute, "10-13"), [10, 11, 12, 13]);
        assert_eq!(values(Minute, "*/15"), [0, 15, 30, 45]);
        assert_eq!(values(Minute, "10-30/10"), [10, 20, 30]);
        assert_eq!(values(Minute, "50/4"), [50, 54, 58]);
        assert_eq!(values(Minute, "0,30,5-6"), [0, 5, 6, 30]);
        assert_eq!(values(Minute, "*/45,59"), [0, 45, 59]);
    }

    #[test]
    fn hour_reads_ranges_and_steps() {
        assert_eq!(values(Hour, "*"), span(0, 23));
        assert_eq!(values(Hour, "9-17/4"), [9, 13, 17]);
        assert_eq!(values(Hour, "*/6"), [0, 6, 12, 18]);
        assert_eq!(values(Hour, "0,23"), [0, 23]);
    }

    #[test]
    fn day_of_month_starts_at_one() {
        assert_eq!(values(DayOfMonth, "*"), span(1, 31));
        assert_eq!(values(DayOfMonth, "*/10"), [1, 11, 21, 31]);
        assert_eq!(values(DayOfMonth, "1,15,31"), [1, 15, 31]);
        assert_eq!(values(DayOfMonth, "25-28"), [25, 26, 27, 28]);
    }

    #[test]
    fn month_reads_names_in_any_case() {
        assert_eq!(values(Month, "*"), span(1, 12));
        assert_eq!(values(Month, "JAN-MAR"), [1, 2, 3]);
        assert_eq!(values(Month, "jun,Dec"), [6, 12]);
        assert_eq!(values(Month, "*/3"), [1, 4, 7, 10]);
        assert_eq!(values(Month, "feb-aug/2"), [2, 4, 6, 8]);
        assert_eq!(values(Month, "2,MAY-jul"), [2, 5, 6, 7]);
    }

    #[test]
    fn day_of_week_folds_seven_into_sunday() {
        assert_eq!(values(DayOfWeek, "*"), span(0, 6));
        assert_eq!(values(DayOfWeek, "7"), [0]);
        assert_eq!(values(DayOfWeek, "0-7"), span(0, 6));
        assert_eq!(values(DayOfWeek, "5-7"), [0, 5, 6]);
        assert_eq!(values(DayOfWeek, "Mon-Fri"), [1, 2, 3, 4, 5]);
        assert_eq!(values(DayOfWeek, "thu-sun"), [0, 4, 5, 6]);
        assert_eq!(values(DayOfWeek, "1-7/3"), [0, 1, 4]);
    }

    #[test]
    fn problems_say_what_is_wrong() {
        let problem = |field, text| match expand(field, text) {
            Ok(bits) => panic!("{field} `{text}` should be refused, got {bits:#b}"),
            Err(problem) => problem,
        };
        assert_eq!(
            problem(DayOfWeek, "8"),
            FieldProblem::OutOfRange {
                value: 8,
                min: 0,
                max: 7
            }
        );
        assert_eq!(
            problem(Minute, "99999999999"),
            FieldProblem::Malformed("99999999999".to_owned())
        );
        assert_eq!(problem(Minute, "5/"), FieldProblem::BadStep(String::new()));
        assert_eq!(
            problem(Minute, "*/+5"),
            FieldProblem::BadStep("+5".to_owned())
        );
        assert_eq!(problem(Hour, "1,"), FieldProblem::Empty);
        assert_eq!(
            problem(Hour, "-3"),
            FieldProblem::Malformed("-3".to_owned())
        );
        assert_eq!(
            problem(Month, "LW"),
            FieldProblem::Unsupported("LW".to_owned())
        );
        assert_eq!(
            problem(Month, "sept"),
            FieldProblem::UnknownName {
                name: "sept".to_owned(),
                expected: "JAN-DEC"
            }
        );
        assert_eq!(
            problem(DayOfWeek, "SAT-MON"),
            FieldProblem::Backwards { start: 6, end: 1 }
        );
    }

    #[test]
    fn crate_syntax_lists_values_and_shifts_weekdays() {
        assert_eq!(crate_syntax(Minute, every(Minute)), "*");
        assert_eq!(crate_syntax(DayOfWeek, every(DayOfWeek)), "*");
        assert_eq!(crate_syntax(Minute, 1 | 1 << 30), "0,30");
        assert_eq!(crate_syntax(DayOfWeek, 1 | 1 << 6), "1,7");
        assert_eq!(crate_syntax(DayOfWeek, 0b11_1110), "2,3,4,5,6");
    }
}
