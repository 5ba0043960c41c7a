//! Retries *(ours, issue 28)*: a run whose attempt failed for a passing cause
//! ([`crate::claude::brain::transient`]) runs again after [`RETRY_WAITS`] — 30 s, 2 min, 10 min (and 10 min
//! for any further retry a job's `retries` asks for) — on the injected clock. Each attempt
//! gets a `retrying` line in the run history with its cause; the run log refuses to run again
//! a run that pinged, reported or scheduled a follow-up (the owner saw it: a repeat would be a
//! duplicate), and closes it as failed instead. The failure alert sees only the final outcome.
//!
//! While it waits, the next attempt is an open run (`runs_open.json`): if the bot stops before
//! it comes, the next start runs it again as it runs a run a restart cut off.
//!
//! A reminder whose last attempt fails without reaching the owner is still delivered, as the
//! plain `⏰ …` DM ([`super::plain_reminder`]).

use std::time::Duration;

use actix::prelude::*;

use super::plain_reminder::plain_reminder_text;
use super::records::new_run_id;
use super::{JobRunner, Reopened, RunJob};
use crate::conversation::surface::SurfaceEvent;
use crate::jobs::Job;
use crate::records::runs::{CloseForRetry, Retried, RunEnd, RunTicket};
use crate::scheduling::fork::background::spoken;
use crate::scheduling::reflection::Subject;

/// The waits before the first, second and third retry; later ones wait as long as the last.
pub const RETRY_WAITS: [Duration; 3] = [
    Duration::from_secs(30),
    Duration::from_secs(120),
    Duration::from_secs(600),
];

/// The wait before retry number `retry` (0: the first).
pub fn wait_before(retry: u32) -> Duration {
    let last = RETRY_WAITS.len() - 1;
    RETRY_WAITS[(retry as usize).min(last)]
}

impl JobRunner {
    /// Ends an attempt of `run`: runs it again later when it failed for a passing cause
    /// (`transient`) and may, else closes its run (and hands its reflection on), delivering a
    /// reminder that failed as the plain `⏰ …` DM.
    pub(super) fn end_attempt(
        &mut self,
        run: RunJob,
        ticket: RunTicket,
        mut end: RunEnd,
        transient: Option<String>,
        reflection: Option<Subject>,
        ctx: &mut Context<Self>,
    ) {
        let allowed = run.job.settings().retries;
        let retry = match transient {
            Some(cause) if !self.stopping && end.outcome.is_failure() => {
                if run.retry < allowed && !end.pinged && !end.reported {
                    Some(cause)
                } else {
                    if allowed > 0 && run.retry >= allowed {
                        let error = end.error.take().unwrap_or(cause);
                        end.error = Some(format!("{error} (gave up after {allowed} retries)"));
                    }
                    None
                }
            }
            _ => None,
        };
        let Some(cause) = retry else {
            self.deliver_plain_if_due(&run, &end);
            return self.close_then_reflect(ticket, end, reflection, ctx);
        };
        self.active.remove(&ticket.run);
        self.reflection_dropped(reflection);
        let wait = wait_before(run.retry);
        let next_run = new_run_id();
        let why = format!(
            "{cause} — retry {} of {allowed} in {}",
            run.retry + 1,
            spoken(wait)
        );
        tracing::warn!(job = %run.job.id(), %why, "the run failed for a passing cause; it runs again");
        let msg = CloseForRetry {
            run: ticket.run.clone(),
            end: end.clone(),
            rules: self.alert_rules(),
            why,
            next_run: next_run.clone(),
        };
        let log = ticket.log.clone();
        ctx.spawn(
            async move { log.send(msg).await }
                .into_actor(self)
                .map(move |answer, act, ctx| match answer {
                    Ok(Ok(Retried::Again { .. })) => act.retry_later(run, next_run, wait, ctx),
                    Ok(Ok(Retried::Closed(closed))) => {
                        act.deliver_plain_if_due(&run, &end);
                        if let (Some(alert), Some(notices)) = (&closed.alert, act.notices()) {
                            notices.do_send(SurfaceEvent::Notice(alert.text()));
                        }
                    }
                    Ok(Err(e)) => {
                        tracing::error!(run = %ticket.run, cause = %e, "could not record the retry; the run is not run again");
                        act.deliver_plain_if_due(&run, &end);
                    }
                    Err(e) => {
                        tracing::error!(run = %ticket.run, cause = %e, "the run log has stopped; the run is not run again");
                        act.deliver_plain_if_due(&run, &end);
                    }
                }),
        );
    }

    /// Runs `run` again as `next_run` once `wait` has passed on the clock (not while stopping:
    /// its run stays open for the next start).
    fn retry_later(
        &mut self,
        run: RunJob,
        next_run: String,
        wait: Duration,
        ctx: &mut Context<Self>,
    ) {
        let clock = self.config.clock.clone();
        let wait = chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::minutes(10));
        let at = clock.now() + wait;
        self.counts.retries_waiting += 1;
        ctx.spawn(clock.sleep_until(at).into_actor(self).map(move |(), act, ctx| {
            act.counts.retries_waiting -= 1;
            if act.stopping {
                tracing::info!(job = %run.job.id(), "the bot is stopping; the retry runs at the next start");
                return;
            }
            let again = RunJob {
                fired_at: act.config.clock.now(),
                reopened: Some(Reopened {
                    run: next_run,
                    interrupted_since: None,
                }),
                retry: run.retry + 1,
                late_since: None,
                missed: Vec::new(),
                ..run
            };
            ctx.notify(again);
        }));
    }

    /// A reminder whose run ends failed without a ping or a report still reaches the owner:
    /// as the plain `⏰ …` DM.
    fn deliver_plain_if_due(&self, run: &RunJob, end: &RunEnd) {
        let Job::Reminder(reminder) = &run.job else {
            return;
        };
        if self.stopping || !end.outcome.is_failure() || end.pinged || end.reported {
            return;
        }
        tracing::info!(job = %run.job.id(), "the reminder's run failed; it is delivered plain");
        let background = reminder.settings.background;
        self.deliver_plain(
            &run.job.id().to_string(),
            background,
            plain_reminder_text(reminder),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_wait_half_a_minute_two_minutes_then_ten() {
        let waits: Vec<u64> = (0..5).map(|n| wait_before(n).as_secs()).collect();
        assert_eq!(waits, [30, 120, 600, 600, 600]);
    }
}
