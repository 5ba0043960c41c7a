//! The limit on background forks running at once *(ours, SPEC §16, `bg_fork_limit`)*.
//!
//! A background job takes a slot when its preparation begins (screening, the preamble's facts,
//! skills) and gives it back when its fork stops, so the limit bounds the CLI processes the jobs
//! start. A job that finds no free slot waits in line, in fire order, with its run already open
//! in the run log; it is prepared only when it gets a slot, so its preamble tells the budget and
//! schedule as they are then. Foreground jobs and the conversation never wait here.

use std::collections::VecDeque;

use chrono::{DateTime, Utc};

use super::RunJob;
use crate::records::runs::RunTicket;

/// A background job waiting for a slot.
#[derive(Debug)]
pub(super) struct Waiting {
    /// The job.
    pub run: RunJob,
    /// Its open run.
    pub ticket: RunTicket,
}

/// The slots and the line.
#[derive(Debug, Default)]
pub(super) struct Slots {
    /// Slots in use (preparing or running).
    busy: usize,
    line: VecDeque<Waiting>,
}

impl Slots {
    /// Slots in use.
    pub fn busy(&self) -> usize {
        self.busy
    }

    /// Jobs waiting.
    pub fn waiting(&self) -> usize {
        self.line.len()
    }

    /// Takes a slot if one of `limit` is free and nobody is waiting ahead.
    pub fn try_take(&mut self, limit: usize) -> bool {
        if self.busy < limit.max(1) && self.line.is_empty() {
            self.busy += 1;
            true
        } else {
            false
        }
    }

    /// Puts `job` at the end of the line; answers how many wait ahead of it.
    pub fn wait(&mut self, job: Waiting) -> usize {
        self.line.push_back(job);
        self.line.len() - 1
    }

    /// Gives a slot back.
    pub fn release(&mut self) {
        self.busy = self.busy.saturating_sub(1);
    }

    /// The next job in line, with a slot taken for it, if one of `limit` is free.
    pub fn next(&mut self, limit: usize) -> Option<Waiting> {
        if self.busy >= limit.max(1) {
            return None;
        }
        let job = self.line.pop_front()?;
        self.busy += 1;
        Some(job)
    }

    /// The jobs waiting, in order: id, file, and since when.
    pub fn line(&self) -> impl Iterator<Item = (&RunJob, DateTime<Utc>)> {
        self.line.iter().map(|w| (&w.run, w.run.fired_at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{Job, JobId, JobSettings, WebhookJob};
    use crate::records::runs::RunLog;
    use actix::Actor;

    fn waiting(id: &str, log: &actix::Addr<RunLog>) -> Waiting {
        let job = Job::Webhook(WebhookJob {
            id: JobId(id.into()),
            message: String::new(),
            settings: JobSettings::default(),
        });
        let now = Utc::now();
        Waiting {
            run: RunJob::new(job, format!("webhooks/{id}.md"), now, now),
            ticket: RunTicket {
                run: id.into(),
                log: log.clone(),
            },
        }
    }

    #[actix_rt::test]
    async fn jobs_past_the_limit_wait_in_fire_order_and_start_as_slots_free() {
        let tmp = tempfile::tempdir().unwrap();
        let data = crate::base::data_dir::DataDir::new(tmp.path());
        let log = RunLog::in_data_dir(
            &data,
            crate::base::clock::SystemClock::shared(),
            chrono_tz::UTC,
        )
        .start();
        let mut slots = Slots::default();
        assert!(slots.try_take(2));
        assert!(slots.try_take(2));
        assert!(!slots.try_take(2));
        assert_eq!(slots.wait(waiting("a", &log)), 0);
        assert_eq!(slots.wait(waiting("b", &log)), 1);
        assert!(slots.next(2).is_none(), "both slots are busy");
        assert!(!slots.try_take(3), "a newcomer never jumps the line");
        slots.release();
        assert_eq!(slots.next(2).unwrap().ticket.run, "a");
        assert!(slots.next(2).is_none());
        slots.release();
        slots.release();
        assert_eq!(slots.next(1).unwrap().ticket.run, "b");
        assert_eq!((slots.busy(), slots.waiting()), (1, 0));
    }
}
