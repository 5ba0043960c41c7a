//! What the owner asks of the scheduler directly *(ours, SPEC §16)*: run a routine now
//! ([`RunNow`], from `ollim-bot routine run` and the Run now button), pause or resume one
//! ([`SetPaused`], the Pause / Resume buttons: an edit of its file, [`crate::jobs::pause`], as
//! `ollim-bot routine pause` makes), and list the routines with their next fire times
//! ([`Routines`], for `/routines`).

use actix::prelude::*;
use chrono::{DateTime, Utc};

use super::Scheduler;
use crate::jobs::{Job, JobId, Routine};
use crate::records::runs::Trigger;
use crate::scheduling::job_runner::{RunJob, RunOutcome};

/// Runs the routine `id` now, through the job runner, whether or not it is paused.
#[derive(Debug, Clone, Message)]
#[rtype(result = "RunNowOutcome")]
pub struct RunNow {
    /// The routine.
    pub id: JobId,
}

/// What became of a [`RunNow`].
#[derive(Debug)]
pub enum RunNowOutcome {
    /// The runner took it; this is what it did.
    Ran {
        /// The routine.
        routine: Box<Routine>,
        /// Its name for people.
        name: String,
        /// The runner's answer.
        outcome: RunOutcome,
    },
    /// No routine has that id.
    NotFound,
    /// The job runner has stopped.
    RunnerGone,
}

impl RunNowOutcome {
    /// One line for the owner.
    pub fn describe(&self) -> String {
        match self {
            RunNowOutcome::Ran {
                routine,
                name,
                outcome,
            } => {
                let id = &routine.id;
                match outcome {
                    RunOutcome::Handed => format!("running {id} ({name}) in the conversation"),
                    RunOutcome::ForkStarted => format!("started {id} ({name}) in the background"),
                    RunOutcome::Queued { ahead } => format!(
                        "queued {id} ({name}): every background slot is busy, {ahead} job(s) ahead of it"
                    ),
                    RunOutcome::Missed => format!("{id} ({name}) did not run"),
                    RunOutcome::Dropped { .. } => format!("{id} ({name}) was dropped"),
                    RunOutcome::Skipped(skip) => format!("{id} ({name}) skipped: {skip}"),
                    RunOutcome::Blocked(blocked) => {
                        format!("{id} ({name}) skipped: {}", blocked.reason)
                    }
                    RunOutcome::Failed(e) => format!("{id} ({name}) could not run: {e}"),
                }
            }
            RunNowOutcome::NotFound => "no such routine in the running bot".to_owned(),
            RunNowOutcome::RunnerGone => "the job runner has stopped; nothing ran".to_owned(),
        }
    }
}

/// Asks for every routine with its file and next fire time.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Vec<RoutineEntry>")]
pub struct Routines;

/// One routine as the scheduler has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutineEntry {
    /// The routine.
    pub routine: Routine,
    /// Its file, relative to the data directory.
    pub rel_path: String,
    /// When it fires next (`None`: paused, or a cron that never fires again).
    pub next: Option<DateTime<Utc>>,
}

/// Pauses (or resumes) the routine `id`: `paused: true` in its file, or the line removed.
#[derive(Debug, Clone, Message)]
#[rtype(result = "String")]
pub struct SetPaused {
    /// The routine.
    pub id: JobId,
    /// Pause (true) or resume (false).
    pub paused: bool,
}

impl Handler<SetPaused> for Scheduler {
    type Result = String;

    fn handle(&mut self, msg: SetPaused, ctx: &mut Self::Context) -> String {
        use crate::jobs::pause::{set_paused, PauseOutcome};
        let SetPaused { id, paused } = msg;
        let verb = if paused { "pause" } else { "resume" };
        let dir = self.config.data_dir.routines();
        match set_paused(&dir, &id, paused) {
            Ok(PauseOutcome::Changed { routine, path }) => {
                let name = crate::scheduling::fork::background::job_name(
                    &Job::Routine(*routine),
                    &path.to_string_lossy(),
                );
                let data = self.config.data_dir.clone();
                let commit = format!("{verb} routine {id}");
                // git is a subprocess: keep it off the actor's thread.
                std::thread::spawn(move || data.commit(&path, &commit));
                self.reload(ctx);
                tracing::info!(job = %id, paused, "routine paused or resumed, as asked");
                if paused {
                    format!("paused {name} — it stays listed and never fires until resumed.")
                } else {
                    format!("resumed {name}.")
                }
            }
            Ok(PauseOutcome::Already { .. }) if paused => format!("{id} is already paused."),
            Ok(PauseOutcome::Already { .. }) => format!("{id} is not paused."),
            Ok(PauseOutcome::NotFound) => format!("routine {id} not found."),
            Err(e) => {
                tracing::error!(job = %id, cause = %e, "could not {verb} the routine");
                format!("could not {verb} {id}: {e}")
            }
        }
    }
}

impl Handler<RunNow> for Scheduler {
    type Result = ResponseFuture<RunNowOutcome>;

    fn handle(&mut self, msg: RunNow, _ctx: &mut Self::Context) -> Self::Result {
        self.plan.refresh(self.config.clock.now());
        let Some((routine, rel_path)) = self.plan.routine(&msg.id) else {
            return Box::pin(async { RunNowOutcome::NotFound });
        };
        let now = self.config.clock.now();
        let schedule = if routine.settings.background {
            self.plan.forward_items(now)
        } else {
            Vec::new()
        };
        tracing::info!(job = %routine.id, "routine run now, as asked");
        let name = crate::scheduling::fork::background::job_name(
            &Job::Routine(routine.clone()),
            &rel_path,
        );
        let run = RunJob {
            schedule,
            trigger: Trigger::Manual,
            ..RunJob::new(Job::Routine(routine.clone()), rel_path, now, now)
        };
        let runner = self.runner.clone();
        Box::pin(async move {
            match runner.send(run).await {
                Ok(outcome) => RunNowOutcome::Ran {
                    routine: Box::new(routine),
                    name,
                    outcome,
                },
                Err(_) => RunNowOutcome::RunnerGone,
            }
        })
    }
}

impl Handler<Routines> for Scheduler {
    type Result = MessageResult<Routines>;

    fn handle(&mut self, _msg: Routines, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(
            self.plan
                .routines()
                .into_iter()
                .map(|(routine, rel_path, next)| RoutineEntry {
                    routine,
                    rel_path,
                    next,
                })
                .collect(),
        )
    }
}
