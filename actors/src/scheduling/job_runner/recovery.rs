//! Runs an earlier start of the bot left open (SPEC §16, issue 17): a crash, `kill -9`, a
//! power cut or a restart cut them off. At its start the runner takes them from the run log and
//! settles each one, so no job is lost without a word:
//!
//! 1. A report the run was delivering is looked up in the pending updates and appended if it
//!    is not there (it was written to the run's entry first, so it is never lost or doubled).
//! 2. A reminder whose file is still there never started: it fires from its file.
//! 3. A run that already pinged, reported or scheduled a follow-up is not run again (that would
//!    repeat what the owner saw); the owner is told it was cut off.
//! 4. A run that was itself a re-run is not run a third time; the owner is told.
//! 5. Otherwise the job runs again, once, marked `[interrupted: …]`: the reminder from the copy
//!    of its file kept in the entry, the routine and the webhook spec from disk (the payload
//!    from the entry). A job that can no longer be built is told to the owner.
//!
//! The cut-off run gets an `interrupted` line; a re-run replaces its entry in the same write.

use actix::prelude::*;
use chrono::Utc;

use super::records::new_run_id;
use super::{Delivery, JobRunner, Reopened, RunJob};
use crate::agent::webhook_screen::free_form_fields;
use crate::conversation::surface::SurfaceEvent;
use crate::jobs::{reminder, store, Job, Routine};
use crate::records::pending_updates::{Append, Peek, PendingUpdates};
use crate::records::runs::{Close, OpenRun, Outcome, RunEnd, TakeInterrupted, Trigger};

/// What to do with one cut-off run.
enum Settle {
    /// Close it with this end; tell the owner this, if anything.
    Close(RunEnd, Option<String>),
    /// Run the job again.
    Rerun(Box<RunJob>, Box<OpenRun>),
}

impl JobRunner {
    /// Where updates for the agent go (none without a conversation).
    pub(super) fn pending(&self) -> Option<Addr<PendingUpdates>> {
        match &self.config.delivery {
            Delivery::Conversation { forks, .. } => Some(forks.peers.pending.clone()),
            Delivery::Recipient { .. } => None,
        }
    }

    /// Takes the runs an earlier start left open and settles each.
    pub(super) fn recover(&mut self, ctx: &mut Context<Self>) {
        let log = self.config.runs.clone();
        ctx.spawn(
            async move { log.send(TakeInterrupted).await.unwrap_or_default() }
                .into_actor(self)
                .map(|runs, act, ctx| {
                    if !runs.is_empty() {
                        tracing::warn!(
                            runs = runs.len(),
                            "runs were cut off when the bot last stopped"
                        );
                    }
                    for run in runs {
                        act.settle(run, ctx);
                    }
                }),
        );
    }

    fn settle(&mut self, mut run: OpenRun, ctx: &mut Context<Self>) {
        let pending = self.pending();
        let reports = std::mem::take(&mut run.reports);
        ctx.spawn(
            async move {
                let mut reported = false;
                for report in reports {
                    reported |=
                        deliver_once(pending.as_ref(), &report.message, report.delivered).await;
                }
                (run, reported)
            }
            .into_actor(self)
            .map(|(run, reported), act, ctx| {
                let decision = act.decide(&run, reported);
                act.apply(run, decision, ctx);
            }),
        );
    }

    fn decide(&self, run: &OpenRun, reported: bool) -> Settle {
        let interrupted = |error: String, notice: Option<String>| {
            let mut end = RunEnd::bare(Outcome::Interrupted, Some(error));
            end.pinged = run.pinged;
            end.reported = reported;
            Settle::Close(end, notice)
        };
        let data = &self.config.data_dir;
        if run.reminder.is_some()
            && matches!(
                store::find_path(&data.reminders(), run.job.as_str()),
                Ok(Some(_))
            )
        {
            return interrupted(
                "cut off before it started; it fires from its file".into(),
                None,
            );
        }
        let name = &run.name;
        if run.pinged || reported || run.followed_up {
            let what = if reported {
                "reported back"
            } else if run.pinged {
                "pinged you"
            } else {
                "scheduled a follow-up"
            };
            return interrupted(
                format!("cut off by a restart after it had {what}"),
                Some(format!(
                    "-# {name} was cut off by a restart after it had {what}; not running it again."
                )),
            );
        }
        if run.attempt >= 2 {
            return interrupted(
                "cut off by a restart again".into(),
                Some(format!(
                    "-# {name} was cut off by a restart twice; not running it a third time."
                )),
            );
        }
        match self.rebuild(run) {
            Ok(job) => {
                let now = self.config.clock.now();
                let mut next = run.clone();
                next.run = new_run_id();
                next.attempt = run.attempt + 1;
                next.started = now.with_timezone(&self.config.tz).fixed_offset();
                next.trigger = Trigger::Rerun;
                next.pinged = false;
                next.followed_up = false;
                next.reports.clear();
                let screen = match (&job, &run.payload) {
                    (Job::Webhook(_), Some(payload)) => {
                        crate::jobs::webhook_spec::find_spec(&data.webhooks(), run.job.as_str())
                            .ok()
                            .flatten()
                            .map(|spec| free_form_fields(&spec, payload))
                            .unwrap_or_default()
                    }
                    _ => Vec::new(),
                };
                let rerun = RunJob {
                    late_since: run.late_since.map(|t| t.with_timezone(&Utc)),
                    payload: run.payload.clone().unwrap_or_default(),
                    screen,
                    trigger: Trigger::Rerun,
                    reopened: Some(Reopened {
                        run: next.run.clone(),
                        interrupted_since: Some(run.started.with_timezone(&Utc)),
                    }),
                    retry: run.retry,
                    ..RunJob::new(
                        job,
                        run.file.clone(),
                        run.scheduled.with_timezone(&Utc),
                        now,
                    )
                };
                Settle::Rerun(Box::new(rerun), Box::new(next))
            }
            Err(why) => interrupted(
                format!("cut off by a restart; could not run again: {why}"),
                Some(format!(
                    "-# {name} was cut off by a restart and could not run again: {why}."
                )),
            ),
        }
    }

    /// The job as it should run again, or why it cannot.
    fn rebuild(&self, run: &OpenRun) -> Result<Job, String> {
        let data = &self.config.data_dir;
        if let Some(text) = &run.reminder {
            return reminder::parse_in(text, self.config.tz)
                .map(Job::Reminder)
                .map_err(|e| format!("its saved copy does not read ({e})"));
        }
        if run.payload.is_some() {
            return match crate::jobs::webhook_spec::find_spec(&data.webhooks(), run.job.as_str()) {
                Ok(Some(spec)) => Ok(spec.job()),
                Ok(None) => Err("its webhook spec is gone".into()),
                Err(e) => Err(format!("its webhook spec does not read ({e})")),
            };
        }
        let routines = store::load_dir::<Routine>(&data.routines())
            .map_err(|e| format!("the routines do not read ({e})"))?;
        routines
            .items
            .into_iter()
            .map(|(_, r)| r)
            .find(|r| r.id == run.job)
            .map(Job::Routine)
            .ok_or_else(|| "its routine file is gone".into())
    }

    fn apply(&mut self, run: OpenRun, decision: Settle, ctx: &mut Context<Self>) {
        let log = self.config.runs.clone();
        let notices = self.notices();
        let (end, notice, rerun, successor) = match decision {
            Settle::Close(end, notice) => (end, notice, None, None),
            Settle::Rerun(job, next) => (
                RunEnd::bare(
                    Outcome::Interrupted,
                    Some("cut off by a restart; running it again".into()),
                ),
                None,
                Some(*job),
                Some(*next),
            ),
        };
        tracing::info!(run = %run.run, job = %run.job, again = rerun.is_some(), "settling a run cut off by a restart");
        let close = Close {
            run: run.run.clone(),
            end,
            rules: self.alert_rules(),
            successor,
        };
        ctx.spawn(async move { log.send(close).await }.into_actor(self).map(
            move |closed, _act, ctx| {
                match closed {
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => {
                        tracing::error!(run = %run.run, cause = %e, "could not close a cut-off run")
                    }
                    Err(e) => {
                        tracing::error!(run = %run.run, cause = %e, "the run log has stopped; a cut-off run stays open")
                    }
                }
                if let Some(text) = notice {
                    match &notices {
                        Some(n) => n.do_send(SurfaceEvent::Notice(text)),
                        None => tracing::warn!(notice = %text, "nobody to tell"),
                    }
                }
                if let Some(job) = rerun {
                    ctx.notify(job);
                }
            },
        ));
    }
}

/// Makes sure `message` is in the pending updates once: appended unless it is already there.
/// Answers whether the report reached them.
async fn deliver_once(
    pending: Option<&Addr<PendingUpdates>>,
    message: &str,
    delivered: bool,
) -> bool {
    if delivered {
        return true;
    }
    let Some(pending) = pending else {
        return false;
    };
    let (stored, _) = crate::records::pending_updates::queue::bound_message(message.to_owned());
    match pending.send(Peek).await {
        Ok(queued) if queued.iter().any(|u| u.message == stored) => true,
        Ok(_) => {
            tracing::warn!("a report cut off by a restart is delivered now");
            pending
                .send(Append {
                    message: message.to_owned(),
                })
                .await
                .is_ok()
        }
        Err(e) => {
            tracing::error!(cause = %e, "the pending updates have stopped; a cut-off report is lost");
            false
        }
    }
}
