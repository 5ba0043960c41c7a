//! The runtime configuration behind `/config` (SPEC §12), kept in `state/config.json`.
//!
//! The file has the original program's shape, so an existing one loads: a flat JSON object
//! with `model_main`, `model_fork` (a model name or null), `thinking_main`, `thinking_fork`
//! (`"off"`, `"adaptive"` or a budget as a string such as `"8000"`; the original's older
//! `true`/`false` still read as adaptive/off), `bg_fork_timeout` (seconds),
//! `fork_idle_timeout` (minutes), `permission_mode`, `auto_update`, `auto_update_interval`
//! (minutes) and `auto_update_hour`; ours add `bg_fork_limit`, `catch_up_window` (minutes),
//! `failure_alert_after`, `failure_alert_cooldown` (minutes), `quiet_hours` (`"22:00-08:00"`
//! or null) and `main_idle_release` (minutes, 0 = never). Unknown fields are ignored; a field
//! with a value we cannot use falls back to its default with a warning; a file that is not a
//! JSON object is moved aside (see [`crate::state_file`]) and the defaults are used.
//!
//! [`ConfigStore`] is a plain owner (the MainSession actor holds it): `get`, `show_all`, and
//! `set`, which validates, then saves atomically before the new value takes effect.

mod file;
pub mod keys;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::brain::{PermissionMode, Thinking};
use crate::data_dir::DataDir;
use crate::jobs::ModelChoice;
use crate::quiet_hours::QuietHours;
use crate::state_file;

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

    /// Background forks that may run at once (at least one).
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

    /// `key: value`, with ` (default)` when the value is the default.
    pub fn line(&self, key: Key) -> String {
        let value = keys::label(self, key);
        if value == keys::label(&RuntimeConfig::default(), key) {
            format!("{}: {value} (default)", key.name())
        } else {
            format!("{}: {value}", key.name())
        }
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
    /// The new value could not be saved; the old one stays in effect.
    #[error("saving the runtime config: {0}")]
    Save(#[from] state_file::Error),
}

fn key_list() -> String {
    Key::ALL.map(Key::name).join(", ")
}

/// The runtime configuration and the file it lives in.
#[derive(Debug, Clone)]
pub struct ConfigStore {
    path: PathBuf,
    values: RuntimeConfig,
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
        let values = state_file::load_with(
            &path,
            |bytes| file::parse_file(&path, bytes),
            RuntimeConfig::default,
        )?
        .into_value();
        Ok(ConfigStore { path, values })
    }

    /// The current settings.
    pub fn values(&self) -> &RuntimeConfig {
        &self.values
    }

    /// The file this store saves to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// One setting as `key: value`, marked `(default)` when at its default.
    pub fn get(&self, key: &str) -> Result<String, ConfigError> {
        Ok(self.values.line(known_key(key)?))
    }

    /// Every setting, one `key: value` line each, in [`Key::ALL`] order.
    pub fn show_all(&self) -> String {
        Key::ALL.map(|key| self.values.line(key)).join("\n")
    }

    /// Validates `value` for `key`, saves the result atomically, then applies it. Returns the
    /// confirmation shown to the user (`model.main set to opus`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<String, ConfigError> {
        let key = known_key(key)?;
        let mut next = self.values;
        keys::apply(&mut next, key, value).map_err(|()| ConfigError::InvalidValue {
            key: key.name(),
            value: value.to_owned(),
            expected: key.expected(),
        })?;
        state_file::save_json(&self.path, &file::ConfigFile::from(&next))?;
        self.values = next;
        tracing::info!(key = key.name(), value = %keys::label(&next, key), "runtime config changed");
        let line = next.line(key);
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
mod tests {
    use super::*;

    fn store_in(dir: &Path) -> ConfigStore {
        ConfigStore::load(&DataDir::new(dir)).unwrap()
    }

    #[test]
    fn without_a_file_every_setting_is_its_default() {
        let tmp = tempfile::tempdir().unwrap();
        let store = store_in(tmp.path());
        assert_eq!(*store.values(), RuntimeConfig::default());
        assert_eq!(
            store.show_all(),
            "model.main: cli default (default)\n\
             model.fork: same as main (default)\n\
             thinking.main: off (default)\n\
             thinking.fork: adaptive (default)\n\
             bg_fork_timeout: 1800s (default)\n\
             fork_idle_timeout: 10m (default)\n\
             permission_mode: dontAsk (default)\n\
             auto_update: off (default)\n\
             auto_update_interval: 60m (default)\n\
             auto_update_hour: 6:00 (default)\n\
             bg_fork_limit: 3 (default)\n\
             catch_up_window: 120m (default)\n\
             failure_alert_after: 2 (default)\n\
             failure_alert_cooldown: 360m (default)\n\
             quiet_hours: off (default)\n\
             main_idle_release: 30m (default)"
        );
        assert!(!store.path().exists(), "reading must not create the file");
    }

    #[test]
    fn every_key_can_be_set_read_back_and_survives_a_reload() {
        let cases = [
            ("model.main", "Opus", "model.main: opus"),
            ("model.fork", "haiku", "model.fork: haiku"),
            ("thinking.main", "8000", "thinking.main: 8000 tokens"),
            ("thinking.fork", "off", "thinking.fork: off"),
            ("bg_fork_timeout", "3600", "bg_fork_timeout: 3600s"),
            ("fork_idle_timeout", "5", "fork_idle_timeout: 5m"),
            (
                "permission_mode",
                "acceptEdits",
                "permission_mode: acceptEdits",
            ),
            ("auto_update", "on", "auto_update: on"),
            ("auto_update_interval", "30", "auto_update_interval: 30m"),
            ("auto_update_hour", "0", "auto_update_hour: 0:00"),
            ("bg_fork_limit", "1", "bg_fork_limit: 1"),
            ("catch_up_window", "0", "catch_up_window: 0m"),
            ("failure_alert_after", "5", "failure_alert_after: 5"),
            (
                "failure_alert_cooldown",
                "60",
                "failure_alert_cooldown: 60m",
            ),
            ("quiet_hours", "22:00-8:00", "quiet_hours: 22:00-08:00"),
            ("main_idle_release", "0", "main_idle_release: never"),
        ];
        let tmp = tempfile::tempdir().unwrap();
        let mut store = store_in(tmp.path());
        for (key, value, line) in cases {
            let confirmation = store.set(key, value).unwrap();
            assert_eq!(confirmation, line.replacen(": ", " set to ", 1));
            assert_eq!(store.get(key).unwrap(), line);
            assert_eq!(
                store_in(tmp.path()).get(key).unwrap(),
                line,
                "{key} after reload"
            );
        }
        assert!(!store.show_all().contains("(default)"));
    }

    #[test]
    fn setting_a_default_value_again_is_marked_default() {
        let tmp = tempfile::tempdir().unwrap();
        let mut store = store_in(tmp.path());
        store.set("model_main", "sonnet").unwrap();
        assert_eq!(
            store.set("model.main", "default").unwrap(),
            "model.main set to cli default (default)"
        );
        store.set("bg_fork_timeout", "1800").unwrap();
        assert_eq!(
            store.get("bg_fork_timeout").unwrap(),
            "bg_fork_timeout: 1800s (default)"
        );
    }

    #[test]
    fn invalid_values_are_refused_naming_key_and_allowed_values() {
        let tmp = tempfile::tempdir().unwrap();
        let mut store = store_in(tmp.path());
        let cases = [
            ("model.main", "gpt4", "opus, sonnet, haiku or default"),
            ("thinking.main", "maybe", "off, adaptive, or a token budget"),
            ("thinking.fork", "0", "off, adaptive, or a token budget"),
            ("bg_fork_timeout", "0", "from 1 to 86400"),
            ("bg_fork_timeout", "86401", "from 1 to 86400"),
            ("fork_idle_timeout", "-1", "from 1 to 1440"),
            ("auto_update_interval", "99999", "from 1 to 10080"),
            ("thinking.main", "200000", "from 1024 to 128000"),
            (
                "permission_mode",
                "admin",
                "dontAsk, default, acceptEdits or bypassPermissions",
            ),
            ("auto_update", "sometimes", "on or off"),
            ("auto_update_hour", "24", "a whole number from 0 to 23"),
            ("bg_fork_limit", "0", "from 1 to 20"),
            ("catch_up_window", "1h", "from 0 (never) to 10080"),
            ("failure_alert_after", "0", "from 1 to 100"),
            ("failure_alert_cooldown", "-5", "from 0 to 10080"),
            (
                "quiet_hours",
                "22:00",
                "off, or a local window such as 22:00-08:00",
            ),
            (
                "quiet_hours",
                "8:00-8:00",
                "off, or a local window such as 22:00-08:00",
            ),
            ("main_idle_release", "1441", "from 0 (never) to 1440"),
            ("main_idle_release", "-1", "from 0 (never) to 1440"),
        ];
        for (key, value, expected) in cases {
            let err = store.set(key, value).unwrap_err();
            let message = err.to_string();
            assert!(
                message.starts_with(&format!("{key}: {value:?} is not allowed (expected ")),
                "{message}"
            );
            assert!(message.contains(expected), "{message}");
        }
        assert_eq!(*store.values(), RuntimeConfig::default());
        assert!(!store.path().exists(), "a refused value must not be saved");
    }

    #[test]
    fn unknown_key_is_refused_with_the_list_of_keys() {
        let tmp = tempfile::tempdir().unwrap();
        let mut store = store_in(tmp.path());
        let err = store.set("colour", "blue").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown config key \"colour\" (keys: model.main, model.fork, thinking.main, \
             thinking.fork, bg_fork_timeout, fork_idle_timeout, permission_mode, auto_update, \
             auto_update_interval, auto_update_hour, bg_fork_limit, catch_up_window, \
             failure_alert_after, failure_alert_cooldown, quiet_hours, main_idle_release)"
        );
        assert!(matches!(
            store.get("colour"),
            Err(ConfigError::UnknownKey { .. })
        ));
    }

    #[test]
    fn corrupt_file_is_moved_aside_and_defaults_used() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let path = data.state_file(FILE_NAME);
        std::fs::create_dir_all(data.state()).unwrap();
        std::fs::write(&path, "{\"model_main\": ").unwrap();
        let store = ConfigStore::load(&data).unwrap();
        assert_eq!(*store.values(), RuntimeConfig::default());
        assert!(!path.exists());
        let aside: Vec<_> = std::fs::read_dir(data.state())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("config.json.corrupt-"))
            .collect();
        assert_eq!(aside.len(), 1);
    }

    #[test]
    fn durations_and_fork_model_follow_the_settings() {
        let mut config = RuntimeConfig::default();
        assert_eq!(config.main_idle_release(), Some(Duration::from_secs(1800)));
        config.main_idle_release_mins = 0;
        assert_eq!(config.main_idle_release(), None);
        assert_eq!(config.bg_fork_timeout(), Duration::from_secs(1800));
        assert_eq!(config.fork_idle_timeout(), Duration::from_secs(600));
        assert_eq!(config.effective_fork_model(), None);
        config.model_main = Some(ModelChoice::Sonnet);
        assert_eq!(config.effective_fork_model(), Some(ModelChoice::Sonnet));
        config.model_fork = Some(ModelChoice::Haiku);
        assert_eq!(config.effective_fork_model(), Some(ModelChoice::Haiku));
    }
}
