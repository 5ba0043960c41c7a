//! Foreground jobs as turns: a [`super::FireJob`] (handled in `incoming`) is answered when its
//! turn ends, with how it ended ([`JobTurnEnd`]), so the job runner can record the run. The turn
//! carries a ticket from the moment its line is queued; whatever ends the turn — its result, an interruption, the CLI
//! exiting or hanging — answers the ticket. A ticket dropped unanswered (the session closed or
//! restarted) reads as [`JobTurnOutcome::Dropped`].

use std::collections::HashMap;

use tokio::sync::oneshot;

use crate::claude::brain::TurnResult;

/// How a foreground job's turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobTurnOutcome {
    /// The answer came.
    Completed,
    /// The turn failed (the CLI's error, or the CLI exited or stopped answering).
    Failed,
    /// A message from the user interrupted it.
    Interrupted,
    /// The conversation went away before the turn ended (a restart, a stop).
    Dropped,
}

/// The answer to [`super::FireJob`].
#[derive(Debug, Clone, PartialEq)]
pub struct JobTurnEnd {
    /// How it ended.
    pub outcome: JobTurnOutcome,
    /// What this turn cost, as the CLI reports it (its running total's increase).
    pub cost_usd: Option<f64>,
    /// Model calls in the turn.
    pub turns: Option<u32>,
    /// What went wrong.
    pub error: Option<String>,
    /// *(ours)* The passing cause it failed for, if it did (the runner may run it again).
    pub transient: Option<String>,
}

impl JobTurnEnd {
    /// An end with nothing but its outcome and error.
    pub fn bare(outcome: JobTurnOutcome, error: impl Into<Option<String>>) -> Self {
        JobTurnEnd {
            outcome,
            cost_usd: None,
            turns: None,
            error: error.into(),
            transient: None,
        }
    }
}

/// The tickets of queued and running job turns.
#[derive(Debug, Default)]
pub(super) struct JobTurns {
    next: u64,
    waiting: HashMap<u64, oneshot::Sender<JobTurnEnd>>,
}

impl JobTurns {
    /// A new ticket, and where its answer arrives.
    pub(super) fn issue(&mut self) -> (u64, oneshot::Receiver<JobTurnEnd>) {
        self.next += 1;
        let (tx, rx) = oneshot::channel();
        self.waiting.insert(self.next, tx);
        (self.next, rx)
    }

    /// Answers `ticket` (nothing happens for a ticket already answered or none).
    pub(super) fn answer(&mut self, ticket: Option<u64>, end: JobTurnEnd) {
        if let Some(tx) = ticket.and_then(|t| self.waiting.remove(&t)) {
            // The runner may have gone (a restart): nothing to tell then.
            let _ = tx.send(end);
        }
    }

    /// Drops every ticket: their turns will never end here.
    pub(super) fn drop_all(&mut self) {
        self.waiting.clear();
    }
}

/// What a turn's result means for the job it ran, given the turn's own cost (the CLI's cost
/// is a running total per process: [`super::conversation::TurnLine::turn_cost`] takes the
/// difference).
pub(super) fn end_of(
    outcome: &super::turn::Outcome,
    result: &TurnResult,
    cost_usd: Option<f64>,
) -> JobTurnEnd {
    use super::turn::Outcome;
    let (outcome, error) = match outcome {
        Outcome::Reply(_) | Outcome::CommandDone => (JobTurnOutcome::Completed, None),
        Outcome::Resend(_) => (JobTurnOutcome::Completed, None),
        Outcome::Interrupted => (
            JobTurnOutcome::Interrupted,
            Some("interrupted by a new message".to_owned()),
        ),
        Outcome::Failed(f) => (JobTurnOutcome::Failed, Some(f.detail.clone())),
    };
    let transient = (outcome == JobTurnOutcome::Failed)
        .then(|| crate::claude::brain::transient::cause_of(result))
        .flatten();
    JobTurnEnd {
        outcome,
        cost_usd,
        turns: Some(result.num_turns),
        error,
        transient,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::main_session::failure::{Failure, FailureKind};
    use crate::conversation::main_session::turn::Outcome;

    #[test]
    fn a_foreground_job_failed_by_an_overloaded_api_may_run_again() {
        let result = TurnResult {
            is_error: true,
            result: Some("API Error: 529 Overloaded".into()),
            terminal_reason: Some("api_error".into()),
            api_error_status: Some(529),
            ..TurnResult::default()
        };
        let failed = Outcome::Failed(Failure {
            kind: FailureKind::Api,
            detail: "529 Overloaded".into(),
        });
        let end = end_of(&failed, &result, None);
        assert_eq!(end.outcome, JobTurnOutcome::Failed);
        assert!(end.transient.unwrap().contains("overloaded (529)"));
        let signed_out = TurnResult {
            api_error_status: Some(401),
            ..result
        };
        assert_eq!(end_of(&failed, &signed_out, None).transient, None);
    }
}
