//! From a fired job to a running one: the catch-up decision, opening the run (before a
//! reminder's file goes), then the conversation for a foreground job, a slot or the line for a
//! background one; starting each fork, and closing its run when it stops.

use actix::prelude::*;

use super::foreground::InLine;
use super::queue::{Next, Waiting};
use super::records::{self, fork_end, miss_records, open_entry, turn_end};
use super::{
    catch_up, prepare, ActiveState, BackgroundSetup, Delivery, JobRunner, RunError, RunJob,
    RunOutcome,
};
use crate::conversation::main_session::{FireJob, ForkTimeout, MainSession};
use crate::jobs::{reminder, Job};
use crate::records::runs::{Open, Outcome, Record, RunEnd, RunTicket};
use crate::records::sessions::MainSessionFile;
use crate::scheduling::fork::background::{BackgroundFork, BackgroundJob, RunBounds};

type Answer = ResponseActFuture<JobRunner, RunOutcome>;

fn ready(outcome: RunOutcome) -> Answer {
    Box::pin(fut::ready(outcome))
}

/// How a run that stopped while being prepared is recorded.
fn prepared_end(outcome: &RunOutcome) -> RunEnd {
    match outcome {
        RunOutcome::Dropped { flagged } => RunEnd::bare(
            Outcome::Skipped,
            Some(format!("screening flagged {}", flagged.join(", "))),
        ),
        RunOutcome::Skipped(skip) => RunEnd::bare(Outcome::Skipped, Some(skip.to_string())),
        RunOutcome::Blocked(blocked) => {
            RunEnd::bare(Outcome::Skipped, Some(blocked.reason.clone()))
        }
        RunOutcome::Failed(e) => RunEnd::bare(Outcome::Failed, Some(e.to_string())),
        _ => RunEnd::bare(Outcome::Failed, None),
    }
}

impl JobRunner {
    /// Decides whether `run` still runs, opens its run, and hands it on.
    pub(super) fn begin(&mut self, run: RunJob, ctx: &mut Context<Self>) -> Answer {
        let decision = catch_up::decide(&run, self.settings.catch_up_window());
        if !decision.lines.is_empty() {
            let now = self.config.clock.now();
            let lines = miss_records(&run, &decision.lines, now, self.config.tz);
            self.config.runs.do_send(Record(lines));
        }
        if !decision.run {
            tracing::info!(job = %run.job.id(), late_since = ?run.late_since, "routine missed its catch-up window; not run");
            return ready(RunOutcome::Missed);
        }
        let log = self.config.runs.clone();
        if let Some(reopened) = run.reopened.clone() {
            let ticket = RunTicket {
                run: reopened.run,
                log,
            };
            return self.dispatch(run, ticket, ctx);
        }
        let run_id = records::new_run_id();
        let file = self.config.data_dir.root().join(&run.rel_path);
        let reminder_text = match &run.job {
            Job::Reminder(r) => {
                Some(std::fs::read_to_string(&file).unwrap_or_else(|_| reminder::to_markdown(r)))
            }
            _ => None,
        };
        let entry = open_entry(&run, &run_id, self.config.tz, reminder_text);
        let ticket = RunTicket {
            run: run_id,
            log: log.clone(),
        };
        Box::pin(
            async move { log.send(Open(entry)).await }
                .into_actor(self)
                .then(move |opened, act, ctx| {
                    match opened {
                        Ok(Ok(())) => {}
                        Ok(Err(e)) => {
                            tracing::error!(job = %run.job.id(), cause = %e, "could not record the run's start; running it anyway")
                        }
                        Err(e) => {
                            tracing::error!(job = %run.job.id(), cause = %e, "the run log has stopped; running the job unrecorded")
                        }
                    }
                    if let Job::Reminder(r) = &run.job {
                        act.delete_reminder_file(&file, r.id.as_str());
                    }
                    act.dispatch(run, ticket, ctx)
                }),
        )
    }

    /// Deletes a fired reminder's file (its run is recorded already) and commits that.
    fn delete_reminder_file(&self, path: &std::path::Path, id: &str) {
        match std::fs::remove_file(path) {
            Ok(()) => {
                let data = self.config.data_dir.clone();
                let path = path.to_path_buf();
                let msg = format!("fired reminder {id}");
                // git is a subprocess: keep it off the actor's thread.
                std::thread::spawn(move || data.commit(&path, &msg));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::error!(file = %path.display(), reminder = %id, cause = %e, "could not delete a fired reminder; it will not fire again in this run");
            }
        }
    }

    /// Hands an opened run on: a background job to a slot or the line, everything else to the
    /// conversation (or the recipient).
    fn dispatch(&mut self, run: RunJob, ticket: RunTicket, ctx: &mut Context<Self>) -> Answer {
        let background = run.job.settings().background;
        match self.config.delivery.clone() {
            Delivery::Conversation { main, forks } if background => {
                if self.session_in_use(&run) {
                    let outcome = RunOutcome::Skipped(super::Skip {
                        job: run.job.id().to_string(),
                        why: super::SkipReason::SessionInUse,
                    });
                    self.close_run(ticket, prepared_end(&outcome), ctx);
                    return ready(outcome);
                }
                if self.slots.try_take(self.settings.bg_fork_limit()) {
                    self.note_active(&ticket.run, &run, ActiveState::Running);
                    return self.start_background(run, ticket, *forks, main);
                }
                self.note_active(&ticket.run, &run, ActiveState::Waiting);
                tracing::info!(job = %run.job.id(), busy = self.slots.busy(), "every background slot is taken; the job waits");
                let ahead = self.slots.wait(Waiting { run, ticket });
                self.pump(ctx);
                ready(RunOutcome::Queued { ahead })
            }
            Delivery::Conversation { .. } => {
                // A foreground job: prepared and handed on in fire order (`foreground`).
                self.note_active(&ticket.run, &run, ActiveState::Running);
                let job = run.job.id().to_string();
                let (answer, handed) = tokio::sync::oneshot::channel();
                self.foreground.push(InLine {
                    run,
                    ticket,
                    answer,
                });
                self.pump_foreground(ctx);
                Box::pin(
                    async move {
                        handed
                            .await
                            .unwrap_or(RunOutcome::Failed(RunError::ActorGone {
                                actor: "job_runner",
                                job,
                            }))
                    }
                    .into_actor(self),
                )
            }
            delivery => {
                self.note_active(&ticket.run, &run, ActiveState::Running);
                self.run_as_turn(run, ticket, delivery)
            }
        }
    }

    /// A persistent routine whose previous run is still running or waiting: one session is
    /// never resumed twice at once.
    fn session_in_use(&self, run: &RunJob) -> bool {
        let persistent = matches!(&run.job, Job::Routine(r)
            if r.session == crate::jobs::session_mode::SessionMode::Persistent);
        persistent && self.active.values().any(|a| a.job.job == *run.job.id())
    }

    /// Prepares a foreground job (or any job, for a recipient) and hands it over as a turn; its
    /// run closes when the turn ends.
    pub(super) fn run_as_turn(
        &mut self,
        run: RunJob,
        ticket: RunTicket,
        delivery: Delivery,
    ) -> Answer {
        let again = run.clone();
        Box::pin(
            prepare::prepare(self.prepare_inputs(), run)
                .into_actor(self)
                .map(move |prepared, act, ctx| {
                    let fired = match prepared {
                        Ok(prepared) => prepared.fired,
                        Err(outcome) => {
                            act.close_run(ticket, prepared_end(&outcome), ctx);
                            return outcome;
                        }
                    };
                    let job = fired.job.id().to_string();
                    let (request, actor) = match delivery {
                        Delivery::Conversation { main, .. } => {
                            (main.recipient().send(fired), "main_session")
                        }
                        Delivery::Recipient { jobs, .. } => (jobs.send(fired), "job recipient"),
                    };
                    ctx.spawn(request.into_actor(act).map(move |end, act, ctx| {
                        let end = match end {
                            Ok(end) => {
                                let transient = end.transient.clone();
                                turn_end(end, act.stopping).map(|end| (end, transient))
                            }
                            Err(_) if act.stopping => None,
                            Err(_) => Some((
                                RunEnd::bare(
                                    Outcome::Failed,
                                    Some(format!(
                                        "the {actor} actor stopped before the turn ended"
                                    )),
                                ),
                                None,
                            )),
                        };
                        match end {
                            Some((end, transient)) => {
                                act.end_attempt(again, ticket, end, transient, None, ctx)
                            }
                            None => {
                                act.active.remove(&ticket.run);
                                tracing::info!(%job, "the bot is stopping; the job's run stays open");
                            }
                        }
                    }));
                    RunOutcome::Handed
                }),
        )
    }

    /// Prepares a background job in the slot it holds and starts its fork. A job that stops
    /// before its fork starts (dropped by screening, an owner gone) closes its run and frees
    /// the slot here.
    fn start_background(
        &mut self,
        run: RunJob,
        ticket: RunTicket,
        setup: BackgroundSetup,
        main: Addr<MainSession>,
    ) -> Answer {
        let unstarted = ticket.clone();
        let again = run.clone();
        Box::pin(
            prepare::prepare(self.prepare_inputs(), run)
                .into_actor(self)
                .then(move |prepared, act, _ctx| -> Answer {
                    let (fired, rules, bounds) = match prepared {
                        Ok(prepare::Prepared {
                            fired,
                            rules: Some(rules),
                            bounds,
                        }) => (fired, rules, bounds),
                        Ok(prepare::Prepared {
                            fired, rules: None, ..
                        }) => {
                            // Preparing a background job always makes its rules.
                            return ready(RunOutcome::Failed(RunError::NoToolRules {
                                job: fired.job.id().to_string(),
                            }));
                        }
                        Err(outcome) => return ready(outcome),
                    };
                    let job = fired.job.id().to_string();
                    Box::pin(
                        async move { main.send(ForkTimeout).await }
                            .into_actor(act)
                            .map(move |timeout, act, ctx| match timeout {
                                Ok(timeout) => {
                                    let limits = (rules, bounds);
                                    let attempt = (ticket, again);
                                    act.start_fork(setup, fired, limits, timeout, attempt, ctx);
                                    RunOutcome::ForkStarted
                                }
                                Err(_) => RunOutcome::Failed(RunError::ActorGone {
                                    actor: "main_session",
                                    job,
                                }),
                            }),
                    )
                })
                .map(move |outcome, act, ctx| {
                    if !matches!(outcome, RunOutcome::ForkStarted) {
                        act.close_run(unstarted, prepared_end(&outcome), ctx);
                        act.slots.release();
                        act.pump(ctx);
                    }
                    outcome
                }),
        )
    }

    /// Starts the fork for `fired`, branching from the saved main session; when its actor
    /// stops, its run closes, its slot frees and the next job in line starts — and then, when
    /// the job reflects, its reflection waits for a slot behind any waiting job.
    fn start_fork(
        &mut self,
        setup: BackgroundSetup,
        fired: FireJob,
        (rules, limits): (crate::agent::tools::BackgroundRules, RunBounds),
        timeout: std::time::Duration,
        (ticket, again): (RunTicket, RunJob),
        ctx: &mut Context<Self>,
    ) {
        // Only a session the CLI has written can be forked: before the first turn, isolate.
        let parent = MainSessionFile::in_data_dir(&self.config.data_dir)
            .load()
            .unwrap_or_else(|e| {
                tracing::warn!(cause = %e, "could not read the saved main session id; running isolated");
                None
            });
        let mut config = setup.config;
        config.timeout = timeout;
        let reflection = crate::scheduling::reflection::Subject::of(&fired.job, timeout);
        let job = BackgroundJob {
            job: fired.job,
            prompt: fired.prompt,
            rel_path: fired.rel_path,
            run: Some(ticket.clone()),
            rules,
            limits,
        };
        let (done, ended) = tokio::sync::oneshot::channel();
        BackgroundFork::new(config, setup.peers, job, parent, done).start();
        ctx.spawn(ended.into_actor(self).map(move |end, act, ctx| {
            act.counts.forks_finished += 1;
            act.reflection_due(&reflection);
            act.slots.release();
            match end {
                Ok(end) => {
                    tracing::debug!(outcome = ?end.outcome, "background fork ended");
                    let transient = end.transient.clone();
                    act.end_attempt(again, ticket, fork_end(end), transient, reflection, ctx);
                }
                Err(_) if act.stopping => {
                    act.active.remove(&ticket.run);
                    act.reflection_dropped(reflection);
                }
                Err(_) => {
                    let end = RunEnd::bare(
                        Outcome::Failed,
                        Some("the fork went away without a word".to_owned()),
                    );
                    act.close_then_reflect(ticket, end, reflection, ctx);
                }
            }
            act.pump(ctx);
        }));
    }

    /// Starts waiting jobs while slots are free, then waiting reflections.
    pub(super) fn pump(&mut self, ctx: &mut Context<Self>) {
        let Delivery::Conversation { main, forks } = self.config.delivery.clone() else {
            return;
        };
        if self.stopping {
            return;
        }
        while let Some(next) = self.slots.next(self.settings.bg_fork_limit()) {
            let Waiting { run, ticket } = match next {
                Next::Job(waiting) => *waiting,
                Next::Reflection(ask) => {
                    self.start_reflection(ask, ctx);
                    continue;
                }
            };
            tracing::info!(job = %run.job.id(), "a background slot is free; the job starts");
            if let Some(active) = self.active.get_mut(&ticket.run) {
                active.state = ActiveState::Running;
                active.job.since = self.config.clock.now();
            }
            let started = self.start_background(run, ticket, (*forks).clone(), main.clone());
            ctx.spawn(started.map(|outcome, act, _ctx| act.count(&outcome)));
        }
    }
}
