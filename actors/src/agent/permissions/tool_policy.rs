//! `tool-policy.yaml` at the data directory's root (SPEC §17, the original's "Customizing tool
//! sets"): tool patterns the owner grants beyond the built-in sets, without a restart.
//!
//! ```yaml
//! main_session:
//!   additional_allowed: ["Bash(git status)"]      # the conversation: main session, forks
//! bg_forks:
//!   additional_allowed: ["Bash(ollim-bot cal *)"] # added to every background fork's set
//!   override: ["Read(./**.md)"]                   # replaces the default background set
//!   allowed_domains: ["api.weather.gov"]          # where background commands may connect
//! ```
//!
//! `allowed_domains` (under either section) is the OS sandbox's network allow-list for that
//! kind of session's commands (SPEC §20): none when absent. A job adds its own with
//! `WebFetch(domain:…)` in its `allowed-tools`.
//!
//! Every key is optional; `override`, when present (even empty), wins over the background
//! `additional_allowed`. Unknown keys are ignored with a log line. The patterns are checked as
//! `allowed-tools` are ([`super::validate`]): the conversation's unsafe ones are dropped (and
//! logged), a background one makes every background job skip ([`super::background`]).
//!
//! [`PolicyFile`] is owned by whoever needs the policy (the job runner, each conversation): it
//! re-reads the file when its modification time or size changes. A file that cannot be read or
//! parsed keeps the policy last read well — a typo never silently widens (or narrows) what the
//! forks get — and is logged once per change; a removed file means no policy.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Deserialize;

use crate::base::data_dir::DataDir;

/// The file's name, at the data directory's root.
pub const FILE_NAME: &str = "tool-policy.yaml";

/// What `tool-policy.yaml` says (patterns as written, not yet validated).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPolicy {
    /// `main_session.additional_allowed`.
    pub main_additional: Vec<String>,
    /// `bg_forks.additional_allowed`.
    pub bg_additional: Vec<String>,
    /// `bg_forks.override`: the background set instead of the default one.
    pub bg_override: Option<Vec<String>>,
    /// `main_session.allowed_domains`: where the conversation's commands may connect.
    pub main_domains: Vec<String>,
    /// `bg_forks.allowed_domains`: where every background job's commands may connect.
    pub bg_domains: Vec<String>,
    /// Keys the file has that mean nothing here (`bg_forks.overide`), for the log and `doctor`.
    pub unknown_keys: Vec<String>,
}

/// Why the file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// It could not be read.
    #[error("{FILE_NAME} could not be read: {0}")]
    Read(#[from] std::io::Error),
    /// It is not the expected YAML.
    #[error("{FILE_NAME} is not valid: {0}")]
    Parse(#[from] serde_yaml::Error),
}

#[derive(Debug, Default, Deserialize)]
struct FileShape {
    #[serde(default)]
    main_session: Option<MainSection>,
    #[serde(default)]
    bg_forks: Option<BgSection>,
    #[serde(flatten)]
    other: BTreeMap<String, serde_yaml::Value>,
}

#[derive(Debug, Default, Deserialize)]
struct MainSection {
    #[serde(default)]
    additional_allowed: Option<Vec<String>>,
    #[serde(default)]
    allowed_domains: Option<Vec<String>>,
    #[serde(flatten)]
    other: BTreeMap<String, serde_yaml::Value>,
}

#[derive(Debug, Default, Deserialize)]
struct BgSection {
    #[serde(default)]
    additional_allowed: Option<Vec<String>>,
    #[serde(default, rename = "override")]
    replacement: Option<Vec<String>>,
    #[serde(default)]
    allowed_domains: Option<Vec<String>>,
    #[serde(flatten)]
    other: BTreeMap<String, serde_yaml::Value>,
}

impl ToolPolicy {
    /// Parses the file's text; an empty file (or one of comments only) is an empty policy.
    pub fn parse(text: &str) -> Result<Self, PolicyError> {
        let value: serde_yaml::Value = serde_yaml::from_str(text)?;
        if value.is_null() {
            return Ok(Self::default());
        }
        let shape: FileShape = serde_yaml::from_value(value)?;
        let main = shape.main_session.unwrap_or_default();
        let bg = shape.bg_forks.unwrap_or_default();
        let unknown_keys = shape
            .other
            .into_keys()
            .chain(main.other.into_keys().map(|k| format!("main_session.{k}")))
            .chain(bg.other.into_keys().map(|k| format!("bg_forks.{k}")))
            .collect();
        Ok(Self {
            main_additional: main.additional_allowed.unwrap_or_default(),
            bg_additional: bg.additional_allowed.unwrap_or_default(),
            bg_override: bg.replacement,
            main_domains: main.allowed_domains.unwrap_or_default(),
            bg_domains: bg.allowed_domains.unwrap_or_default(),
            unknown_keys,
        })
    }

    /// Reads the file in `data`: `Ok(None)` when there is none.
    pub fn read(data: &DataDir) -> Result<Option<Self>, PolicyError> {
        match std::fs::read_to_string(path_in(data)) {
            Ok(text) => Self::parse(&text).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The conversation's additions that are safe to grant (unsafe ones are left out; the
    /// [`PolicyFile`] logs them when it reads the file).
    pub fn main_allowed(&self, data: &DataDir) -> Vec<String> {
        super::validate(&self.main_additional, data).kept
    }
}

/// The file's path in `data`.
pub fn path_in(data: &DataDir) -> PathBuf {
    data.root().join(FILE_NAME)
}

/// What the file looked like when last read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stamp {
    Absent,
    Present { modified: SystemTime, len: u64 },
}

fn stamp(path: &Path) -> std::io::Result<Stamp> {
    match std::fs::metadata(path) {
        Ok(meta) => Ok(Stamp::Present {
            modified: meta.modified()?,
            len: meta.len(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Stamp::Absent),
        Err(e) => Err(e),
    }
}

/// One owner's view of `tool-policy.yaml`: the policy last read well, re-read on change.
#[derive(Debug, Clone)]
pub struct PolicyFile {
    data: DataDir,
    seen: Option<Stamp>,
    policy: ToolPolicy,
}

impl PolicyFile {
    /// The file of `data`, not read yet (the first [`Self::current`] reads it).
    pub fn in_data_dir(data: &DataDir) -> Self {
        Self {
            data: data.clone(),
            seen: None,
            policy: ToolPolicy::default(),
        }
    }

    /// The policy now: the file is read again when it changed since the last look.
    pub fn current(&mut self) -> &ToolPolicy {
        let path = path_in(&self.data);
        let now = match stamp(&path) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(file = %path.display(), cause = %e, "could not look at the tool policy; keeping the one last read");
                return &self.policy;
            }
        };
        if self.seen == Some(now) {
            return &self.policy;
        }
        self.seen = Some(now);
        if now == Stamp::Absent {
            if self.policy != ToolPolicy::default() {
                tracing::info!(file = %path.display(), "the tool policy was removed; the built-in tool sets apply");
            }
            self.policy = ToolPolicy::default();
            return &self.policy;
        }
        match ToolPolicy::read(&self.data) {
            Ok(Some(policy)) => {
                self.note(&policy);
                self.policy = policy;
            }
            Ok(None) => self.policy = ToolPolicy::default(),
            Err(e) => {
                tracing::warn!(file = %path.display(), cause = %e, "the tool policy could not be used; keeping the one last read (fix the file)");
            }
        }
        &self.policy
    }

    /// Logs what a newly read policy says and what is wrong with it.
    fn note(&self, policy: &ToolPolicy) {
        tracing::info!(
            main = policy.main_additional.len(),
            bg = policy.bg_additional.len(),
            replaced = policy.bg_override.is_some(),
            "tool policy read"
        );
        if !policy.unknown_keys.is_empty() {
            tracing::warn!(keys = ?policy.unknown_keys, "the tool policy has keys that mean nothing; ignored");
        }
        super::validate(&policy.main_additional, &self.data)
            .log(&format!("{FILE_NAME} main_session.additional_allowed"));
        if policy.bg_override.is_some() && !policy.bg_additional.is_empty() {
            tracing::warn!(
                "the tool policy sets bg_forks.override, so bg_forks.additional_allowed is ignored"
            );
        }
    }
}

#[cfg(test)]
#[path = "tool_policy_tests.rs"]
mod tests;
