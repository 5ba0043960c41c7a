//! Routines, reminders and webhook specs: the jobs, as the domain sees them (SPEC §3), with the
//! schedule language and the skills they load. Files and rules only; no actor lives here.
//!
//! On disk each job is a markdown file with YAML frontmatter; this module holds the validated
//! types every other part uses.
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`frontmatter`] | splitting, parsing and writing markdown with YAML frontmatter |
//! | [`routine`], [`reminder`] | the two job files read and written back |
//! | [`settings_file`], [`yaml_scalars`] | the keys both share, and forgiving readers for their values |
//! | [`slug`], [`entry`], [`store`] | file names, which entries are job files, a whole directory |
//! | [`duplicates`] | which of two files with one id is the job |
//! | [`new_reminder`] | a new reminder's rules, for the command line and the agent's tool |
//! | [`validate`] | what the routine validator says about a file's text |
//! | [`migrate`] | the one migration reminder files need |
//! | [`catch_up`], [`gate`], [`pause`], [`retries`], [`run_limits`], [`session_mode`] | one key each |
//! | [`cron`] | five-field cron schedules: the scheduler's timers, the validator's check |
//! | [`skills`] | `skills/<name>/SKILL.md`, instructions jobs load by name |
//! | [`subagent_binding`] | binding a job to a subagent |
//! | [`webhook_spec`], [`webhook_auth`] | webhook specs, and how a hook proves who sent it |

pub mod catch_up;
pub mod cron;
pub mod duplicates;
pub mod entry;
pub mod frontmatter;
pub mod gate;
pub mod migrate;
pub mod new_reminder;
pub mod pause;
pub mod reminder;
pub mod retries;
pub mod routine;
pub mod run_limits;
pub mod session_mode;
pub mod settings_file;
pub mod skills;
pub mod slug;
pub mod store;
pub mod subagent_binding;
pub mod validate;
pub mod webhook_auth;
pub mod webhook_spec;
pub mod yaml_scalars;

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, FixedOffset};

/// When a background job reports back to the main session (`update-main-session`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UpdateMode {
    /// Must call `report_updates` before finishing.
    Always,
    /// Must report if it pinged or sent an embed (the default).
    #[default]
    OnPing,
    /// Reporting is optional.
    Freely,
    /// Reporting tools are removed.
    Blocked,
}

impl UpdateMode {
    /// Every mode, in the order the CLI lists them.
    pub const ALL: [UpdateMode; 4] = [
        UpdateMode::Always,
        UpdateMode::OnPing,
        UpdateMode::Freely,
        UpdateMode::Blocked,
    ];

    /// The on-disk spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            UpdateMode::Always => "always",
            UpdateMode::OnPing => "on_ping",
            UpdateMode::Freely => "freely",
            UpdateMode::Blocked => "blocked",
        }
    }
}

impl fmt::Display for UpdateMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for UpdateMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        UpdateMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s || m.as_str().replace('_', "-") == s)
            .ok_or_else(|| {
                format!("unknown update-main-session mode {s:?} (expected always, on_ping, freely or blocked)")
            })
    }
}

/// A model override for background jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelChoice {
    /// The most capable model.
    Opus,
    /// The balanced model.
    Sonnet,
    /// The small, fast model.
    Haiku,
}

impl ModelChoice {
    /// Every choice.
    pub const ALL: [ModelChoice; 3] = [ModelChoice::Opus, ModelChoice::Sonnet, ModelChoice::Haiku];

    /// The on-disk and CLI spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelChoice::Opus => "opus",
            ModelChoice::Sonnet => "sonnet",
            ModelChoice::Haiku => "haiku",
        }
    }
}

impl fmt::Display for ModelChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ModelChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ModelChoice::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| format!("unknown model {s:?} (expected opus, sonnet or haiku)"))
    }
}

/// A job's id: 8 lowercase hex characters when we make it. Read from outside (a file, the
/// command line, a URL) it must pass [`JobId::parse`].
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct JobId(pub String);

/// The longest id accepted.
pub const MAX_ID_CHARS: usize = 64;

/// Why an id from outside was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadId {
    /// Empty or only spaces.
    #[error("`id` is empty")]
    Empty,
    /// Characters an id may not hold (`../../x`), or too long.
    #[error("`id` {0:?} is not a valid id: up to 64 letters, digits, '-', '_' or '.', starting with a letter or digit")]
    Invalid(String),
}

impl JobId {
    /// A fresh random id (8 hex characters, as the original makes them).
    pub fn random() -> Self {
        JobId(uuid::Uuid::new_v4().simple().to_string()[..8].to_owned())
    }

    /// An id from outside: 1 to [`MAX_ID_CHARS`] ASCII letters, digits, `-`, `_` or `.`,
    /// starting with a letter or digit. The original's ids (8 hex) and hand-named webhook ids
    /// (`github-ci`) pass; `../../x`, spaces, slashes and control characters do not.
    pub fn parse(text: &str) -> Result<JobId, BadId> {
        if text.trim().is_empty() {
            return Err(BadId::Empty);
        }
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
        let valid = text.len() <= MAX_ID_CHARS
            && text.starts_with(|c: char| c.is_ascii_alphanumeric())
            && text.chars().all(allowed);
        if valid {
            Ok(JobId(text.to_owned()))
        } else {
            Err(BadId::Invalid(text.to_owned()))
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The settings routines and reminders share (everything except when they fire).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSettings {
    /// Run in a background fork instead of the main session.
    pub background: bool,
    /// Model override (background only).
    pub model: Option<ModelChoice>,
    /// Extended thinking on (background only; default true).
    pub thinking: bool,
    /// Fresh session instead of a fork of the main one (background only).
    pub isolated: bool,
    /// Short summary shown in listings and the forward schedule ("" = use the message).
    pub description: String,
    /// Reporting mode (background only).
    pub update_main_session: UpdateMode,
    /// Whether `ping_user` / `discord_embed` are available (background only; default true).
    pub allow_ping: bool,
    /// Tool patterns a background job may use beyond the default set (`None` = none beyond it).
    pub allowed_tools: Option<Vec<String>>,
    /// Skills whose instructions are loaded into the prompt.
    pub skills: Option<Vec<String>>,
    /// Whether a reflection is written after a background run (`reflect`, default true; SPEC §17).
    pub reflect: bool,
    /// The subagent the job must delegate its work to (`subagent`; SPEC §17).
    pub subagent: Option<String>,
    /// *(ours)* A command run before the model is woken: exit 0 runs the job with its output,
    /// anything else skips the run (`None`: always run).
    pub gate: Option<gate::Gate>,
    /// *(ours)* Runs again after a passing failure (`retries`, default 3; [`retries`]).
    pub retries: u32,
    /// *(ours, SPEC §19)* `max-cost` and `max-turns`: this job's bounds on one run.
    pub limits: run_limits::RunLimits,
}

impl Default for JobSettings {
    fn default() -> Self {
        Self {
            background: false,
            model: None,
            thinking: true,
            isolated: false,
            description: String::new(),
            update_main_session: UpdateMode::OnPing,
            allow_ping: true,
            allowed_tools: None,
            skills: None,
            reflect: true,
            subagent: None,
            gate: None,
            retries: retries::DEFAULT_RETRIES,
            limits: run_limits::RunLimits::default(),
        }
    }
}

/// A recurring, cron-scheduled prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Routine {
    /// The authoritative id (from the YAML, not the file name).
    pub id: JobId,
    /// The prompt (the markdown body).
    pub message: String,
    /// The five-field cron expression as written.
    pub cron: String,
    /// Shared settings.
    pub settings: JobSettings,
    /// *(ours)* Listed but never fired while true (`paused: true`; written only when true, so
    /// the original still reads every file it could read before).
    pub paused: bool,
    /// *(ours)* How late a missed fire time may still run (`catch-up`).
    pub catch_up: catch_up::CatchUp,
    /// Which session its fires run in (`session`, SPEC §18).
    pub session: session_mode::SessionMode,
}

/// A one-shot prompt at a given time, optionally one link of a follow-up chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reminder {
    /// The authoritative id (from the YAML, not the file name).
    pub id: JobId,
    /// The prompt (the markdown body).
    pub message: String,
    /// When it fires.
    pub run_at: DateTime<FixedOffset>,
    /// `run-at` exactly as read from disk, so a rewrite keeps the original bytes.
    pub run_at_raw: String,
    /// This link's position in its chain (0 = the root).
    pub chain_depth: u32,
    /// How many follow-ups the chain may have (0 = a plain reminder).
    pub max_chain: u32,
    /// The chain root's id (a chain root carries its own id).
    pub chain_parent: Option<String>,
    /// Shared settings.
    pub settings: JobSettings,
    /// `background` as the file wrote it, if it did: a rewrite keeps a key the original wrote
    /// when its value has not changed (its earlier releases wrote `background: true`).
    pub background_as_read: Option<bool>,
}

impl Reminder {
    /// Whether this reminder may still schedule a follow-up link.
    pub fn can_follow_up(&self) -> bool {
        self.max_chain > 0 && self.chain_depth < self.max_chain
    }
}

/// Either kind of job, as the scheduler fires it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// A recurring job.
    Routine(Routine),
    /// A one-shot job.
    Reminder(Reminder),
    /// An accepted webhook request, run as a background job with its spec's settings.
    Webhook(WebhookJob),
}

/// What a webhook spec contributes to a job: its id, template and settings (always background).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookJob {
    /// The spec's id (the one in `/hook/<id>`).
    pub id: JobId,
    /// The spec's prompt template.
    pub message: String,
    /// The spec's settings; `background` is always true.
    pub settings: JobSettings,
}

impl Job {
    /// The job's id.
    pub fn id(&self) -> &JobId {
        match self {
            Job::Routine(r) => &r.id,
            Job::Reminder(r) => &r.id,
            Job::Webhook(w) => &w.id,
        }
    }

    /// The job's prompt.
    pub fn message(&self) -> &str {
        match self {
            Job::Routine(r) => &r.message,
            Job::Reminder(r) => &r.message,
            Job::Webhook(w) => &w.message,
        }
    }

    /// The job's settings.
    pub fn settings(&self) -> &JobSettings {
        match self {
            Job::Routine(r) => &r.settings,
            Job::Reminder(r) => &r.settings,
            Job::Webhook(w) => &w.settings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_outside_are_letters_digits_and_a_few_marks() {
        for good in ["a1b2c3d4", "github-ci", "daily_digest", "v1.2", "X"] {
            assert_eq!(JobId::parse(good), Ok(JobId(good.to_owned())), "{good}");
        }
        assert_eq!(JobId::parse("  "), Err(BadId::Empty));
        let too_long = "a".repeat(MAX_ID_CHARS + 1);
        for bad in [
            "../../x", "..", ".hidden", "a/b", "a b", "a\nb", "-x", &too_long,
        ] {
            assert!(
                matches!(JobId::parse(bad), Err(BadId::Invalid(_))),
                "{bad:?}"
            );
        }
        assert!(JobId::parse(&JobId::random().0).is_ok());
    }
}
