//! Routines on disk: `routines/<slug>.md` read into [`Routine`] and written back (SPEC §3).
//!
//! [`RoutineFile`] is the raw YAML (kebab-case keys, snake_case accepted, unknown keys
//! ignored); [`RoutineFile::validate`] checks it once into a [`Routine`]. Writing follows the
//! original's key order — id, cron, background, model, thinking, isolated, description,
//! update-main-session, allow-ping, allowed-tools, skills — leaving out defaults. Our keys
//! follow them, and only when set: `gate`, `catch-up` and `paused` (SPEC §16), `session`
//! (SPEC §18, [`super::session_mode`]).
//!
//! Only the shape of `cron` is checked here (five fields); whether each field is a valid cron
//! term is the scheduler's question.

use serde::Deserialize;

use super::catch_up::CatchUp;
use super::frontmatter::{self, ParseError, Writer};
use super::session_mode::{self, SessionMode};
use super::settings_file::{self, SettingsFile};
use super::yaml_scalars::{Count, Flag, Text, TextList};
use super::{JobId, JobSettings, Routine};

/// A routine file's YAML as written, before validation.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RoutineFile {
    /// `id`.
    pub id: Option<Text>,
    /// `cron`.
    pub cron: Option<Text>,
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
    /// `catch-up` *(ours)*.
    #[serde(alias = "catch_up")]
    pub catch_up: Option<Text>,
    /// `paused` *(ours)*.
    pub paused: Option<Flag>,
    /// `session` (SPEC §18).
    pub session: Option<Text>,
}

impl RoutineFile {
    /// Checks the fields and builds the routine; `message` is the file's body.
    pub fn validate(self, message: &str) -> Result<Routine, ParseError> {
        let id = validate_id(self.id)?;
        let cron = self.cron.ok_or(ParseError::Missing { field: "cron" })?.0;
        let found = cron.split_whitespace().count();
        if found != 5 {
            return Err(ParseError::CronFieldCount { cron, found });
        }
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
        .validate()?;
        let session =
            session_mode::parse(self.session, &settings).map_err(ParseError::BadSession)?;
        let catch_up = match self.catch_up {
            None => CatchUp::Default,
            Some(Text(raw)) => raw.parse().map_err(ParseError::BadCatchUp)?,
        };
        Ok(Routine {
            id,
            message: message.to_owned(),
            cron,
            settings,
            paused: self.paused.is_some_and(|f| f.0),
            catch_up,
            session,
        })
    }
}

/// Checks that an `id` is present and a valid id ([`JobId::parse`]).
pub fn validate_id(id: Option<Text>) -> Result<JobId, ParseError> {
    let id = id.ok_or(ParseError::Missing { field: "id" })?.0;
    JobId::parse(&id).map_err(|e| match e {
        super::BadId::Empty => ParseError::EmptyId,
        bad => ParseError::BadId(bad),
    })
}

/// Parses a whole routine file.
pub fn parse(text: &str) -> Result<Routine, ParseError> {
    let parts = frontmatter::split(text)?;
    frontmatter::parse_yaml::<RoutineFile>(parts.yaml)?.validate(parts.body)
}

/// The file's bytes, exactly as the original would write them (plus escaping in strings).
pub fn to_markdown(routine: &Routine) -> String {
    let mut w = Writer::new();
    w.text("id", routine.id.as_str());
    w.text("cron", &routine.cron);
    settings_file::write_background(&mut w, &routine.settings, false);
    settings_file::write_model_onwards(&mut w, &routine.settings);
    if routine.catch_up != CatchUp::Default {
        w.text("catch-up", &routine.catch_up.to_string());
    }
    if routine.paused {
        w.flag("paused", true);
    }
    if let Some(session) = routine.session.as_str() {
        w.text("session", session);
    }
    w.finish(&routine.message)
}

impl Routine {
    /// A new routine with a fresh random id.
    pub fn new(message: impl Into<String>, cron: impl Into<String>, settings: JobSettings) -> Self {
        Routine {
            id: JobId::random(),
            message: message.into(),
            cron: cron.into(),
            settings,
            paused: false,
            catch_up: CatchUp::Default,
            session: SessionMode::Fork,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{ModelChoice, UpdateMode};

    #[test]
    fn minimal_routine_reads_with_defaults() {
        let r = parse("---\nid: \"a1b2c3d4\"\ncron: \"30 8 * * *\"\n---\nCheck in.\n").unwrap();
        assert_eq!(r.id.as_str(), "a1b2c3d4");
        assert_eq!(r.cron, "30 8 * * *");
        assert_eq!(r.message, "Check in.");
        assert_eq!(r.settings, JobSettings::default());
    }

    #[test]
    fn unquoted_numeric_id_reads_as_text() {
        let r = parse("---\nid: 12345678\ncron: 0 9 * * 1-5\n---\nx\n").unwrap();
        assert_eq!(r.id.as_str(), "12345678");
    }

    #[test]
    fn snake_case_keys_are_accepted() {
        let r = parse(
            "---\nid: x\ncron: \"* * * * *\"\nupdate_main_session: blocked\nallow_ping: false\nallowed_tools: [\"Read\"]\n---\nb\n",
        )
        .unwrap();
        assert_eq!(r.settings.update_main_session, UpdateMode::Blocked);
        assert!(!r.settings.allow_ping);
        assert_eq!(r.settings.allowed_tools, Some(vec!["Read".to_owned()]));
    }

    #[test]
    fn unknown_keys_are_ignored() {
        let r = parse("---\nid: x\ncron: \"* * * * *\"\ncolour: blue\n---\nb\n").unwrap();
        assert_eq!(r.id.as_str(), "x");
    }

    #[test]
    fn cron_with_six_fields_is_rejected() {
        let err = parse("---\nid: x\ncron: \"0 0 8 * * *\"\n---\nb\n").unwrap_err();
        assert!(matches!(err, ParseError::CronFieldCount { found: 6, .. }));
    }

    #[test]
    fn missing_cron_and_blank_id_are_named() {
        let err = parse("---\nid: x\n---\nb\n").unwrap_err();
        assert_eq!(err.to_string(), "missing required field `cron`");
        let err = parse("---\nid: \" \"\ncron: \"* * * * *\"\n---\nb\n").unwrap_err();
        assert!(matches!(err, ParseError::EmptyId));
    }

    #[test]
    fn writes_keys_in_original_order_without_defaults() {
        let mut settings = JobSettings {
            background: true,
            model: Some(ModelChoice::Haiku),
            description: "Morning".into(),
            ..JobSettings::default()
        };
        settings.skills = Some(vec!["email-triage".into()]);
        let r = Routine {
            id: JobId("a1b2c3d4".into()),
            message: "Do it.".into(),
            cron: "30 8 * * *".into(),
            settings,
            paused: false,
            catch_up: CatchUp::Default,
            session: SessionMode::Fork,
        };
        assert_eq!(
            to_markdown(&r),
            "---\nid: \"a1b2c3d4\"\ncron: \"30 8 * * *\"\nbackground: true\nmodel: \"haiku\"\ndescription: \"Morning\"\nskills:\n  - \"email-triage\"\n---\nDo it.\n"
        );
    }

    #[test]
    fn catch_up_and_paused_read_and_are_written_only_when_set() {
        let text = "---\nid: \"a1b2c3d4\"\ncron: \"0 9 * * *\"\ncatch-up: \"30m\"\npaused: true\n---\nGo.\n";
        let r = parse(text).unwrap();
        assert!(r.paused);
        assert_eq!(r.catch_up, CatchUp::Within(30));
        assert_eq!(to_markdown(&r), text);
        let r = parse("---\nid: x\ncron: \"0 9 * * *\"\ncatch_up: none\npaused: false\n---\nGo.\n")
            .unwrap();
        assert!(!r.paused);
        assert_eq!(r.catch_up, CatchUp::Never);
        assert_eq!(
            to_markdown(&r),
            "---\nid: \"x\"\ncron: \"0 9 * * *\"\ncatch-up: \"none\"\n---\nGo.\n",
            "paused: false is left out"
        );
        let err = parse("---\nid: x\ncron: \"0 9 * * *\"\ncatch-up: soon\n---\nGo.\n").unwrap_err();
        assert!(err.to_string().contains("`catch-up` \"soon\""), "{err}");
    }

    #[test]
    fn new_routine_gets_eight_hex_id() {
        let r = Routine::new("m", "* * * * *", JobSettings::default());
        assert_eq!(r.id.as_str().len(), 8);
        assert!(r.id.as_str().chars().all(|c| c.is_ascii_hexdigit()));
    }
}
