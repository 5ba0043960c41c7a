//! Fire times that passed unseen *(ours, SPEC §16)*: where a routine's first timer starts after
//! a start ([`Baselines`], from the run history), and the times a late timer finds behind it
//! ([`passed_fires`]).

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;

use super::cron::CronSchedule;
use crate::jobs::JobId;

/// Most passed fire times looked at for one routine (a minutely cron after weeks away).
const MAX_PASSED: usize = 10_000;
/// Passed fire times older than this are not looked at (the run history keeps no more).
pub(super) const MAX_LOOKBACK: Duration = Duration::days(30);

/// What the run history says about routines, for their first timers after a start.
#[derive(Debug, Clone, Default)]
pub struct Baselines {
    /// When the history began: nothing before it is caught up.
    pub since: Option<DateTime<Utc>>,
    /// The last fire time considered per routine.
    pub per_job: HashMap<JobId, DateTime<Utc>>,
}

/// The fire times of `schedule` from `first` up to `now`, oldest first (at most
/// [`MAX_PASSED`], none older than [`MAX_LOOKBACK`]).
pub(super) fn passed_fires(
    schedule: &CronSchedule,
    first: DateTime<Utc>,
    now: DateTime<Utc>,
    tz: Tz,
) -> Vec<DateTime<Utc>> {
    let floor = now - MAX_LOOKBACK;
    let mut at = if first < floor {
        schedule.next_after(floor - Duration::seconds(1), tz)
    } else {
        Some(first)
    };
    let mut out = std::collections::VecDeque::new();
    while let Some(t) = at.filter(|t| *t <= now) {
        if out.len() == MAX_PASSED {
            out.pop_front();
        }
        out.push_back(t);
        at = schedule.next_after(t, tz);
    }
    out.into()
}
