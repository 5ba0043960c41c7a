//! How a run that the runner hands on ends up counted: every [`RunOutcome`] goes through
//! [`JobRunner::count`], the one place a skipped or blocked run is logged and, when the agent
//! should know (a job blocked by its skills, its subagent or an unsafe tool pattern), told to it
//! through the pending updates.

use super::{Blocked, JobRunner, RunOutcome, Skip, SkipReason};

impl JobRunner {
    /// The one place a skipped run is counted and logged (its run is closed as `skipped`
    /// where the preparation stopped); a routine or reminder blocked by its skills also tells
    /// the agent, through the pending updates.
    fn report_skipped(&mut self, skip: &Skip) {
        self.counts.skipped += 1;
        match &skip.why {
            SkipReason::Gate { gate, closed } => tracing::info!(
                job = %skip.job,
                gate = %gate,
                code = ?closed.code,
                said = ?closed.said,
                "job skipped: its gate said no"
            ),
            SkipReason::Skills(blocked) => {
                tracing::warn!(job = %skip.job, reason = %blocked, "job skipped: blocked by its skills");
                self.tell_agent(&skip.job, blocked.update.clone());
            }
            SkipReason::SpendLimit {
                notice,
                plain,
                background,
            } => {
                tracing::warn!(job = %skip.job, "job skipped: a spend cap is reached");
                self.spend_held_back(&skip.job, notice, plain.as_deref(), *background);
            }
            SkipReason::Subagent { name, update } => {
                tracing::warn!(job = %skip.job, subagent = %name, "job skipped: its subagent does not exist");
                self.tell_agent(&skip.job, update.clone());
            }
            SkipReason::SessionInUse => tracing::info!(
                job = %skip.job,
                "job skipped: its previous run still holds its persistent session"
            ),
        }
    }

    /// A job held back by a spend cap: a reminder goes out as its plain DM, and the owner
    /// hears why once per local day.
    fn spend_held_back(&mut self, job: &str, notice: &str, plain: Option<&str>, background: bool) {
        let Some(surface) = self.notices() else {
            tracing::warn!(%job, plain = ?plain, "no conversation here: the owner is not told");
            return;
        };
        if let Some(text) = plain {
            self.deliver_plain(job, background, text.to_owned());
        }
        let today = self
            .config
            .clock
            .now()
            .with_timezone(&self.config.tz)
            .date_naive();
        if self.spend_noticed != Some(today) {
            self.spend_noticed = Some(today);
            surface.do_send(crate::conversation::surface::SurfaceEvent::Notice(
                notice.to_owned(),
            ));
        }
    }

    /// Appends `update` (when there is one) to the pending updates, for the agent.
    fn tell_agent(&self, job: &str, update: Option<String>) {
        let Some(message) = update else {
            return;
        };
        match self.pending() {
            Some(pending) => pending.do_send(crate::records::pending_updates::Append { message }),
            None => {
                tracing::warn!(%job, update = %message, "no pending updates here; the agent is not told")
            }
        }
    }

    /// The one place a blocked run is counted, logged and told to the agent (its run is closed
    /// as `skipped` where the preparation stopped).
    fn report_blocked(&mut self, blocked: &Blocked) {
        self.counts.skipped += 1;
        tracing::warn!(job = %blocked.job.id(), file = %blocked.file, reason = %blocked.reason, "job skipped: it must not run as written");
        match self.pending() {
            Some(pending) => pending.do_send(crate::records::pending_updates::Append {
                message: blocked.update(),
            }),
            None => {
                tracing::warn!(job = %blocked.job.id(), "no conversation here: the agent is not told")
            }
        }
    }

    pub(super) fn count(&mut self, outcome: &RunOutcome) {
        let counts = &mut self.counts;
        match outcome {
            RunOutcome::Handed => counts.handed += 1,
            RunOutcome::ForkStarted => counts.forks_started += 1,
            RunOutcome::Queued { .. } => {}
            RunOutcome::Missed => counts.missed += 1,
            RunOutcome::Dropped { .. } => counts.dropped += 1,
            RunOutcome::Skipped(skip) => self.report_skipped(skip),
            RunOutcome::Blocked(blocked) => self.report_blocked(blocked),
            RunOutcome::Failed(e) => {
                counts.failed += 1;
                tracing::error!(cause = %e, "job did not run");
            }
        }
    }
}
