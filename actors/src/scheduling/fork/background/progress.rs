//! Where one background fork's run stands ([`RunState`]: starting its CLI, running, or ended
//! and how) and what it has done so far ([`Activity`]); together they make the [`ForkEnd`] the
//! job runner hears when the actor stops.

use std::sync::Arc;

use super::{ForkEnd, ForkOutcome};
use crate::claude::brain::Driver;

/// Where the run stands. It only moves forward: starting → running → ended (or straight from
/// starting to ended), and once ended it keeps its first ending.
pub(super) enum RunState {
    /// Its CLI is being started (a fork of the main session, else isolated).
    Starting {
        /// Attempts to start the CLI that failed so far ([`super::START_RETRY_WAITS`]).
        failed_attempts: u32,
    },
    /// Its CLI is up and working on the job (or first on a persistent routine's `/compact`).
    Running {
        /// Talks to the CLI process.
        driver: Arc<Box<dyn Driver>>,
    },
    /// The run is over; its CLI, if it had one, is being shut down and the actor stopped.
    Ended(Ending),
}

impl RunState {
    /// True once the run has ended: its process's events are ignored from then on.
    pub(super) fn has_ended(&self) -> bool {
        matches!(self, Self::Ended(_))
    }

    /// The CLI's driver while it runs.
    pub(super) fn driver(&self) -> Option<Arc<Box<dyn Driver>>> {
        match self {
            Self::Running { driver } => Some(Arc::clone(driver)),
            Self::Starting { .. } | Self::Ended(_) => None,
        }
    }

    /// What the runner hears when the actor stops. A run that never ended (the actor was
    /// stopped from outside) failed: "the fork stopped".
    pub(super) fn end(&self, activity: &Activity) -> ForkEnd {
        match self {
            Self::Ended(ending) => ending.end(activity),
            Self::Starting { .. } | Self::Running { .. } => Ending::Failed {
                spent: None,
                error: "the fork stopped".to_owned(),
                transient: None,
            }
            .end(activity),
        }
    }
}

/// How a run ended.
pub(super) enum Ending {
    /// The job ran to its end: the CLI's result said so.
    Completed {
        /// What the result reported.
        spent: Spent,
    },
    /// *(ours)* The CLI stopped it at its `--max-turns` or `--max-budget-usd`
    /// ([`super::RunBounds`]).
    OverBudget {
        /// What the result reported.
        spent: Spent,
        /// The result's errors, shortened.
        error: String,
    },
    /// It could not start, a message to its CLI could not be sent, its result was an error, or
    /// its CLI exited mid-job.
    Failed {
        /// What the result reported, when the failure was a result.
        spent: Option<Spent>,
        /// What went wrong, shortened.
        error: String,
        /// The passing cause it failed for, if it did ([`ForkEnd::transient`]).
        transient: Option<String>,
    },
    /// It passed `bg_fork_timeout`.
    TimedOut {
        /// The line the owner read, kept as the run's error.
        notice: String,
    },
}

impl Ending {
    /// Its outcome, as the runner is told it.
    pub(super) fn outcome(&self) -> ForkOutcome {
        match self {
            Self::Completed { .. } => ForkOutcome::Completed,
            Self::OverBudget { .. } => ForkOutcome::OverBudget,
            Self::Failed { .. } => ForkOutcome::Failed,
            Self::TimedOut { .. } => ForkOutcome::TimedOut,
        }
    }

    fn end(&self, activity: &Activity) -> ForkEnd {
        let (spent, error, transient) = match self {
            Self::Completed { spent } => (Some(*spent), None, None),
            Self::OverBudget { spent, error } => (Some(*spent), Some(error), None),
            Self::Failed {
                spent,
                error,
                transient,
            } => (*spent, Some(error), transient.as_ref()),
            Self::TimedOut { notice } => (None, Some(notice), None),
        };
        ForkEnd {
            outcome: self.outcome(),
            pinged: activity.delivered,
            reported: activity.reported,
            cost_usd: spent.and_then(|s| s.cost_usd),
            turns: spent.map(|s| s.turns),
            error: error.cloned(),
            transient: transient.cloned(),
            session: None,
        }
    }
}

/// What the CLI's result reported the run cost, for the run history.
#[derive(Debug, Clone, Copy)]
pub(super) struct Spent {
    /// Its cost, in US dollars.
    pub(super) cost_usd: Option<f64>,
    /// Its model turns.
    pub(super) turns: u32,
}

/// What the run has done so far. Tool calls may still be carried out after it ended (the time
/// limit does not wait for them), so this is kept apart from [`RunState`].
#[derive(Debug, Default)]
pub(in crate::scheduling::fork) struct Activity {
    /// Pings, embeds and files that passed the budget path (critical ones skip it and are not
    /// counted): one at most.
    pub(in crate::scheduling::fork) pings_sent: u32,
    /// Tool calls refused (quiet hours, busy, budget, repeats, …), for the run's log line.
    pub(in crate::scheduling::fork) refusals: u32,
    /// It called `report_updates`.
    pub(in crate::scheduling::fork) reported: bool,
    /// A ping, an embed or a file went out since its last report (the Stop hook of an
    /// `on-ping` job asks for one then).
    pub(in crate::scheduling::fork) unreported_output: bool,
    /// A ping, an embed or a file went out (critical ones too).
    pub(in crate::scheduling::fork) delivered: bool,
    /// Times the Stop hook sent the agent back to report ([`super::MAX_STOP_BLOCKS`] at most).
    pub(in crate::scheduling::fork) stop_blocks: u32,
    /// A tool call was seen (a CLI that dies after one is not retried).
    pub(in crate::scheduling::fork) tool_ran: bool,
}
