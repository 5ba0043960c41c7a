//! `state/session_history.jsonl`: an append-only log of session lifecycle events (SPEC §2).
//!
//! Each line is one JSON object, `{"session_id", "event", "timestamp", "parent_session_id"}` in
//! that order, spaced as the original writes it; `timestamp` is ISO 8601 in the configured zone,
//! `parent_session_id` is `null` when there is none. The file is what a person (or the
//! history-reviewer subagent) reads to follow a conversation across compactions, forks and
//! restarts, and where `/compact` finds when the current session began.
//!
//! Appends never lose one another: each is one `write` of a whole line to a file opened in
//! append mode. The running bot has one writer, the
//! [`SessionRecords`](super::records::SessionRecords) actor. Reading skips a malformed line with
//! a warning and keeps the rest.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset, SecondsFormat};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;

use super::main_id::IdChange;
use super::{python_json, Error};

/// Name of the file inside `state/`.
pub const FILE_NAME: &str = "session_history.jsonl";

/// What happened to a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// The first id of a new main session was saved.
    Created,
    /// The main session's id changed under it (the CLI compacted it into a new one).
    Compacted,
    /// A fork's session became the main session (`save_context`).
    Swapped,
    /// `/clear` dropped the main session.
    Cleared,
    /// An interactive fork branched from the main session.
    InteractiveFork,
    /// A background job ran on a fork of the main session.
    BgFork,
    /// A background job ran on a fresh session of its own.
    IsolatedBg,
    /// A `session: persistent` routine ran in its own session (the original's `persistent_bg`).
    PersistentBg,
    /// The bot is about to restart with this main session.
    Restarting,
}

/// One line of the history, in the original's field order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEvent {
    /// The session the event is about.
    pub session_id: String,
    /// What happened.
    pub event: EventKind,
    /// When, as written (ISO 8601 with offset); kept as text so old lines survive untouched.
    pub timestamp: String,
    /// The session it came from (the old id on compaction or swap, the main id for forks).
    #[serde(default)]
    pub parent_session_id: Option<String>,
}

impl SessionEvent {
    /// The timestamp as a time, when it parses.
    pub fn at(&self) -> Option<DateTime<FixedOffset>> {
        DateTime::parse_from_rfc3339(&self.timestamp).ok()
    }
}

/// The history file and the clock and zone that stamp its events.
pub struct SessionHistory {
    /// Where the lines go.
    path: PathBuf,
    /// The source of every timestamp.
    clock: SharedClock,
    /// The zone timestamps are written in.
    zone: Tz,
}

impl SessionHistory {
    /// The history at `path`.
    pub fn new(path: impl Into<PathBuf>, clock: SharedClock, zone: Tz) -> Self {
        Self {
            path: path.into(),
            clock,
            zone,
        }
    }

    /// `state/session_history.jsonl` in `data_dir`.
    pub fn in_data_dir(data_dir: &DataDir, clock: SharedClock, zone: Tz) -> Self {
        Self::new(data_dir.state_file(FILE_NAME), clock, zone)
    }

    /// The file this appends to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one event stamped now and returns it.
    pub fn append(
        &self,
        event: EventKind,
        session_id: &str,
        parent_session_id: Option<&str>,
    ) -> Result<SessionEvent, Error> {
        let entry = SessionEvent {
            session_id: session_id.to_owned(),
            event,
            timestamp: self
                .clock
                .now()
                .with_timezone(&self.zone)
                .to_rfc3339_opts(SecondsFormat::Micros, false),
            parent_session_id: parent_session_id.map(str::to_owned),
        };
        let mut line = python_json::to_line(&entry).map_err(|source| Error::Encode {
            path: self.path.clone(),
            source,
        })?;
        line.push(b'\n');
        let io_err = |action| {
            let path = self.path.clone();
            move |source| Error::Io {
                action,
                path,
                source,
            }
        };
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir).map_err(io_err("creating the directory of"))?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(io_err("opening"))?;
        file.write_all(&line).map_err(io_err("appending to"))?;
        tracing::debug!(event = ?entry.event, session_id = %entry.session_id, "session event");
        Ok(entry)
    }

    /// Logs what a save of the main session id means: `created` for a first id, `compacted`
    /// (with the old id as parent) for a changed one, nothing otherwise. Not for swaps: those
    /// log [`EventKind::Swapped`] themselves.
    pub fn note_saved(&self, session_id: &str, change: &IdChange) -> Result<(), Error> {
        match change {
            IdChange::Created => self.append(EventKind::Created, session_id, None).map(drop),
            IdChange::Replaced { previous } => self
                .append(EventKind::Compacted, session_id, Some(previous))
                .map(drop),
            IdChange::Unchanged => Ok(()),
        }
    }

    /// Every readable event, oldest first; malformed lines are skipped with a warning.
    pub fn read(&self) -> Result<Vec<SessionEvent>, Error> {
        let text = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(Error::Io {
                    action: "reading",
                    path: self.path.clone(),
                    source,
                })
            }
        };
        let mut events = Vec::new();
        for (index, line) in text.split(|b| *b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<SessionEvent>(line) {
                Ok(event) => events.push(event),
                Err(reason) => tracing::warn!(
                    file = %self.path.display(),
                    line = index + 1,
                    %reason,
                    "skipping a malformed session history line"
                ),
            }
        }
        Ok(events)
    }

    /// When the current session lineage began: the time of the latest `created` event, which
    /// compactions, forks and swaps do not reset (the duration `/compact` reports).
    pub fn lineage_start(&self) -> Result<Option<DateTime<FixedOffset>>, Error> {
        Ok(self
            .read()?
            .iter()
            .rev()
            .find(|e| e.event == EventKind::Created)
            .and_then(SessionEvent::at))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::base::clock::{Clock, ManualClock};

    const ZONE: Tz = chrono_tz::America::Los_Angeles;

    fn history() -> (tempfile::TempDir, ManualClock, SessionHistory) {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(Utc.with_ymd_and_hms(2026, 2, 24, 22, 30, 0).unwrap());
        let h = SessionHistory::new(
            dir.path().join("state").join(FILE_NAME),
            clock.shared(),
            ZONE,
        );
        (dir, clock, h)
    }

    const ALL_KINDS: [(EventKind, &str); 9] = [
        (EventKind::Created, "created"),
        (EventKind::Compacted, "compacted"),
        (EventKind::Swapped, "swapped"),
        (EventKind::Cleared, "cleared"),
        (EventKind::InteractiveFork, "interactive_fork"),
        (EventKind::BgFork, "bg_fork"),
        (EventKind::IsolatedBg, "isolated_bg"),
        (EventKind::PersistentBg, "persistent_bg"),
        (EventKind::Restarting, "restarting"),
    ];

    #[test]
    fn every_event_kind_is_written_in_the_original_line_format() {
        let (_dir, _clock, h) = history();
        for (kind, _) in ALL_KINDS {
            h.append(kind, "s1", None).unwrap();
        }
        h.append(EventKind::Compacted, "s2", Some("s1")).unwrap();
        let text = fs::read_to_string(h.path()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), ALL_KINDS.len() + 1);
        for ((_, name), line) in ALL_KINDS.iter().zip(&lines) {
            assert_eq!(
                *line,
                format!(
                    r#"{{"session_id": "s1", "event": "{name}", "timestamp": "2026-02-24T14:30:00.000000-08:00", "parent_session_id": null}}"#
                )
            );
        }
        let last = lines[ALL_KINDS.len()];
        assert!(last.ends_with(r#""parent_session_id": "s1"}"#), "{last}");
    }

    #[test]
    fn appended_events_read_back_in_order() {
        let (_dir, clock, h) = history();
        h.append(EventKind::Created, "a", None).unwrap();
        clock.advance(chrono::Duration::minutes(5));
        h.append(EventKind::BgFork, "b", Some("a")).unwrap();
        let events = h.read().unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].event, EventKind::Created);
        assert_eq!(events[1].session_id, "b");
        assert_eq!(events[1].parent_session_id.as_deref(), Some("a"));
        assert_eq!(
            events[1].at().unwrap(),
            Utc.with_ymd_and_hms(2026, 2, 24, 22, 35, 0).unwrap()
        );
    }

    #[test]
    fn malformed_lines_are_skipped_and_the_rest_kept() {
        let (_dir, _clock, h) = history();
        h.append(EventKind::Created, "a", None).unwrap();
        let mut f = OpenOptions::new().append(true).open(h.path()).unwrap();
        f.write_all(b"{not json\n\n{\"session_id\": \"x\", \"event\": \"exploded\", \"timestamp\": \"t\"}\n")
            .unwrap();
        h.append(EventKind::Cleared, "a", None).unwrap();
        let kinds: Vec<_> = h.read().unwrap().iter().map(|e| e.event).collect();
        assert_eq!(kinds, vec![EventKind::Created, EventKind::Cleared]);
    }

    #[test]
    fn line_written_by_the_original_without_microseconds_is_read() {
        let (_dir, _clock, h) = history();
        fs::create_dir_all(h.path().parent().unwrap()).unwrap();
        fs::write(
            h.path(),
            "{\"session_id\": \"abc\", \"event\": \"created\", \"timestamp\": \"2026-02-24T09:00:00-08:00\", \"parent_session_id\": null}\n",
        )
        .unwrap();
        let start = h.lineage_start().unwrap().unwrap();
        assert_eq!(start, Utc.with_ymd_and_hms(2026, 2, 24, 17, 0, 0).unwrap());
    }

    #[test]
    fn concurrent_appends_all_land_as_whole_lines() {
        let (_dir, _clock, h) = history();
        let h = Arc::new(h);
        let threads: Vec<_> = (0..50)
            .map(|n| {
                let h = Arc::clone(&h);
                std::thread::spawn(move || {
                    h.append(EventKind::BgFork, &format!("fork-{n:02}"), Some("main"))
                        .unwrap();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let text = fs::read_to_string(h.path()).unwrap();
        assert_eq!(text.lines().count(), 50);
        let mut ids: Vec<String> = h
            .read()
            .unwrap()
            .into_iter()
            .map(|e| e.session_id)
            .collect();
        ids.sort();
        let expected: Vec<String> = (0..50).map(|n| format!("fork-{n:02}")).collect();
        assert_eq!(ids, expected);
    }

    #[test]
    fn separate_writers_on_one_file_do_not_lose_lines() {
        let (dir, clock, _h) = history();
        let path = dir.path().join("state").join(FILE_NAME);
        let threads: Vec<_> = (0..20)
            .map(|n| {
                let h = SessionHistory::new(path.clone(), clock.shared(), ZONE);
                std::thread::spawn(move || {
                    h.append(EventKind::IsolatedBg, &format!("iso-{n}"), None)
                        .unwrap();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let reader = SessionHistory::new(path, clock.shared(), ZONE);
        assert_eq!(reader.read().unwrap().len(), 20);
    }

    #[test]
    fn saves_of_the_main_id_log_created_then_compacted() {
        let (_dir, _clock, h) = history();
        h.note_saved("one", &IdChange::Created).unwrap();
        h.note_saved("one", &IdChange::Unchanged).unwrap();
        h.note_saved(
            "two",
            &IdChange::Replaced {
                previous: "one".into(),
            },
        )
        .unwrap();
        let events = h.read().unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(
            (events[0].event, events[0].parent_session_id.as_deref()),
            (EventKind::Created, None)
        );
        assert_eq!(
            (events[1].event, events[1].parent_session_id.as_deref()),
            (EventKind::Compacted, Some("one"))
        );
    }

    #[test]
    fn lineage_start_is_the_latest_created_event() {
        let (_dir, clock, h) = history();
        assert_eq!(h.lineage_start().unwrap(), None);
        h.append(EventKind::Created, "a", None).unwrap();
        clock.advance(chrono::Duration::hours(1));
        h.append(EventKind::Cleared, "a", None).unwrap();
        h.append(EventKind::Created, "b", None).unwrap();
        let second = clock.now();
        clock.advance(chrono::Duration::hours(2));
        h.append(EventKind::Compacted, "c", Some("b")).unwrap();
        assert_eq!(h.lineage_start().unwrap().unwrap(), second);
    }
}
