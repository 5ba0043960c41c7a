//! `/routines` *(ours, SPEC §16)*: the routines with their next fire time, last outcome and
//! paused state, and the background jobs running and waiting for a slot — gathered from their
//! owners ([`gather`]) and rendered for the console ([`Board::text`]) or as Discord embeds with
//! Run now / Pause (Resume) buttons per routine ([`Board::pages`]). The buttons carry persistent
//! custom ids (`act:routine_run:<id>`, `act:routine_pause:<id>`, `act:routine_resume:<id>`,
//! [`RoutineClick`]), so they work after a restart; [`press`] carries a click out.

mod click;
mod render;

use std::collections::HashMap;

use actix::Addr;
use chrono::{DateTime, Utc};

use crate::jobs::JobId;
use crate::records::runs::{LatestRuns, RunLog, RunRecord};
use crate::scheduling::job_runner::{Activity, ActivityReport, JobRunner};
use crate::scheduling::scheduler::{RoutineEntry, Routines, Scheduler};

pub use click::{press, RoutineClick};
pub use render::{Page, PageButton, ROUTINES_PER_PAGE};

/// Everything `/routines` shows.
#[derive(Debug, Clone)]
pub struct Board {
    /// The routines, by file name.
    pub routines: Vec<RoutineEntry>,
    /// Each job's last run-history line.
    pub last: HashMap<JobId, RunRecord>,
    /// What runs and waits now.
    pub activity: ActivityReport,
    /// When it was gathered.
    pub now: DateTime<Utc>,
}

/// Why the board could not be gathered.
#[derive(Debug, thiserror::Error)]
#[error("the {0} actor has stopped")]
pub struct BoardError(pub &'static str);

/// Asks the scheduler, the run log and the job runner for what `/routines` shows.
pub async fn gather(
    scheduler: &Addr<Scheduler>,
    runs: &Addr<RunLog>,
    runner: &Addr<JobRunner>,
    now: DateTime<Utc>,
) -> Result<Board, BoardError> {
    let routines = scheduler
        .send(Routines)
        .await
        .map_err(|_| BoardError("scheduler"))?;
    let last = runs
        .send(LatestRuns)
        .await
        .map_err(|_| BoardError("run_log"))?;
    let activity = runner
        .send(Activity)
        .await
        .map_err(|_| BoardError("job_runner"))?;
    Ok(Board {
        routines,
        last,
        activity,
        now,
    })
}
