//! Missed routine times *(ours, SPEC §16)*: whether a late routine runs, and the line each missed
//! time gets in the run history.
//!
//! The scheduler fires a routine whose time passed while the bot was down or the machine asleep
//! once, for its latest missed time (`late_since`), with the earlier missed times alongside
//! (`missed`). Here: the earlier ones are recorded `missed`; the latest runs — marked late — when
//! it is within the routine's catch-up window (its `catch-up`, else `catch_up_window`) and is
//! recorded `caught-up`, or is recorded `missed` and does not run. Reminders always run late
//! (SPEC §3), and have no earlier times.

use chrono::{DateTime, Duration, Utc};

use super::RunJob;
use crate::jobs::Job;
use crate::records::runs::Outcome;

/// At most this many lines for one catch-up; older missed times share one line with a count.
pub const MAX_MISS_LINES: usize = 50;

/// One line for a missed time (or several, with a count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissLine {
    /// The (earliest) fire time.
    pub scheduled: DateTime<Utc>,
    /// `missed` or `caught-up`.
    pub outcome: Outcome,
    /// How many fire times the line stands for, when more than one.
    pub count: Option<u64>,
}

/// What to do with a fired job, and the lines its missed times get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Run it (late or not).
    pub run: bool,
    /// Lines to record, oldest first.
    pub lines: Vec<MissLine>,
}

/// Decides for `run` with the configured window (`catch_up_window`).
pub fn decide(run: &RunJob, configured: Duration) -> Decision {
    let mut lines = miss_lines(&run.missed);
    let Job::Routine(routine) = &run.job else {
        return Decision { run: true, lines };
    };
    let Some(late) = run.late_since else {
        return Decision { run: true, lines };
    };
    let within = routine
        .catch_up
        .window(configured)
        .is_some_and(|window| run.fired_at - late <= window);
    lines.push(MissLine {
        scheduled: late,
        outcome: if within {
            Outcome::CaughtUp
        } else {
            Outcome::Missed
        },
        count: None,
    });
    Decision { run: within, lines }
}

/// `missed` lines for `times` (oldest first), the oldest sharing one line past the cap.
fn miss_lines(times: &[DateTime<Utc>]) -> Vec<MissLine> {
    let line = |scheduled, count| MissLine {
        scheduled,
        outcome: Outcome::Missed,
        count,
    };
    if times.len() <= MAX_MISS_LINES {
        return times.iter().map(|t| line(*t, None)).collect();
    }
    let folded = times.len() - (MAX_MISS_LINES - 1);
    std::iter::once(line(times[0], Some(folded as u64)))
        .chain(times[folded..].iter().map(|t| line(*t, None)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::prompts::test_jobs::{reminder, routine, settings};
    use crate::jobs::catch_up::CatchUp;
    use chrono::TimeZone;

    fn at(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 2, h, m, 0).unwrap()
    }

    fn late_routine(
        catch_up: CatchUp,
        missed: Vec<DateTime<Utc>>,
        late: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> RunJob {
        let mut r = routine("r1", settings(true));
        r.catch_up = catch_up;
        RunJob {
            late_since: Some(late),
            missed,
            ..RunJob::new(Job::Routine(r), "routines/r1.md".into(), late, now)
        }
    }

    #[test]
    fn the_latest_missed_time_runs_within_the_window_and_the_rest_are_missed() {
        let run = late_routine(
            CatchUp::Default,
            vec![at(9, 0), at(10, 0)],
            at(11, 0),
            at(12, 30),
        );
        let d = decide(&run, Duration::hours(2));
        assert!(d.run);
        let outcomes: Vec<_> = d.lines.iter().map(|l| (l.scheduled, l.outcome)).collect();
        assert_eq!(
            outcomes,
            [
                (at(9, 0), Outcome::Missed),
                (at(10, 0), Outcome::Missed),
                (at(11, 0), Outcome::CaughtUp)
            ]
        );
    }

    #[test]
    fn past_the_window_or_with_catch_up_none_nothing_runs() {
        let late = late_routine(CatchUp::Default, vec![], at(9, 0), at(11, 1));
        assert!(!decide(&late, Duration::hours(2)).run);
        let own = late_routine(CatchUp::Within(180), vec![], at(9, 0), at(11, 1));
        assert!(
            decide(&own, Duration::hours(2)).run,
            "its own window is longer"
        );
        let never = late_routine(CatchUp::Never, vec![], at(9, 0), at(9, 5));
        let d = decide(&never, Duration::hours(2));
        assert!(!d.run);
        assert_eq!(d.lines[0].outcome, Outcome::Missed);
        let off = late_routine(CatchUp::Default, vec![], at(9, 0), at(9, 5));
        assert!(!decide(&off, Duration::zero()).run, "catch_up_window 0");
    }

    #[test]
    fn reminders_always_run_and_many_misses_fold_into_one_counted_line() {
        let r = Job::Reminder(reminder("m1", 0, 0, settings(true)));
        let run = RunJob {
            late_since: Some(at(1, 0)),
            ..RunJob::new(r, "reminders/m1.md".into(), at(1, 0), at(12, 0))
        };
        assert_eq!(
            decide(&run, Duration::zero()),
            Decision {
                run: true,
                lines: vec![]
            }
        );
        let many: Vec<_> = (0..120).map(|i| at(0, 0) + Duration::minutes(i)).collect();
        let lines = miss_lines(&many);
        assert_eq!(lines.len(), MAX_MISS_LINES);
        assert_eq!(lines[0].count, Some(71));
        assert_eq!(lines[1].scheduled, many[71]);
        assert_eq!(lines.last().unwrap().scheduled, many[119]);
    }
}
