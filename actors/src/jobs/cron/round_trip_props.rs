//! Property tests: a valid cron expression (lists, ranges, steps, month and weekday names in any
//! case, `*`, uneven spacing) read, written out and read again is the same schedule, and the
//! `cron` crate's rendering of it fires at exactly the minutes the expression names.
//!
//! Two ways a schedule is written out here: as its text ([`CronSchedule`]'s `Display`, what
//! `routine list` and the forward schedule show) and as explicit value lists; each must read
//! back to the same values and the same day rule. (A routine file keeps `cron` byte for byte:
//! `jobs/frontmatter_props.rs`, since `jobs` depends on `cron` and not the other way round.) The
//! third, the crate syntax from `translate`, is checked against minute-by-minute stepping with
//! [`CronSchedule::matches`].

use chrono::{DateTime, Duration, TimeZone, Utc};
use chrono_tz::UTC;
use proptest::collection::vec;
use proptest::prelude::*;

use super::field::{CronField, MONTH_NAMES, WEEKDAY_NAMES};
use super::CronSchedule;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// `name` in upper, lower or title case.
fn any_case(name: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        Just(name.to_owned()),
        Just(name.to_ascii_lowercase()),
        Just(format!("{}{}", &name[..1], name[1..].to_ascii_lowercase())),
    ]
}

/// A value of `field` as a number or, where the field has names, possibly a name.
fn value(field: CronField, min: u32, max: u32) -> BoxedStrategy<(u32, String)> {
    let number = (min..=max).prop_map(|v| (v, v.to_string()));
    let names: &'static [&'static str] = match field {
        CronField::Month => &MONTH_NAMES,
        CronField::DayOfWeek => &WEEKDAY_NAMES,
        _ => return number.boxed(),
    };
    let first = if field == CronField::Month { 1 } else { 0 };
    let named = (0..names.len())
        .prop_flat_map(move |i| any_case(names[i]).prop_map(move |n| (first + i as u32, n)));
    prop_oneof![number, named].boxed()
}

/// `a-b`, whichever of the two values is smaller written first.
fn range((a, a_text): (u32, String), (b, b_text): (u32, String)) -> String {
    if a <= b {
        format!("{a_text}-{b_text}")
    } else {
        format!("{b_text}-{a_text}")
    }
}

/// One list item of `field`: `*`, `*/s`, `n`, `n/s`, `a-b` or `a-b/s`, and for day-of-week a
/// range ending on the name `SUN` (read as 7).
fn item(field: CronField) -> BoxedStrategy<String> {
    let (min, max) = field.bounds();
    let step = 1u32..=(max - min + 2);
    let any_value = move || value(field, min, max);
    let items = prop_oneof![
        Just("*".to_owned()),
        step.clone().prop_map(|s| format!("*/{s}")),
        any_value().prop_map(|(_, text)| text),
        (any_value(), step.clone()).prop_map(|((_, v), s)| format!("{v}/{s}")),
        (any_value(), any_value()).prop_map(|(a, b)| range(a, b)),
        (any_value(), any_value(), step).prop_map(|(a, b, s)| format!("{}/{s}", range(a, b))),
    ];
    if field != CronField::DayOfWeek {
        return items.boxed();
    }
    let to_sunday = (any_value(), any_case("SUN")).prop_map(|((_, v), sun)| format!("{v}-{sun}"));
    prop_oneof![4 => items, 1 => to_sunday].boxed()
}

fn field_text(field: CronField) -> impl Strategy<Value = String> {
    vec(item(field), 1..4).prop_map(|items| items.join(","))
}

/// Spaces and tabs between fields (and, possibly empty, around them).
fn gap(at_least: usize) -> impl Strategy<Value = String> {
    vec(prop_oneof![Just(' '), Just('\t')], at_least..3).prop_map(String::from_iter)
}

fn expression() -> impl Strategy<Value = String> {
    (
        [
            field_text(CronField::Minute),
            field_text(CronField::Hour),
            field_text(CronField::DayOfMonth),
            field_text(CronField::Month),
            field_text(CronField::DayOfWeek),
        ],
        [gap(0), gap(1), gap(1), gap(1), gap(1), gap(0)],
    )
        .prop_map(|(fields, gaps)| {
            let mut out = gaps[0].clone();
            for (i, field) in fields.iter().enumerate() {
                out.push_str(field);
                out.push_str(&gaps[i + 1]);
            }
            out
        })
}

fn parsed(expr: &str) -> Result<CronSchedule, TestCaseError> {
    CronSchedule::parse(expr).map_err(|e| TestCaseError::fail(format!("`{expr}`: {e}")))
}

/// The schedule written as explicit value lists (weekdays 0-6); a day field that was
/// unrestricted keeps its text, since a leading `*` is what makes it unrestricted.
fn as_value_lists(schedule: &CronSchedule) -> String {
    let texts: Vec<&str> = schedule.source.split_whitespace().collect();
    CronField::ALL
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let is_day_field = i == 2 || i == 4;
            if is_day_field && texts[i].starts_with('*') {
                return texts[i].to_owned();
            }
            (0..64u32)
                .filter(|v| schedule.values[i] & 1 << v != 0)
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn same_schedule(a: &CronSchedule, b: &CronSchedule) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.values, b.values, "`{}` vs `{}`", a.source, b.source);
    prop_assert_eq!(
        a.either_day,
        b.either_day,
        "`{}` vs `{}`",
        a.source,
        b.source
    );
    Ok(())
}

/// The first minute after `after` that `schedule` names, stepping at most `limit` minutes.
fn first_match_by_stepping(
    schedule: &CronSchedule,
    after: DateTime<Utc>,
    limit: i64,
) -> Option<DateTime<Utc>> {
    let start = after + Duration::minutes(1);
    (0..limit)
        .map(|m| start + Duration::minutes(m))
        .find(|at| schedule.matches(at.naive_utc()))
}

proptest! {
    #![proptest_config(config())]

    /// Text → schedule → text → schedule: the same schedule, the same text.
    #[test]
    fn displayed_schedule_reads_back_the_same(expr in expression()) {
        let first = parsed(&expr)?;
        let again = parsed(&first.to_string())?;
        same_schedule(&first, &again)?;
        prop_assert_eq!(again.as_str(), expr.as_str());
    }

    /// The values written as plain lists read back as the same values and day rule.
    #[test]
    fn value_lists_read_back_the_same(expr in expression()) {
        let first = parsed(&expr)?;
        same_schedule(&first, &parsed(&as_value_lists(&first))?)?;
    }

    /// The next fire time (from the crate's rendering) is the first minute `matches` names.
    #[test]
    fn next_fire_is_the_first_matching_minute(
        expr in expression(),
        starts in vec(0i64..(3 * 366 * 24 * 60), 3),
        seconds in 0u32..60,
    ) {
        let schedule = parsed(&expr)?;
        const WINDOW: i64 = 8 * 24 * 60;
        let base = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, seconds).single()
            .ok_or_else(|| TestCaseError::fail("base instant"))?;
        for offset in starts {
            let after = base + Duration::minutes(offset);
            let next = schedule.next_after(after, UTC);
            let stepped = first_match_by_stepping(&schedule, after - Duration::seconds(i64::from(seconds)), WINDOW);
            match stepped {
                Some(at) => prop_assert_eq!(next, Some(at), "`{}` after {}", expr, after),
                None => prop_assert!(
                    next.is_none_or(|at| at > after + Duration::minutes(WINDOW)),
                    "`{}` after {}: {:?} was not found by stepping", expr, after, next
                ),
            }
        }
    }
}
