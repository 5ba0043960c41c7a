//! The runtime configuration behind `/config` (SPEC §12), kept in `state/config.json`.
//!
//! The file has the original program's shape, so an existing one loads: a flat JSON object
//! with `model_main`, `model_fork` (a model name or null), `thinking_main`, `thinking_fork`
//! (`"off"`, `"adaptive"` or a budget as a string such as `"8000"`; the original's older
//! `true`/`false` still read as adaptive/off), `bg_fork_timeout` (seconds),
//! `fork_idle_timeout` (minutes), `permission_mode`, `auto_update`, `auto_update_interval`
//! (minutes) and `auto_update_hour`; ours add `bg_fork_limit`, `catch_up_window` (minutes),
//! `failure_alert_after`, `failure_alert_cooldown` (minutes), `quiet_hours` (`"22:00-08:00"`
//! or null), `main_idle_release` (minutes, 0 = never), `memory_flush` (bool) and
//! `memory_flush_at` (percent), `sandbox` (auto, on, off: SPEC §20); the original's later `google_calendars`
//! (comma-separated calendar ids) and `google_task_list` (see [`google`]); and the spend keys
//! `spend_daily_usd`, `spend_monthly_usd`, `job_max_cost` (dollars as numbers, null = off) and
//! `job_max_turns` ([`spend_keys`]). Unknown fields are ignored; a field
//! with a value we cannot use falls back to its default with a warning; a file that is not a
//! JSON object is moved aside (see [`crate::base::state_file`]) and the defaults are used.
//!
//! [`ConfigStore`] is a plain owner (the MainSession actor holds it): `get`, `show_all`, and
//! `set`, which validates, then saves atomically before the new value takes effect.

mod choices;
mod file;
pub mod google;
pub mod keys;
pub mod spend_keys;
mod values;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::base::data_dir::DataDir;
use crate::base::state_file;
use crate::claude::brain::{PermissionMode, Thinking};
use crate::jobs::ModelChoice;
use crate::records::quiet_hours::QuietHours;

pub use choices::ValueChoice;
pub use google::GoogleTargets;
pub use keys::Key;

/// The file's name inside `state/`.
pub const FILE_NAME: &str = "config.json";

/// The settings themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeConfig {
    /// Main session model; `None` lets the CLI choose.
    pub model_main: Option<ModelChoice>,
    /// Interactive fork model; `None` means the main session's.
    pub model_fork: Option<ModelChoice>,
    /// Thinking in the main session (default off).
    pub thinking_main: Thinking,
    /// Thinking in interactive forks (default adaptive).
    pub thinking_fork: Thinking,
    /// Longest a background fork may run, in seconds (default 1800).
    pub bg_fork_timeout_secs: u64,
    /// Minutes of idleness before an interactive fork is nudged (default 10).
    pub fork_idle_timeout_mins: u64,
    /// Default permission mode (default `dontAsk`).
    pub permission_mode: PermissionMode,
    /// Whether updates are pulled and applied by themselves (default off).
    pub auto_update: bool,
    /// Minutes between update checks (default 60).
    pub auto_update_interval_mins: u64,
    /// Hour of the day, 0-23, at which updates are applied (default 6).
    pub auto_update_hour: u8,
    /// Background forks running at once (default 3); later ones wait in fire order.
    pub bg_fork_limit: u64,
    /// Minutes a missed routine time may still run late (default 120; 0 = never).
    pub catch_up_window_mins: u64,
    /// Failed or timed-out runs of one job in a row before the owner is told (default 2).
    pub failure_alert_after: u64,
    /// Minutes after a failure alert before the same job alerts again (default 360).
    pub failure_alert_cooldown_mins: u64,
    /// Local window in which background pings are refused unless critical (default off).
    pub quiet_hours: Option<QuietHours>,
    /// Minutes of an idle conversation after which its CLI process is closed, to be resumed on
    /// the next message (default 30; 0 = never).
    pub main_idle_release_mins: u64,
    /// *(ours, SPEC §19)* What unattended jobs may spend per local day, in cents (default
    /// $10.00; `None`: no cap).
    pub spend_daily_cents: Option<u64>,
    /// The same per calendar month (default off).
    pub spend_monthly_cents: Option<u64>,
    /// One run's cost limit, in cents, for jobs without `max-cost` (default $1.00).
    pub job_max_cost_cents: u64,
    /// One run's model turns, for jobs without `max-turns` (default 40).
    pub job_max_turns: u64,
    /// Whether the conversation gets the silent `[memory-flush]` turn before `/clear`,
    /// `/compact` and at `memory_flush_at` (default on).
    pub memory_flush: bool,
    /// `sandbox`: the OS sandbox for the agent's commands (SPEC §20).
    pub sandbox: crate::claude::sandbox::SandboxSetting,
    /// The share of the model's window, in percent, past which the conversation flushes once
    /// (default 70).
    pub memory_flush_at_pct: u64,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            model_main: None,
            model_fork: None,
            thinking_main: Thinking::Disabled,
            thinking_fork: Thinking::Adaptive,
            bg_fork_timeout_secs: 1800,
            fork_idle_timeout_mins: 10,
            permission_mode: PermissionMode::DontAsk,
            auto_update: false,
            auto_update_interval_mins: 60,
            auto_update_hour: 6,
            bg_fork_limit: 3,
            catch_up_window_mins: 120,
            failure_alert_after: 2,
            failure_alert_cooldown_mins: 360,
            quiet_hours: None,
            main_idle_release_mins: 30,
            spend_daily_cents: Some(1000),
            spend_monthly_cents: None,
            job_max_cost_cents: 100,
            job_max_turns: 40,
            memory_flush: true,
            sandbox: crate::claude::sandbox::SandboxSetting::Auto,
            memory_flush_at_pct: 70,
        }
    }
}

impl RuntimeConfig {
    /// The background fork time limit.
    pub fn bg_fork_timeout(&self) -> Duration {
        Duration::from_secs(self.bg_fork_timeout_secs)
    }

    /// The interactive fork idle timeout.
    pub fn fork_idle_timeout(&self) -> Duration {
        Duration::from_secs(self.fork_idle_timeout_mins.saturating_mul(60))
    }

    /// How late a missed routine time may still run (zero: never).
    pub fn catch_up_window(&self) -> chrono::Duration {
        chrono::Duration::minutes(i64::try_from(self.catch_up_window_mins).unwrap_or(0))
    }

    /// Quiet time after a failure alert.
    pub fn failure_alert_cooldown(&self) -> chrono::Duration {
        chrono::Duration::minutes(i64::try_from(self.failure_alert_cooldown_mins).unwrap_or(0))
    }

    /// Background CLIs (forks, reflections) that may run at once (at least one).
    pub fn bg_fork_limit(&self) -> usize {
        usize::try_from(self.bg_fork_limit).unwrap_or(1).max(1)
    }

    /// How long the conversation may sit idle before its CLI process is closed; `None`: never.
    pub fn main_idle_release(&self) -> Option<Duration> {
        (self.main_idle_release_mins > 0)
            .then(|| Duration::from_secs(self.main_idle_release_mins.saturating_mul(60)))
    }

    /// The model interactive forks use: their own, else the main session's.
    pub fn effective_fork_model(&self) -> Option<ModelChoice> {
        self.model_fork.or(self.model_main)
    }
}

/// `key: value`, with ` (default)` when the value is the default.
fn line(config: &RuntimeConfig, google: &GoogleTargets, key: Key) -> String {
    let value = keys::label(config, google, key);
    if value == keys::label(&RuntimeConfig::default(), &GoogleTargets::default(), key) {
        format!("{}: {value} (default)", key.name())
    } else {
        format!("{}: {value}", key.name())
    }
}

/// Why `/config` could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// No such key.
    #[error("unknown config key {key:?} (keys: {})", key_list())]
    UnknownKey {
        /// What was typed.
        key: String,
    },
    /// The key does not accept the value.
    #[error("{key}: {value:?} is not allowed (expected {expected})")]
    InvalidValue {
        /// The key's name.
        key: &'static str,
        /// What was typed.
        value: String,
        /// What the key accepts.
        expected: &'static str,
    },
    /// The new value could not be saved; the old one stays in effect (in memory too).
    #[error("{}", state_file::NotSaved::from(.0))]
    Save(#[from] state_file::Error),
}

/// The `sandbox` setting as `state/config.json` of `data` says now, read without touching the
/// file (a file that cannot be read says `auto`). For those who start CLIs beside the actor
/// that owns the file — a background job as it starts, `doctor`.
pub fn sandbox_setting_in(data: &DataDir) -> crate::claude::sandbox::SandboxSetting {
    std::fs::read(data.state_file(FILE_NAME))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|v| {
            v.get(Key::Sandbox.name())?
                .as_str()
                .and_then(crate::claude::sandbox::SandboxSetting::parse)
        })
        .unwrap_or_default()
}

fn key_list() -> String {
    Key::ALL.map(Key::name).join(", ")
}

/// The runtime configuration and the file it lives in.
#[derive(Debug, Clone)]
pub struct ConfigStore {
    path: PathBuf,
    values: RuntimeConfig,
    google: GoogleTargets,
}

impl ConfigStore {
    /// Reads `state/config.json` of `data` (see [`ConfigStore::load_from`]).
    pub fn load(data: &DataDir) -> Result<Self, state_file::Error> {
        Self::load_from(data.state_file(FILE_NAME))
    }

    /// Reads the file at `path`: missing gives the defaults; not a JSON object is moved
    /// aside and gives the defaults; unusable fields take their defaults.
    pub fn load_from(path: impl Into<PathBuf>) -> Result<Self, state_file::Error> {
        let path = path.into();
        let (values, google) = state_file::load_with(
            &path,
            |bytes| file::parse_file(&path, bytes),
            || (RuntimeConfig::default(), GoogleTargets::default()),
        )?
        .into_value();
        Ok(ConfigStore {
            path,
            values,
            google,
        })
    }

    /// The current settings.
    pub fn values(&self) -> &RuntimeConfig {
        &self.values
    }

    /// The Google keys (`google_calendars`, `google_task_list`).
    pub fn google(&self) -> &GoogleTargets {
        &self.google
    }

    /// The file this store saves to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// One setting as `key: value`, marked `(default)` when at its default.
    pub fn get(&self, key: &str) -> Result<String, ConfigError> {
        Ok(line(&self.values, &self.google, known_key(key)?))
    }

    /// Every setting, one `key: value — what it accepts` line each, in [`Key::ALL`] order
    /// (the original shows each key's valid values too).
    pub fn show_all(&self) -> String {
        Key::ALL
            .map(|key| {
                format!(
                    "{} — {}",
                    line(&self.values, &self.google, key),
                    key.expected()
                )
            })
            .join("\n")
    }

    /// Validates `value` for `key`, saves the result atomically, then applies it. Returns the
    /// confirmation shown to the user (`model.main set to opus`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<String, ConfigError> {
        let key = known_key(key)?;
        let mut next = self.values;
        let mut google = self.google.clone();
        keys::apply(&mut next, &mut google, key, value).map_err(|()| {
            ConfigError::InvalidValue {
                key: key.name(),
                value: value.to_owned(),
                expected: key.expected(),
            }
        })?;
        state_file::save_json(&self.path, &file::ConfigFile::new(&next, &google))?;
        self.values = next;
        self.google = google;
        let line = line(&self.values, &self.google, key);
        tracing::info!(key = key.name(), %line, "runtime config changed");
        let shown = line
            .strip_prefix(key.name())
            .and_then(|rest| rest.strip_prefix(": "))
            .unwrap_or(&line);
        Ok(format!("{} set to {shown}", key.name()))
    }
}

fn known_key(key: &str) -> Result<Key, ConfigError> {
    Key::from_name(key).ok_or_else(|| ConfigError::UnknownKey {
        key: key.to_owned(),
    })
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
