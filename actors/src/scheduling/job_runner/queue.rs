//! The limit on background CLIs running at once *(ours, SPEC §16, `bg_fork_limit`)*.
//!
//! A background job takes a slot when its preparation begins (screening, the preamble's facts,
//! skills) and gives it back when its fork stops; a reflection ([`crate::scheduling::reflection`])
//! takes one while its model runs. So the limit bounds every CLI process background work starts:
//! forks and reflections together. A job that finds no free slot waits in line, in fire order,
//! with its run already open in the run log; it is prepared only when it gets a slot, so its
//! preamble tells the budget and schedule as they are then. Reflections wait in a line of their
//! own and start only when no job waits: the next job in line always starts before any
//! reflection, and at most one reflection holds a slot at a time (the reflector writes one at a
//! time; a second would hold a slot only to wait in its mailbox). Foreground jobs and the
//! conversation never wait here.

use std::collections::VecDeque;

use chrono::{DateTime, Utc};

use super::RunJob;
use crate::records::runs::RunTicket;
use crate::scheduling::reflection::Reflect;

/// A background job waiting for a slot.
#[derive(Debug)]
pub(super) struct Waiting {
    /// The job.
    pub run: RunJob,
    /// Its open run.
    pub ticket: RunTicket,
}

/// What a freed slot goes to.
#[derive(Debug)]
pub(super) enum Next<R> {
    /// The next job in line.
    Job(Box<Waiting>),
    /// A reflection, when no job waits.
    Reflection(R),
}

/// The slots and the two lines: jobs, then reflections (`R`, the reflector's ask).
#[derive(Debug)]
pub(super) struct Slots<R = Reflect> {
    /// Slots in use (a job preparing or running, or a reflection being written).
    busy: usize,
    line: VecDeque<Waiting>,
    /// Reflections waiting for a slot, in the order their runs closed.
    reflections: VecDeque<R>,
    /// A reflection holds a slot now.
    reflecting: bool,
}

impl<R> Default for Slots<R> {
    fn default() -> Self {
        Self {
            busy: 0,
            line: VecDeque::new(),
            reflections: VecDeque::new(),
            reflecting: false,
        }
    }
}

impl<R> Slots<R> {
    /// Slots in use.
    pub fn busy(&self) -> usize {
        self.busy
    }

    /// Jobs waiting.
    pub fn waiting(&self) -> usize {
        self.line.len()
    }

    /// Reflections waiting.
    pub fn reflections_waiting(&self) -> usize {
        self.reflections.len()
    }

    /// Takes a slot if one of `limit` is free and no job is waiting ahead (a waiting
    /// reflection never holds a job back).
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

    /// Puts a reflection at the end of its line.
    pub fn wait_reflection(&mut self, reflection: R) {
        self.reflections.push_back(reflection);
    }

    /// The reflection holding a slot is written: its slot is free.
    pub fn reflected(&mut self) {
        self.reflecting = false;
        self.release();
    }

    /// The reflections waiting, taken out of line (the bot is stopping).
    pub fn drop_reflections(&mut self) -> Vec<R> {
        self.reflections.drain(..).collect()
    }

    /// What the next free slot of `limit` goes to, with the slot taken for it: the next job in
    /// line, else — when no reflection holds a slot already — the next reflection.
    pub fn next(&mut self, limit: usize) -> Option<Next<R>> {
        if self.busy >= limit.max(1) {
            return None;
        }
        let next = match self.line.pop_front() {
            Some(job) => Next::Job(Box::new(job)),
            None if self.reflecting => return None,
            None => {
                let reflection = self.reflections.pop_front()?;
                self.reflecting = true;
                Next::Reflection(reflection)
            }
        };
        self.busy += 1;
        Some(next)
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

    /// The job in `next`, by run id (a reflection is a failure).
    fn job(next: Option<Next<&'static str>>) -> String {
        match next {
            Some(Next::Job(w)) => w.ticket.run,
            other => panic!("a job was due, not {other:?}"),
        }
    }

    fn run_log(tmp: &tempfile::TempDir) -> actix::Addr<RunLog> {
        let data = crate::base::data_dir::DataDir::new(tmp.path());
        RunLog::in_data_dir(
            &data,
            crate::base::clock::SystemClock::shared(),
            chrono_tz::UTC,
        )
        .start()
    }

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
        let log = run_log(&tmp);
        let mut slots: Slots<&'static str> = Slots::default();
        assert!(slots.try_take(2));
        assert!(slots.try_take(2));
        assert!(!slots.try_take(2));
        assert_eq!(slots.wait(waiting("a", &log)), 0);
        assert_eq!(slots.wait(waiting("b", &log)), 1);
        assert!(slots.next(2).is_none(), "both slots are busy");
        assert!(!slots.try_take(3), "a newcomer never jumps the line");
        slots.release();
        assert_eq!(job(slots.next(2)), "a");
        assert!(slots.next(2).is_none());
        slots.release();
        slots.release();
        assert_eq!(job(slots.next(1)), "b");
        assert_eq!((slots.busy(), slots.waiting()), (1, 0));
    }

    #[actix_rt::test]
    async fn a_waiting_job_starts_before_a_waiting_reflection_and_reflections_hold_slots() {
        let tmp = tempfile::tempdir().unwrap();
        let log = run_log(&tmp);
        let mut slots: Slots<&'static str> = Slots::default();
        assert!(slots.try_take(1));
        // The fork ends: its reflection waits; the job fired meanwhile was in line before it
        // or comes after it — either way the job goes first.
        slots.wait_reflection("reflect on a");
        assert_eq!(slots.wait(waiting("b", &log)), 0);
        assert!(slots.next(1).is_none(), "the one slot is busy");
        slots.release();
        assert_eq!(
            job(slots.next(1)),
            "b",
            "the waiting job before the reflection"
        );
        assert!(slots.next(1).is_none());
        slots.release();
        assert!(matches!(
            slots.next(1),
            Some(Next::Reflection("reflect on a"))
        ));
        assert_eq!(slots.busy(), 1, "the reflection holds the slot");
        assert!(!slots.try_take(1), "no job starts beside it past the limit");
        slots.reflected();
        assert!(slots.try_take(1), "its slot is free once it is written");
    }

    #[actix_rt::test]
    async fn one_reflection_holds_a_slot_at_a_time_and_a_newcomer_job_takes_a_free_one() {
        let tmp = tempfile::tempdir().unwrap();
        let log = run_log(&tmp);
        let mut slots: Slots<&'static str> = Slots::default();
        slots.wait_reflection("first");
        slots.wait_reflection("second");
        assert!(matches!(slots.next(3), Some(Next::Reflection("first"))));
        assert!(slots.next(3).is_none(), "the second waits for the first");
        assert_eq!(slots.reflections_waiting(), 1);
        assert!(
            slots.try_take(3),
            "waiting reflections never hold a job back"
        );
        assert_eq!(slots.wait(waiting("c", &log)), 0);
        slots.reflected();
        assert_eq!(job(slots.next(3)), "c");
        assert!(matches!(slots.next(3), Some(Next::Reflection("second"))));
        assert_eq!(slots.busy(), 3);
        assert_eq!(slots.drop_reflections(), Vec::<&str>::new());
    }
}
