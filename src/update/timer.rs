//! The auto-update timer (SPEC §12, §16): with `auto_update` on, it looks every
//! `auto_update_interval` minutes and acts only within `auto_update_hour` (local). Acting means:
//! if nothing is running (no answer being written, no fork open, no background fork), run the update steps;
//! new commits built → announce them and ask for a restart; a failed step → say which, keep
//! running, and try again the next day. Busy → try again a minute later.
//!
//! It reads the settings from the conversation each time, so `/config` changes apply at once.
//! Time goes through the injectable clock, so the tests move it by hand.

use actix::Recipient;
use chrono::Duration;
use chrono_tz::Tz;
use ollim_actors::base::clock::SharedClock;
use ollim_actors::conversation::main_session::quiet::RuntimeSettings;
use tokio::sync::mpsc;

use super::quiet::Quiet;
use super::schedule::{in_window, next_check, next_window_start};
use super::steps::{Checkout, Outcome};
use super::{failure_text, Note, NO_CHECKOUT};

/// How soon a postponed update is tried again.
pub const RETRY_BUSY: Duration = Duration::minutes(1);
/// The longest time between two looks.
const MAX_INTERVAL: Duration = Duration::days(1);

/// What the timer needs.
pub struct Timer {
    /// The clock.
    pub clock: SharedClock,
    /// The zone of `auto_update_hour`.
    pub tz: Tz,
    /// The checkout to update (`None`: none was found).
    pub checkout: Option<Checkout>,
    /// Asked before anything is done, and again before the restart.
    pub quiet: Quiet,
    /// Where the settings come from.
    pub settings: Recipient<RuntimeSettings>,
    /// What the owner should read, and the restart request.
    pub out: mpsc::UnboundedSender<Note>,
}

/// How one look ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Looked {
    /// Nothing to do now; look again after the interval.
    Again,
    /// Busy: look again soon.
    Postponed,
    /// It failed: leave it until tomorrow's hour.
    Failed,
    /// A restart was asked for: the timer's work is done.
    Restarting,
}

impl Timer {
    /// Runs until a restart is asked for or the conversation is gone.
    pub async fn run(self) {
        loop {
            let Ok(settings) = self.settings.send(RuntimeSettings).await else {
                tracing::debug!("the conversation is gone; the auto-update timer stops");
                return;
            };
            let now = self.clock.now();
            let hour = settings.auto_update_hour;
            // A hand-edited config may hold anything: more than a day between looks is a day.
            let interval = i64::try_from(settings.auto_update_interval_mins)
                .ok()
                .and_then(Duration::try_minutes)
                .map_or(MAX_INTERVAL, |i| i.min(MAX_INTERVAL));
            let looked = if settings.auto_update && in_window(now, hour, self.tz) {
                self.look().await
            } else {
                Looked::Again
            };
            let now = self.clock.now();
            let next = match looked {
                Looked::Restarting => return,
                Looked::Again => next_check(now, interval, hour, self.tz),
                Looked::Postponed => next_check(now, interval.min(RETRY_BUSY), hour, self.tz),
                Looked::Failed => next_window_start(now, hour, self.tz),
            };
            self.clock.sleep_until(next).await;
        }
    }

    async fn is_quiet(&self) -> bool {
        self.quiet.check().await
    }

    async fn look(&self) -> Looked {
        if !self.is_quiet().await {
            tracing::info!("auto-update postponed: an answer is being written or a fork is open");
            return Looked::Postponed;
        }
        let Some(checkout) = &self.checkout else {
            self.say(format!("auto-update failed: {NO_CHECKOUT}"));
            return Looked::Failed;
        };
        match checkout.update().await {
            Outcome::UpToDate => {
                tracing::info!("auto-update: already up to date");
                Looked::Again
            }
            Outcome::Failed(e) => {
                tracing::warn!(step = %e, output = %e.output, "auto-update failed");
                self.say(failure_text("auto-update failed", &e));
                Looked::Failed
            }
            Outcome::Built(built) => {
                // The build took a while: wait for quiet again before cutting anything short.
                while !self.is_quiet().await {
                    let soon = self.clock.now() + RETRY_BUSY;
                    self.clock.sleep_until(soon).await;
                }
                tracing::info!(
                    commits = built.subjects.len(),
                    "auto-update built; restarting"
                );
                self.say(built.announcement());
                let _ = self.out.send(Note::Restart("auto-update installed".into()));
                Looked::Restarting
            }
        }
    }

    fn say(&self, text: String) {
        let _ = self.out.send(Note::Say(text));
    }
}

/// Starts the timer on the current runtime.
pub fn spawn(timer: Timer) -> tokio::task::JoinHandle<()> {
    tokio::spawn(timer.run())
}

#[cfg(test)]
#[path = "timer_tests.rs"]
mod tests;
