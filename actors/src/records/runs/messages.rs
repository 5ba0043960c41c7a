//! The run log's messages and their answers, and the ticket a running job carries.

use actix::prelude::*;

use super::alerts::{Alert, AlertRules};
use super::record::{OpenRun, Outcome, RunRecord};
use super::RunLog;
use crate::base::state_file;

/// What a running job carries to mark its run ([`Mark`]) before each thing the owner will see.
#[derive(Clone)]
pub struct RunTicket {
    /// The run's id.
    pub run: String,
    /// The run log.
    pub log: Addr<RunLog>,
}

impl std::fmt::Debug for RunTicket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunTicket").field("run", &self.run).finish()
    }
}

impl RunTicket {
    /// Marks the run and waits until the mark is saved. A mark that cannot be saved is logged
    /// and the job goes on: what it does matters more than the record of it.
    pub fn mark(&self, mark: RunMark) -> impl std::future::Future<Output = ()> + 'static {
        let (log, run) = (self.log.clone(), self.run.clone());
        async move {
            match log
                .send(Mark {
                    run: run.clone(),
                    mark,
                })
                .await
            {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::error!(%run, cause = %e, "could not mark the run"),
                Err(e) => {
                    tracing::error!(%run, cause = %e, "the run log has stopped; run not marked")
                }
            }
        }
    }
}

/// Why the run log could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum RunLogError {
    /// A file could not be written.
    #[error(transparent)]
    Save(#[from] state_file::Error),
    /// No open run has that id.
    #[error("no open run {0}")]
    UnknownRun(String),
}

/// Records a run as started (fills in `boot`).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), RunLogError>")]
pub struct Open(pub OpenRun);

/// Something an open run did that a re-run must not repeat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunMark {
    /// It is about to ping the owner.
    Pinged,
    /// It scheduled a chain follow-up.
    FollowedUp,
    /// It is about to append this report to the pending updates.
    Reporting(String),
    /// Its oldest undelivered report reached the pending updates.
    Reported,
}

/// Marks an open run.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), RunLogError>")]
pub struct Mark {
    /// The run.
    pub run: String,
    /// What it did.
    pub mark: RunMark,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEnd {
    /// The outcome.
    pub outcome: Outcome,
    /// The CLI's reported cost.
    pub cost_usd: Option<f64>,
    /// The CLI's reported model turns.
    pub turns: Option<u32>,
    /// What went wrong.
    pub error: Option<String>,
    /// Whether it pinged (the entry's marks count too).
    pub pinged: bool,
    /// Whether it reported (the entry's marks count too).
    pub reported: bool,
    /// The CLI session it ran in (a background fork's), when known.
    pub session: Option<String>,
}

impl RunEnd {
    /// An end with nothing but its outcome and error.
    pub fn bare(outcome: Outcome, error: Option<String>) -> Self {
        RunEnd {
            outcome,
            cost_usd: None,
            turns: None,
            error,
            pinged: false,
            reported: false,
            session: None,
        }
    }
}

/// Ends an open run: its entry goes, its line is appended.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Closed, RunLogError>")]
pub struct Close {
    /// The run.
    pub run: String,
    /// How it ended.
    pub end: RunEnd,
    /// The failure-alert rules in force.
    pub rules: AlertRules,
    /// A run that takes its place in the same write (a re-run after a restart).
    pub successor: Option<OpenRun>,
}

/// What closing a run wrote.
#[derive(Debug, Clone)]
pub struct Closed {
    /// The line.
    pub record: RunRecord,
    /// What to tell the owner, if anything.
    pub alert: Option<Alert>,
    /// The texts the run reported, in order (for its reflection).
    pub reports: Vec<String>,
}

/// Appends lines that belong to no open run (misses, a run skipped before it opened).
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct Record(pub Vec<RunRecord>);

/// Asks for the runs an earlier start of the bot left open (each handed out once).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Vec<OpenRun>")]
pub struct TakeInterrupted;
