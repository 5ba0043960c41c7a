//! *(ours, issue 28)* An attempt that failed for a passing cause ([`CloseForRetry`]): when its
//! run did nothing the owner could see — no ping, no report, no chain follow-up, marked on its
//! entry before each happened — it gets a `retrying` line (with the cause and the wait) and
//! the next attempt's entry takes its place in the same write of `runs_open.json`. So a retry
//! still waiting when the bot stops is an open run the next start finds and runs again, like a
//! run a restart cut off (the job runner's recovery). A run that did act is closed as
//! [`Close`](super::Close) would close it: running it again would repeat what the owner saw.

use actix::prelude::*;

use super::alerts::AlertRules;
use super::messages::{Closed, RunEnd, RunLogError};
use super::record::{OpenRun, Outcome, RunRecord};
use super::RunLog;

/// Ends an attempt that failed for a passing cause, opening the next one when it may run again.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Retried, RunLogError>")]
pub struct CloseForRetry {
    /// The run.
    pub run: String,
    /// How the attempt ended (its outcome is what a run that may not run again records).
    pub end: RunEnd,
    /// The failure-alert rules in force (for a run that may not run again).
    pub rules: AlertRules,
    /// Why it failed, and when it runs again: the `retrying` line's error.
    pub why: String,
    /// The next attempt's run id.
    pub next_run: String,
}

/// What [`CloseForRetry`] did.
#[derive(Debug, Clone)]
pub enum Retried {
    /// The attempt got a `retrying` line; `next` is open in its place.
    Again {
        /// The line.
        record: RunRecord,
        /// The next attempt's entry.
        next: Box<OpenRun>,
    },
    /// The run had acted: closed with its own outcome.
    Closed(Closed),
}

impl Handler<CloseForRetry> for RunLog {
    type Result = Result<Retried, RunLogError>;
    fn handle(&mut self, msg: CloseForRetry, _ctx: &mut Self::Context) -> Self::Result {
        let entry = self
            .take_entry(&msg.run)
            .ok_or_else(|| RunLogError::UnknownRun(msg.run.clone()))?;
        if entry.acted() || msg.end.pinged || msg.end.reported {
            tracing::info!(run = %msg.run, job = %entry.job, "the run had acted already; it is not run again");
            return self
                .close_entry(entry, msg.end, msg.rules)
                .map(Retried::Closed);
        }
        let mut next = entry.clone();
        next.run = msg.next_run;
        next.boot = self.boot.clone();
        next.retry = entry.retry + 1;
        self.open.push(next.clone());
        let end = RunEnd {
            outcome: Outcome::Retrying,
            error: Some(msg.why),
            ..msg.end
        };
        let closed = self.close_entry(entry, end, msg.rules)?;
        Ok(Retried::Again {
            record: closed.record,
            next: Box::new(next),
        })
    }
}
