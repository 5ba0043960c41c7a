//! Foreground jobs in a line (SPEC §17): they are prepared and handed to the conversation one
//! at a time, in the order they were dispatched, so the conversation receives them in fire
//! order even when one job's preparation (a gate, its skills) takes longer than the next one's.
//! The conversation then gives each its whole turn in that order (`main_session`: a job never
//! interrupts a turn). Preparing here is quick; a job waits in this line only for the jobs
//! ahead of it to be prepared and handed over, never for their turns.

use std::collections::VecDeque;

use actix::prelude::*;
use tokio::sync::oneshot;

use super::{JobRunner, RunJob, RunOutcome};
use crate::records::runs::RunTicket;

/// A foreground job waiting for its preparation.
#[derive(Debug)]
pub(super) struct InLine {
    /// The job.
    pub run: RunJob,
    /// Its open run.
    pub ticket: RunTicket,
    /// Where its [`RunJob`] is answered once it has been handed on.
    pub answer: oneshot::Sender<RunOutcome>,
}

/// The line and whether its head is being prepared.
#[derive(Debug)]
pub(super) struct ForegroundLine<T = InLine> {
    line: VecDeque<T>,
    preparing: bool,
}

impl<T> Default for ForegroundLine<T> {
    fn default() -> Self {
        Self {
            line: VecDeque::new(),
            preparing: false,
        }
    }
}

impl<T> ForegroundLine<T> {
    /// Puts a job at the end of the line.
    pub fn push(&mut self, job: T) {
        self.line.push_back(job);
    }

    /// The next job to prepare, if none is being prepared now.
    fn next(&mut self) -> Option<T> {
        if self.preparing {
            return None;
        }
        let job = self.line.pop_front()?;
        self.preparing = true;
        Some(job)
    }

    /// The job being prepared has been handed on (or has ended).
    fn done(&mut self) {
        self.preparing = false;
    }
}

impl JobRunner {
    /// Prepares the next foreground job in line, unless one is being prepared.
    pub(super) fn pump_foreground(&mut self, ctx: &mut Context<Self>) {
        let Some(InLine {
            run,
            ticket,
            answer,
        }) = self.foreground.next()
        else {
            return;
        };
        let delivery = self.config.delivery.clone();
        let handed = self.run_as_turn(run, ticket, delivery);
        ctx.spawn(handed.map(|outcome, act, ctx| {
            // The RunJob's sender may have gone (a restart): nothing to tell then.
            let _ = answer.send(outcome);
            act.foreground.done();
            act.pump_foreground(ctx);
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_job_is_prepared_at_a_time_in_the_order_of_the_line() {
        let mut line = ForegroundLine::default();
        line.push("a");
        line.push("b");
        assert_eq!(line.next(), Some("a"));
        assert_eq!(line.next(), None, "b waits while a is prepared");
        line.done();
        assert_eq!(line.next(), Some("b"));
        line.done();
        assert_eq!(line.next(), None);
    }
}
