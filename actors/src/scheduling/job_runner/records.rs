//! The runner's side of the run history: a run's entry when it opens, the lines of its missed
//! times, how each kind of end is recorded, and the owner's failure alerts when a run closes.

use actix::prelude::*;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use super::catch_up::MissLine;
use super::{JobRunner, RunJob};
use crate::agent::prompts::job::tag_for;
use crate::conversation::main_session::{JobTurnEnd, JobTurnOutcome};
use crate::conversation::surface::SurfaceEvent;
use crate::jobs::Job;
use crate::records::runs::{
    AlertRules, Close, JobKind, OpenRun, Outcome, RunEnd, RunRecord, RunTicket, Trigger,
};
use crate::scheduling::fork::background::{job_name, ForkEnd, ForkOutcome};
use crate::scheduling::reflection::Subject;

/// A fresh run id.
pub(super) fn new_run_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..12].to_owned()
}

/// The tag's kind as the history writes it (`routine-bg`).
fn tag_kind(job: &Job) -> String {
    let tag = tag_for(job).to_string();
    tag.trim_start_matches('[')
        .split(':')
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The entry opening `run`'s run; `reminder_text` is the reminder's file as it fired.
pub(super) fn open_entry(
    run: &RunJob,
    run_id: &str,
    tz: Tz,
    reminder_text: Option<String>,
) -> OpenRun {
    let local = |t: DateTime<Utc>| t.with_timezone(&tz).fixed_offset();
    OpenRun {
        run: run_id.to_owned(),
        boot: String::new(),
        job: run.job.id().clone(),
        kind: JobKind::of(&run.job),
        tag: tag_kind(&run.job),
        name: job_name(&run.job, &run.rel_path),
        file: run.rel_path.clone(),
        scheduled: local(run.due_at),
        started: local(run.fired_at),
        late_since: run.late_since.map(local),
        trigger: run.trigger,
        attempt: 1,
        retry: run.retry,
        pinged: false,
        followed_up: false,
        reports: Vec::new(),
        reminder: reminder_text,
        payload: matches!(run.job, Job::Webhook(_)).then(|| run.payload.clone()),
    }
}

/// The history lines for `lines`, missed times of `run`'s job noticed at `now`.
pub(super) fn miss_records(
    run: &RunJob,
    lines: &[MissLine],
    now: DateTime<Utc>,
    tz: Tz,
) -> Vec<RunRecord> {
    let local = |t: DateTime<Utc>| t.with_timezone(&tz).fixed_offset();
    lines
        .iter()
        .map(|line| RunRecord {
            run: new_run_id(),
            job: run.job.id().clone(),
            kind: JobKind::of(&run.job),
            tag: tag_kind(&run.job),
            name: job_name(&run.job, &run.rel_path),
            file: run.rel_path.clone(),
            scheduled: local(line.scheduled),
            started: None,
            ended: local(now),
            outcome: line.outcome,
            pinged: false,
            reported: false,
            cost_usd: None,
            turns: None,
            error: None,
            late_since: None,
            trigger: Trigger::Schedule,
            alerted: false,
            count: line.count,
            session: None,
        })
        .collect()
}

/// A line for a run that ended before it could open (its owner had stopped).
pub(super) fn unopened_record(
    run: &RunJob,
    outcome: Outcome,
    error: String,
    now: DateTime<Utc>,
    tz: Tz,
) -> RunRecord {
    let entry = open_entry(run, &new_run_id(), tz, None);
    RunRecord {
        run: entry.run,
        job: entry.job,
        kind: entry.kind,
        tag: entry.tag,
        name: entry.name,
        file: entry.file,
        scheduled: entry.scheduled,
        started: Some(entry.started),
        ended: now.with_timezone(&tz).fixed_offset(),
        outcome,
        pinged: false,
        reported: false,
        cost_usd: None,
        turns: None,
        error: Some(error),
        late_since: entry.late_since,
        trigger: entry.trigger,
        alerted: false,
        count: None,
        session: None,
    }
}

/// How a background fork's end is recorded.
pub(super) fn fork_end(end: ForkEnd) -> RunEnd {
    RunEnd {
        outcome: match end.outcome {
            ForkOutcome::Completed => Outcome::Ok,
            ForkOutcome::Failed => Outcome::Failed,
            ForkOutcome::TimedOut => Outcome::TimedOut,
            ForkOutcome::OverBudget => Outcome::OverBudget,
        },
        cost_usd: end.cost_usd,
        turns: end.turns,
        error: end.error,
        pinged: end.pinged,
        reported: end.reported,
        session: end.session,
    }
}

/// How a foreground job's turn is recorded; `None` when the turn was dropped because the bot
/// is stopping (the run stays open and runs again after the restart).
pub(super) fn turn_end(end: JobTurnEnd, stopping: bool) -> Option<RunEnd> {
    let outcome = match end.outcome {
        JobTurnOutcome::Completed => Outcome::Ok,
        JobTurnOutcome::Failed => Outcome::Failed,
        JobTurnOutcome::Interrupted => Outcome::Interrupted,
        JobTurnOutcome::Dropped if stopping => return None,
        JobTurnOutcome::Dropped => Outcome::Failed,
    };
    Some(RunEnd {
        outcome,
        cost_usd: end.cost_usd,
        turns: end.turns,
        error: end.error,
        pinged: false,
        reported: false,
        session: None,
    })
}

impl JobRunner {
    /// The rules failure alerts follow now.
    pub(super) fn alert_rules(&self) -> AlertRules {
        AlertRules {
            after: self.settings.failure_alert_after,
            cooldown: self.settings.failure_alert_cooldown(),
        }
    }

    /// Closes `ticket`'s run with `end`, telling the owner the alert it brings, if any. While
    /// the bot stops, a run that did not complete stays open: the next start runs it again.
    pub(super) fn close_run(&mut self, ticket: RunTicket, end: RunEnd, ctx: &mut Context<Self>) {
        self.close_then_reflect(ticket, end, None, ctx);
    }

    /// Closes the run as [`Self::close_run`] does, then, when `subject` is given (a background
    /// fork of a job that reflects), hands its line to the reflector.
    pub(super) fn close_then_reflect(
        &mut self,
        ticket: RunTicket,
        end: RunEnd,
        subject: Option<Subject>,
        ctx: &mut Context<Self>,
    ) {
        self.active.remove(&ticket.run);
        if self.stopping && end.outcome != Outcome::Ok {
            tracing::info!(run = %ticket.run, "the bot is stopping; the run stays open to run again");
            return self.reflection_dropped(subject);
        }
        let close = Close {
            run: ticket.run.clone(),
            end,
            rules: self.alert_rules(),
            successor: None,
        };
        let notices = self.notices();
        ctx.spawn(
            async move {
                match ticket.log.send(close).await {
                    Ok(Ok(closed)) => {
                        if let (Some(alert), Some(notices)) = (&closed.alert, notices) {
                            notices.do_send(SurfaceEvent::Notice(alert.text()));
                        }
                        Some(closed)
                    }
                    Ok(Err(e)) => {
                        tracing::error!(run = %ticket.run, cause = %e, "could not close the run");
                        None
                    }
                    Err(e) => {
                        tracing::error!(run = %ticket.run, cause = %e, "the run log has stopped; run not closed");
                        None
                    }
                }
            }
            .into_actor(self)
            .map(move |closed, act, ctx| act.reflect(subject, closed, ctx)),
        );
    }
}
