//! The settings keys routines and reminders share: raw values, validation, writing (SPEC §3).
//!
//! `RoutineFile` and `ReminderFile` each declare these keys themselves (so serde_yaml can name
//! the key and line in its errors) and hand them over as a [`SettingsFile`]; this module turns
//! that into [`JobSettings`] once, and writes the run of keys both kinds share, from `model` to
//! `skills`, in the original's order, then *(ours)* `gate`, `max-cost` and `max-turns`, leaving out values equal to their
//! defaults (so a file without a gate is written exactly as the original wrote it).

use super::frontmatter::{ParseError, Writer};
use super::gate::Gate;
use super::run_limits::RunLimits;
use super::yaml_scalars::{Count, Flag, Text, TextList};
use super::{JobSettings, ModelChoice, UpdateMode};

/// The shared settings as read, before validation. `None` means "absent or null".
#[derive(Debug, Default)]
pub struct SettingsFile {
    /// `background`.
    pub background: Option<Flag>,
    /// `model`.
    pub model: Option<Text>,
    /// `thinking`.
    pub thinking: Option<Flag>,
    /// `isolated`.
    pub isolated: Option<Flag>,
    /// `description`.
    pub description: Option<Text>,
    /// `update-main-session`.
    pub update_main_session: Option<Text>,
    /// `allow-ping`.
    pub allow_ping: Option<Flag>,
    /// `allowed-tools`.
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
    pub max_cost: Option<Text>,
    /// `max-turns` *(ours)*.
    pub max_turns: Option<Count>,
}

impl SettingsFile {
    /// Checks the values and fills in defaults for absent keys (`background` absent: false).
    pub fn validate(self) -> Result<JobSettings, ParseError> {
        self.validate_defaulting(false)
    }

    /// Like [`validate`](Self::validate), with `background` absent meaning `background`
    /// (reminders run in the background unless they say otherwise, SPEC §17).
    pub fn validate_defaulting(self, background: bool) -> Result<JobSettings, ParseError> {
        let defaults = JobSettings::default();
        Ok(JobSettings {
            background: self.background.map_or(background, |f| f.0),
            model: parse_model(self.model)?,
            thinking: self.thinking.map_or(defaults.thinking, |f| f.0),
            isolated: self.isolated.map_or(defaults.isolated, |f| f.0),
            description: self.description.map_or(defaults.description, |t| t.0),
            update_main_session: parse_update_mode(self.update_main_session)?,
            allow_ping: self.allow_ping.map_or(defaults.allow_ping, |f| f.0),
            allowed_tools: self.allowed_tools.map(|l| l.0),
            skills: self.skills.map(|l| l.0),
            reflect: self.reflect.map_or(defaults.reflect, |f| f.0),
            subagent: parse_subagent(self.subagent)?,
            gate: parse_gate(self.gate)?,
            retries: super::retries::parse_retries(self.retries)?,
            limits: RunLimits::parse(self.max_cost, self.max_turns)?,
        })
    }
}

/// Reads `subagent`: a subagent's name (letters, digits, `-`, `_`); empty means none.
pub fn parse_subagent(value: Option<Text>) -> Result<Option<String>, ParseError> {
    match value {
        None => Ok(None),
        Some(Text(v)) if v.trim().is_empty() => Ok(None),
        Some(Text(v)) => {
            let name = v.trim();
            let fine = name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if fine {
                Ok(Some(name.to_owned()))
            } else {
                Err(ParseError::BadSubagent { name: v })
            }
        }
    }
}

/// Reads `gate`; an empty one means no gate.
pub fn parse_gate(value: Option<Text>) -> Result<Option<Gate>, ParseError> {
    match value {
        None => Ok(None),
        Some(Text(v)) if v.trim().is_empty() => Ok(None),
        Some(Text(v)) => Gate::parse(&v)
            .map(Some)
            .map_err(|reason| ParseError::BadGate { gate: v, reason }),
    }
}

/// Reads `model`; an empty string means no override, as it did in the original.
pub fn parse_model(value: Option<Text>) -> Result<Option<ModelChoice>, ParseError> {
    match value {
        None => Ok(None),
        Some(Text(v)) if v.trim().is_empty() => Ok(None),
        Some(Text(v)) => v
            .parse()
            .map(Some)
            .map_err(|_| ParseError::UnknownModel { value: v }),
    }
}

/// Reads `update-main-session` (absent means `on_ping`).
pub fn parse_update_mode(value: Option<Text>) -> Result<UpdateMode, ParseError> {
    match value {
        None => Ok(UpdateMode::default()),
        Some(Text(v)) => v
            .parse()
            .map_err(|_| ParseError::UnknownUpdateMode { value: v }),
    }
}

/// Writes `background` if it is not `default`, the kind's default (routines: false,
/// reminders: true); it comes before kind-specific keys.
pub fn write_background(w: &mut Writer, settings: &JobSettings, default: bool) {
    if settings.background != default {
        w.flag("background", settings.background);
    }
}

/// Writes the keys from `model` to `skills`, in the original's order, skipping defaults.
pub fn write_model_onwards(w: &mut Writer, settings: &JobSettings) {
    let defaults = JobSettings::default();
    if let Some(model) = settings.model {
        w.text("model", model.as_str());
    }
    if settings.thinking != defaults.thinking {
        w.flag("thinking", settings.thinking);
    }
    if settings.isolated != defaults.isolated {
        w.flag("isolated", settings.isolated);
    }
    if settings.description != defaults.description {
        w.text("description", &settings.description);
    }
    if settings.update_main_session != defaults.update_main_session {
        w.text("update-main-session", settings.update_main_session.as_str());
    }
    if settings.allow_ping != defaults.allow_ping {
        w.flag("allow-ping", settings.allow_ping);
    }
    if let Some(tools) = &settings.allowed_tools {
        w.list("allowed-tools", tools);
    }
    if let Some(skills) = &settings.skills {
        w.list("skills", skills);
    }
    if settings.reflect != defaults.reflect {
        w.flag("reflect", settings.reflect);
    }
    if let Some(subagent) = &settings.subagent {
        w.text("subagent", subagent);
    }
    if let Some(gate) = &settings.gate {
        w.text("gate", gate.as_str());
    }
    if settings.retries != defaults.retries {
        w.number("retries", settings.retries);
    }
    settings.limits.write(w);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_keys_give_defaults() {
        assert_eq!(
            SettingsFile::default().validate().unwrap(),
            JobSettings::default()
        );
    }

    #[test]
    fn empty_model_means_no_override() {
        assert_eq!(parse_model(Some(Text(String::new()))).unwrap(), None);
    }

    #[test]
    fn unknown_model_is_named() {
        let err = parse_model(Some(Text("gpt".into()))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`model` \"gpt\" is not one of opus, sonnet, haiku"
        );
    }

    #[test]
    fn update_mode_accepts_both_spellings_and_rejects_others() {
        assert_eq!(
            parse_update_mode(Some(Text("on-ping".into()))).unwrap(),
            UpdateMode::OnPing
        );
        assert_eq!(
            parse_update_mode(Some(Text("blocked".into()))).unwrap(),
            UpdateMode::Blocked
        );
        assert!(matches!(
            parse_update_mode(Some(Text("sometimes".into()))),
            Err(ParseError::UnknownUpdateMode { .. })
        ));
    }

    #[test]
    fn a_gate_is_checked_and_an_empty_one_is_none() {
        assert_eq!(parse_gate(Some(Text("  ".into()))).unwrap(), None);
        let gate = parse_gate(Some(Text("test -s inbox.txt".into()))).unwrap();
        assert_eq!(
            gate.map(|g| g.to_string()).as_deref(),
            Some("test -s inbox.txt")
        );
        let err = parse_gate(Some(Text("a; b".into()))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`gate` \"a; b\" is refused: the gate holds ';': a gate is one command, without ; & | < or >"
        );
    }

    #[test]
    fn defaults_write_nothing() {
        let mut w = Writer::new();
        write_background(&mut w, &JobSettings::default(), false);
        write_model_onwards(&mut w, &JobSettings::default());
        assert_eq!(w.finish("x"), "---\n---\nx\n");
    }
}
