//! A routine's `session` key (SPEC §18, the original's design of 2026-02-26): which session a
//! background routine runs in.
//!
//! ```text
//! session: persistent   every fire resumes the routine's own session (state/routine_sessions/<id>)
//! ```
//!
//! Absent, a background routine forks the conversation (or starts fresh when `isolated`), as
//! always. `persistent` is only for a background routine that is not isolated: with
//! `isolated: true`, or without `background: true`, the file is refused at load, and so is any
//! other value. The sessions themselves are the `routine_sessions` module's.

use std::fmt;

use super::yaml_scalars::Text;
use super::JobSettings;

/// Where a routine's fires run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SessionMode {
    /// Not set: a fork of the conversation (a fresh session when isolated).
    #[default]
    Fork,
    /// `persistent`: the routine's own session, resumed at every fire.
    Persistent,
}

impl SessionMode {
    /// The value written on disk (`None` for the default, which is never written).
    pub fn as_str(self) -> Option<&'static str> {
        match self {
            SessionMode::Fork => None,
            SessionMode::Persistent => Some("persistent"),
        }
    }
}

impl fmt::Display for SessionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str().unwrap_or("fork"))
    }
}

/// Why a `session` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadSession {
    /// Not a known mode.
    #[error("`session` {value:?} is not a session mode: the only one is persistent")]
    Unknown {
        /// The value as written.
        value: String,
    },
    /// `persistent` on an isolated routine: the two say opposite things.
    #[error("`session: persistent` cannot go with `isolated: true`: a persistent routine keeps its own session, an isolated one starts empty every time; remove one of them")]
    Isolated,
    /// `persistent` on a routine that runs in the conversation.
    #[error("`session: persistent` needs `background: true`: a foreground routine runs in the conversation itself")]
    Foreground,
}

/// Reads `session` as written, checked against the routine's other settings.
pub fn parse(raw: Option<Text>, settings: &JobSettings) -> Result<SessionMode, BadSession> {
    let Some(Text(value)) = raw else {
        return Ok(SessionMode::Fork);
    };
    if value.trim() != "persistent" {
        return Err(BadSession::Unknown { value });
    }
    if settings.isolated {
        return Err(BadSession::Isolated);
    }
    if !settings.background {
        return Err(BadSession::Foreground);
    }
    Ok(SessionMode::Persistent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::routine;

    fn routine_file(extra: &str) -> String {
        format!("---\nid: \"a1b2c3d4\"\ncron: \"0 9 * * 1\"\n{extra}---\nReview the week.\n")
    }

    #[test]
    fn persistent_on_a_background_routine_reads_and_is_written_back() {
        let text = routine_file("background: true\nsession: \"persistent\"\n");
        let r = routine::parse(&text).unwrap();
        assert_eq!(r.session, SessionMode::Persistent);
        assert_eq!(routine::to_markdown(&r), text);
        let plain = routine::parse(&routine_file("background: true\n")).unwrap();
        assert_eq!(plain.session, SessionMode::Fork);
        assert!(!routine::to_markdown(&plain).contains("session"));
    }

    #[test]
    fn persistent_with_isolated_is_refused_at_load() {
        let err = routine::parse(&routine_file(
            "background: true\nisolated: true\nsession: persistent\n",
        ))
        .unwrap_err();
        assert!(err.to_string().contains("`isolated: true`"), "{err}");
    }

    #[test]
    fn persistent_in_the_foreground_is_refused_at_load() {
        for extra in [
            "session: persistent\n",
            "background: false\nsession: persistent\n",
        ] {
            let err = routine::parse(&routine_file(extra)).unwrap_err();
            assert!(
                err.to_string().contains("needs `background: true`"),
                "{err}"
            );
        }
    }

    #[test]
    fn an_unknown_session_value_is_refused_at_load() {
        let err =
            routine::parse(&routine_file("background: true\nsession: forever\n")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`session` \"forever\" is not a session mode: the only one is persistent"
        );
    }
}
