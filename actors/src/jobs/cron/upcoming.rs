//! When a [`CronSchedule`] fires: the next time after an instant, and the forward schedule for a
//! window, read in the configured zone across DST changes. Part of SPEC §3 (routine `cron`).
//!
//! The crate schedules walk wall-clock readings (in `Utc` standing in for naive local time);
//! `wall_clock.rs` turns each into an instant, and readings whose instant is not after the
//! asked-for time are skipped. That skip is what makes a repeated reading fire once.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use super::{wall_clock, CronSchedule};

/// Upper bound on wall-clock candidates skipped in one search: skips only happen inside a repeated
/// or skipped stretch of local time, which is hours long at most, so this is never reached in
/// practice and only stops a pathological zone from spinning.
const MAX_SKIPPED_CANDIDATES: usize = 4 * 24 * 60;

impl CronSchedule {
    /// The first fire time strictly after `after`, reading the schedule in zone `tz`; `None` when
    /// it never fires again (e.g. `0 0 30 2 *`).
    pub fn next_after(&self, after: DateTime<Utc>, tz: Tz) -> Option<DateTime<Utc>> {
        self.plans
            .iter()
            .filter_map(|plan| next_for_plan(plan, after, tz))
            .min()
    }

    /// Every fire time strictly after `after`, in order, reading the schedule in zone `tz`.
    pub fn upcoming(&self, after: DateTime<Utc>, tz: Tz) -> Upcoming<'_> {
        Upcoming {
            schedule: self,
            tz,
            cursor: Some(after),
        }
    }

    /// The fire times in `(after, until]`, in order: the forward schedule for a window.
    pub fn fires_within(
        &self,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
        tz: Tz,
    ) -> Vec<DateTime<Utc>> {
        self.upcoming(after, tz)
            .take_while(|at| *at <= until)
            .collect()
    }
}

/// Fire times one after another; see [`CronSchedule::upcoming`].
#[derive(Debug, Clone)]
pub struct Upcoming<'a> {
    schedule: &'a CronSchedule,
    tz: Tz,
    /// The last time given out (or the start); `None` once the schedule has run dry.
    cursor: Option<DateTime<Utc>>,
}

impl Iterator for Upcoming<'_> {
    type Item = DateTime<Utc>;

    fn next(&mut self) -> Option<DateTime<Utc>> {
        let next = self.schedule.next_after(self.cursor?, self.tz);
        self.cursor = next;
        next
    }
}

/// Walks `plan` over wall-clock readings from `after`'s local reading and returns the first whose
/// instant lies strictly after `after`.
fn next_for_plan(plan: &cron::Schedule, after: DateTime<Utc>, tz: Tz) -> Option<DateTime<Utc>> {
    let local_start = after.with_timezone(&tz).naive_local().and_utc();
    plan.after(&local_start)
        .take(MAX_SKIPPED_CANDIDATES)
        .filter_map(|reading| wall_clock::instant_of(reading.naive_utc(), tz))
        .find(|at| *at > after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::{America::New_York, Europe::Berlin, UTC};

    fn schedule(expr: &str) -> CronSchedule {
        CronSchedule::parse(expr).unwrap_or_else(|err| panic!("`{expr}` should parse: {err}"))
    }

    fn utc(text: &str) -> DateTime<Utc> {
        text.parse()
            .unwrap_or_else(|err| panic!("test instant {text}: {err}"))
    }

    #[test]
    fn evaluates_in_the_configured_zone() {
        let nine = schedule("0 9 * * *");
        let winter = nine.next_after(utc("2026-01-15T00:00:00Z"), Berlin);
        assert_eq!(winter, Some(utc("2026-01-15T08:00:00Z")));
        let summer = nine.next_after(utc("2026-07-15T00:00:00Z"), Berlin);
        assert_eq!(summer, Some(utc("2026-07-15T07:00:00Z")));
        let new_york = nine.next_after(utc("2026-01-15T00:00:00Z"), New_York);
        assert_eq!(new_york, Some(utc("2026-01-15T14:00:00Z")));
    }

    #[test]
    fn next_is_strictly_after_and_then_the_next_day() {
        let nine = schedule("0 9 * * *");
        let fired = utc("2026-01-15T09:00:00Z");
        assert_eq!(
            nine.next_after(fired, UTC),
            Some(utc("2026-01-16T09:00:00Z"))
        );
    }

    #[test]
    fn skipped_time_on_spring_forward_day_fires_once_at_gap_end() {
        // New York 2025-03-09: 02:00 EST jumps to 03:00 EDT (07:00Z).
        let fires = schedule("30 2 * * *").fires_within(
            utc("2025-03-08T12:00:00Z"),
            utc("2025-03-10T12:00:00Z"),
            New_York,
        );
        assert_eq!(
            fires,
            [utc("2025-03-09T07:00:00Z"), utc("2025-03-10T06:30:00Z")]
        );
        // Berlin 2026-03-29: 02:00 CET jumps to 03:00 CEST (01:00Z).
        let fires = schedule("30 2 * * *").fires_within(
            utc("2026-03-28T12:00:00Z"),
            utc("2026-03-30T12:00:00Z"),
            Berlin,
        );
        assert_eq!(
            fires,
            [utc("2026-03-29T01:00:00Z"), utc("2026-03-30T00:30:00Z")]
        );
    }

    #[test]
    fn repeated_time_on_fall_back_day_fires_once() {
        // New York 2025-11-02: 01:00-02:00 happens at EDT (05:00Z-06:00Z), then again at EST.
        let job = schedule("30 1 * * *");
        let fires = job.fires_within(
            utc("2025-11-01T12:00:00Z"),
            utc("2025-11-03T12:00:00Z"),
            New_York,
        );
        assert_eq!(
            fires,
            [utc("2025-11-02T05:30:00Z"), utc("2025-11-03T06:30:00Z")]
        );
        // Asked during the second 01:00-02:00, the first 01:30 has passed: tomorrow.
        let during_repeat = job.next_after(utc("2025-11-02T06:10:00Z"), New_York);
        assert_eq!(during_repeat, Some(utc("2025-11-03T06:30:00Z")));
    }

    #[test]
    fn hourly_job_keeps_its_instants_across_both_changes() {
        let hourly = schedule("30 * * * *");
        let spring = hourly.fires_within(
            utc("2025-03-09T05:00:00Z"),
            utc("2025-03-09T08:00:00Z"),
            New_York,
        );
        let spring_expected =
            ["05:30", "06:30", "07:00", "07:30"].map(|t| utc(&format!("2025-03-09T{t}:00Z")));
        assert_eq!(spring, spring_expected);
        let fall = hourly.fires_within(
            utc("2025-11-02T04:00:00Z"),
            utc("2025-11-02T09:00:00Z"),
            New_York,
        );
        let fall_expected =
            ["04:30", "05:30", "07:30", "08:30"].map(|t| utc(&format!("2025-11-02T{t}:00Z")));
        assert_eq!(fall, fall_expected);
    }

    #[test]
    fn impossible_date_never_fires() {
        assert_eq!(
            schedule("0 0 30 2 *").next_after(utc("2026-01-01T00:00:00Z"), UTC),
            None
        );
        assert_eq!(
            schedule("0 0 31 4,6 *")
                .upcoming(utc("2026-01-01T00:00:00Z"), UTC)
                .next(),
            None
        );
    }
}
