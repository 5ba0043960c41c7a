//! Updating the bot in place (SPEC §12 `/update`, §16 auto-update): the steps
//! ([`steps`]: `git fetch`, the newest `v*` tag, `git merge --ff-only <tag>`, the build command),
//! when the timer looks ([`schedule`]) and the timer itself ([`timer`]). `/update` runs the
//! same steps on demand. A built update ends in a restart: `restarting` goes into the session
//! history, then the binary runs again in the same process.
//!
//! The build command is `cargo build --release --bin ollim-bot`, or `OLLIM_BUILD_COMMAND` (run
//! with `sh -c` in the checkout), for installs that rebuild differently.

pub mod quiet;
pub mod schedule;
pub mod steps;
pub mod timer;

use std::path::PathBuf;

use chrono_tz::Tz;
use ollim_actors::base::clock::SystemClock;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::records::sessions::{EventKind, MainSessionFile, SessionHistory};

pub use steps::{Checkout, Outcome, StepError};

/// What an update tells the surface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A line for the owner.
    Say(String),
    /// Restart now (the binary was rebuilt), for this reason.
    Restart(String),
}

/// Said when there is no checkout to update.
pub const NO_CHECKOUT: &str = "can't find the project's git checkout; set OLLIM_PROJECT_DIR to it.";

/// `<what>: `<command>` returned <code>`, with the end of its output when there was some.
pub fn failure_text(what: &str, e: &StepError) -> String {
    if e.output.trim().is_empty() {
        format!("{what}: {e}")
    } else {
        format!("{what}: {e}\n```\n{}\n```", e.output.trim())
    }
}

/// The checkout this binary updates from, with the build command and the running commit:
/// `OLLIM_PROJECT_DIR`, else the directory holding `Cargo.toml` and `.git` above the
/// executable; `None` when there is neither.
pub fn checkout_from_env() -> Option<Checkout> {
    let explicit = std::env::var_os("OLLIM_PROJECT_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let exe = crate::own_path::own_exe()?;
    let dir = steps::find_checkout(explicit, &exe)?;
    let build = std::env::var(steps::BUILD_VAR)
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| steps::DEFAULT_BUILD.to_owned());
    let running = Some(env!("OLLIM_GIT_COMMIT").to_owned()).filter(|c| c != "unknown");
    Some(Checkout {
        dir,
        build,
        running,
    })
}

/// Records `restarting` for the main session in the session history (before a re-execution).
/// Runs after the actor system has stopped, so the file's owner (the session records actor) is
/// gone and this is its only writer.
pub fn record_restarting(data: &DataDir, tz: Tz) {
    let session = match MainSessionFile::in_data_dir(data).load() {
        Ok(Some(id)) => id,
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(cause = %e, "could not read the session id to record the restart");
            return;
        }
    };
    let history = SessionHistory::in_data_dir(data, SystemClock::shared(), tz);
    if let Err(e) = history.append(EventKind::Restarting, &session, None) {
        tracing::warn!(cause = %e, "could not record the restart in the session history");
    }
}
