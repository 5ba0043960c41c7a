//! Reminders on disk: `reminders/<slug>.md` read into [`Reminder`] and written back (SPEC §3).
//!
//! [`ReminderFile`] is the raw YAML; [`ReminderFile::validate`] checks it into a [`Reminder`].
//! Writing follows the original's key order — id, run-at, background, chain-depth, max-chain,
//! chain-parent, model, thinking, isolated, description, update-main-session, allow-ping,
//! allowed-tools, skills, then (ours) gate — leaving out defaults. `run-at` is written back exactly as it was
//! read (`Reminder::run_at_raw`), so reading and rewriting a file changes no byte.
//!
//! `run-at` must carry a UTC offset: the original always wrote one (`isoformat()` of an aware
//! time) and crashed comparing an offset-less one. [`parse`] therefore rejects an offset-less
//! time with [`ParseError::RunAtWithoutOffset`], which the caller can see in the skipped list;
//! [`parse_in`] instead reads such a time as wall-clock time in a given zone, for a caller
//! that prefers to honour a hand-written `run-at: "2026-02-24T14:00"`.

use chrono::{DateTime, FixedOffset, NaiveDateTime, TimeZone, Timelike};
use chrono_tz::Tz;
use serde::Deserialize;

use super::frontmatter::{self, ParseError, Writer};
use super::routine::validate_id;
use super::settings_file::{self, SettingsFile};
use super::yaml_scalars::{Count, Flag, Text, TextList};
use super::{JobId, JobSettings, Reminder};

/// A reminder file's YAML as written, before validation.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ReminderFile {
    /// `id`.
    pub id: Option<Text>,
    /// `run-at`.
    #[serde(alias = "run_at")]
    pub run_at: Option<Text>,
    /// `background`.
    pub background: Option<Flag>,
    /// `chain-depth`.
    #[serde(alias = "chain_depth")]
    pub chain_depth: Option<Count>,
    /// `max-chain`.
    #[serde(alias = "max_chain")]
    pub max_chain: Option<Count>,
    /// `chain-parent`.
    #[serde(alias = "chain_parent")]
    pub chain_parent: Option<Text>,
    /// `model`.
    pub model: Option<Text>,
    /// `thinking`.
    pub thinking: Option<Flag>,
    /// `isolated`.
    pub isolated: Option<Flag>,
    /// `description`.
    pub description: Option<Text>,
    /// `update-main-session`.
    #[serde(alias = "update_main_session")]
    pub update_main_session: Option<Text>,
    /// `allow-ping`.
    #[serde(alias = "allow_ping")]
    pub allow_ping: Option<Flag>,
    /// `allowed-tools`.
    #[serde(alias = "allowed_tools")]
    pub allowed_tools: Option<TextList>,
    /// `skills`.
    pub skills: Option<TextList>,
    /// `reflect`.
    pub reflect: Option<Flag>,
    /// `subagent`.
    pub subagent: Option<Text>,
    /// `gate` *(ours)*.
    pub gate: Option<Text>,
    /// `retries` *(ours)*.
    pub retries: Option<Count>,
    /// `max-cost` *(ours)*.
    #[serde(alias = "max_cost")]
    pub max_cost: Option<Text>,
    /// `max-turns` *(ours)*.
    #[serde(alias = "max_turns")]
    pub max_turns: Option<Count>,
}

impl ReminderFile {
    /// Checks the fields and builds the reminder; an offset-less `run-at` is an error.
    pub fn validate(self, message: &str) -> Result<Reminder, ParseError> {
        self.validate_with(message, parse_run_at)
    }

    /// Like [`validate`](Self::validate), but an offset-less `run-at` is wall-clock time in `zone`.
    pub fn validate_in(self, message: &str, zone: Tz) -> Result<Reminder, ParseError> {
        self.validate_with(message, |raw| parse_run_at_in(raw, zone))
    }

    fn validate_with(
        self,
        message: &str,
        read_time: impl FnOnce(&str) -> Result<DateTime<FixedOffset>, ParseError>,
    ) -> Result<Reminder, ParseError> {
        let id = validate_id(self.id)?;
        let run_at_raw = self
            .run_at
            .ok_or(ParseError::Missing { field: "run-at" })?
            .0;
        let run_at = read_time(&run_at_raw)?;
        if let Some(parent) = self
            .chain_parent
            .as_ref()
            .filter(|p| !p.0.trim().is_empty())
        {
            JobId::parse(&parent.0).map_err(ParseError::BadId)?;
        }
        let chain_depth = self.chain_depth.map_or(0, |c| c.0);
        let max_chain = self.max_chain.map_or(0, |c| c.0);
        if chain_depth > max_chain {
            return Err(ParseError::ChainTooDeep {
                depth: chain_depth,
                max: max_chain,
            });
        }
        let background_as_read = self.background.as_ref().map(|f| f.0);
        let settings = SettingsFile {
            background: self.background,
            model: self.model,
            thinking: self.thinking,
            isolated: self.isolated,
            description: self.description,
            update_main_session: self.update_main_session,
            allow_ping: self.allow_ping,
            allowed_tools: self.allowed_tools,
            skills: self.skills,
            reflect: self.reflect,
            subagent: self.subagent,
            gate: self.gate,
            retries: self.retries,
            max_cost: self.max_cost,
            max_turns: self.max_turns,
        }
        .validate_defaulting(true)?;
        Ok(Reminder {
            id,
            message: message.to_owned(),
            run_at,
            run_at_raw,
            chain_depth,
            max_chain,
            chain_parent: self.chain_parent.map(|t| t.0),
            settings,
            background_as_read,
        })
    }
}

/// Parses a whole reminder file; an offset-less `run-at` is an error.
pub fn parse(text: &str) -> Result<Reminder, ParseError> {
    let parts = frontmatter::split(text)?;
    frontmatter::parse_yaml::<ReminderFile>(parts.yaml)?.validate(parts.body)
}

/// Parses a whole reminder file, reading an offset-less `run-at` as wall-clock time in `zone`.
pub fn parse_in(text: &str, zone: Tz) -> Result<Reminder, ParseError> {
    let parts = frontmatter::split(text)?;
    frontmatter::parse_yaml::<ReminderFile>(parts.yaml)?.validate_in(parts.body, zone)
}

/// The file's bytes, exactly as the original would write them (plus escaping in strings).
pub fn to_markdown(reminder: &Reminder) -> String {
    let mut w = Writer::new();
    w.text("id", reminder.id.as_str());
    w.text("run-at", &reminder.run_at_raw);
    if reminder.background_as_read == Some(reminder.settings.background) {
        w.flag("background", reminder.settings.background);
    } else {
        settings_file::write_background(&mut w, &reminder.settings, true);
    }
    if reminder.chain_depth != 0 {
        w.number("chain-depth", reminder.chain_depth);
    }
    if reminder.max_chain != 0 {
        w.number("max-chain", reminder.max_chain);
    }
    if let Some(parent) = &reminder.chain_parent {
        w.text("chain-parent", parent);
    }
    settings_file::write_model_onwards(&mut w, &reminder.settings);
    w.finish(&reminder.message)
}

/// Date-time layouts Python's `datetime.fromisoformat` reads that we accept, offset excluded.
const LAYOUTS: [&str; 4] = [
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M",
];

/// Reads an ISO 8601 date-time that carries an offset (`+HH:MM`, `+HHMM`, `+HH` or `Z`).
pub fn parse_run_at(raw: &str) -> Result<DateTime<FixedOffset>, ParseError> {
    let text = raw.trim();
    let with_offset = text
        .strip_suffix(['Z', 'z'])
        .map_or_else(|| text.to_owned(), |t| format!("{t}+00:00"));
    for layout in LAYOUTS {
        if let Ok(at) = DateTime::parse_from_str(&with_offset, &format!("{layout}%#z")) {
            return Ok(at);
        }
    }
    for layout in LAYOUTS {
        if let Ok(naive) = NaiveDateTime::parse_from_str(text, layout) {
            return Err(ParseError::RunAtWithoutOffset {
                raw: raw.to_owned(),
                naive,
            });
        }
    }
    Err(ParseError::BadRunAt {
        raw: raw.to_owned(),
    })
}

/// Like [`parse_run_at`], but an offset-less time is wall-clock time in `zone` (in a DST
/// overlap the earlier instant; a time skipped by DST is rejected as not a valid time).
pub fn parse_run_at_in(raw: &str, zone: Tz) -> Result<DateTime<FixedOffset>, ParseError> {
    match parse_run_at(raw) {
        Err(ParseError::RunAtWithoutOffset { naive, .. }) => zone
            .from_local_datetime(&naive)
            .earliest()
            .map(|at| at.fixed_offset())
            .ok_or(ParseError::BadRunAt {
                raw: raw.to_owned(),
            }),
        other => other,
    }
}

/// `at` the way Python's `isoformat()` prints it: `2026-02-24T14:00:00-08:00`, with
/// `.ffffff` microseconds only when they are not zero.
pub fn format_run_at(at: DateTime<FixedOffset>) -> String {
    let micros = at.nanosecond() / 1_000 % 1_000_000;
    if micros == 0 {
        at.format("%Y-%m-%dT%H:%M:%S%:z").to_string()
    } else {
        format!(
            "{}.{micros:06}{}",
            at.format("%Y-%m-%dT%H:%M:%S"),
            at.format("%:z")
        )
    }
}

impl Reminder {
    /// A new plain reminder (no chain) with a fresh random id, firing at `run_at`.
    pub fn new(
        message: impl Into<String>,
        run_at: DateTime<FixedOffset>,
        settings: JobSettings,
    ) -> Self {
        Self::new_chain(message, run_at, 0, settings)
    }

    /// A new reminder that may be followed up `max_chain` times; a chain root (`max_chain > 0`)
    /// names itself as `chain-parent`, as the original did.
    pub fn new_chain(
        message: impl Into<String>,
        run_at: DateTime<FixedOffset>,
        max_chain: u32,
        settings: JobSettings,
    ) -> Self {
        let id = JobId::random();
        let chain_parent = (max_chain > 0).then(|| id.0.clone());
        let run_at_raw = format_run_at(run_at);
        Reminder {
            id,
            message: message.into(),
            run_at: truncate_to_micros(run_at),
            run_at_raw,
            chain_depth: 0,
            max_chain,
            chain_parent,
            settings,
            background_as_read: None,
        }
    }

    /// The next link of this reminder's chain, firing at `run_at` with the same message and
    /// every setting; `None` when the chain is used up.
    pub fn follow_up(&self, run_at: DateTime<FixedOffset>) -> Option<Reminder> {
        if !self.can_follow_up() {
            return None;
        }
        Some(Reminder {
            id: JobId::random(),
            message: self.message.clone(),
            run_at: truncate_to_micros(run_at),
            run_at_raw: format_run_at(run_at),
            chain_depth: self.chain_depth + 1,
            max_chain: self.max_chain,
            chain_parent: Some(self.chain_root().to_owned()),
            settings: self.settings.clone(),
            background_as_read: None,
        })
    }

    /// The id of this reminder's chain root (its `chain-parent`, or its own id).
    pub fn chain_root(&self) -> &str {
        self.chain_parent.as_deref().unwrap_or(self.id.as_str())
    }
}

/// Drops sub-microsecond precision, so `run_at` equals what `run_at_raw` says.
fn truncate_to_micros(at: DateTime<FixedOffset>) -> DateTime<FixedOffset> {
    let nanos = at.nanosecond();
    at.with_nanosecond(nanos - nanos % 1_000).unwrap_or(at)
}

#[cfg(test)]
#[path = "reminder_tests.rs"]
mod tests;
