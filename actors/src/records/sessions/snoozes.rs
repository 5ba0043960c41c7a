//! `state/snoozes.json` *(ours, SPEC §16)*: what the snooze buttons under a `[bg]` ping or a
//! reminder's answer write when pressed, so they still work after a restart. Entries live for
//! [`TTL`](super::TTL), like the prompts behind agent buttons.
//!
//! A JSON object from an 8-hex-digit id (the buttons' custom ids carry it) to `{reminder, ts}`:
//! the markdown of the reminder a snooze writes (its time is set on press) and when it was
//! stored (Unix seconds). Once pressed, the entry also holds `snoozed_until` (ISO 8601), so a
//! second press of any of the message's buttons answers "already snoozed" instead of writing a
//! second reminder. Expired entries are invisible and dropped whenever the file is written; an
//! entry that does not parse is skipped with a warning.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::base::state_file;

use super::{is_live, save_line, unix_seconds, Error};

/// Name of the file inside `state/`.
pub const FILE_NAME: &str = "snoozes.json";

/// One message's snooze.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnoozeEntry {
    /// The markdown of the reminder to write.
    pub reminder: String,
    /// When it was stored, Unix seconds.
    #[serde(default)]
    pub ts: f64,
    /// When it was snoozed to, once a button was pressed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snoozed_until: Option<DateTime<FixedOffset>>,
}

/// What claiming an entry found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// Claimed for a snooze until the given time: the reminder's markdown.
    Claimed(String),
    /// Already snoozed, until this time.
    Already(DateTime<FixedOffset>),
    /// No live entry under that id.
    Expired,
}

/// The stored snoozes; the running bot has one owner of the file, the
/// [`SessionRecords`](super::records::SessionRecords) actor.
pub struct Snoozes {
    path: PathBuf,
    clock: SharedClock,
}

impl Snoozes {
    /// The snoozes at `path`.
    pub fn new(path: impl Into<PathBuf>, clock: SharedClock) -> Self {
        Self {
            path: path.into(),
            clock,
        }
    }

    /// `state/snoozes.json` in `data_dir`.
    pub fn in_data_dir(data_dir: &DataDir, clock: SharedClock) -> Self {
        Self::new(data_dir.state_file(FILE_NAME), clock)
    }

    /// The file this reads and writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stores `reminder` (markdown) and returns its new id.
    pub fn register(&mut self, reminder: &str) -> Result<String, Error> {
        let mut entries = self.load()?;
        let id = loop {
            let candidate = uuid::Uuid::new_v4().simple().to_string()[..8].to_owned();
            if !entries.contains_key(&candidate) {
                break candidate;
            }
        };
        entries.insert(
            id.clone(),
            SnoozeEntry {
                reminder: reminder.to_owned(),
                ts: unix_seconds(self.clock.now()),
                snoozed_until: None,
            },
        );
        save_line(&self.path, &entries)?;
        Ok(id)
    }

    /// Marks `id` snoozed until `until` unless it already was; one press wins.
    pub fn claim(&mut self, id: &str, until: DateTime<FixedOffset>) -> Result<Claim, Error> {
        let mut entries = self.load()?;
        let Some(entry) = entries.get_mut(id) else {
            return Ok(Claim::Expired);
        };
        if let Some(already) = entry.snoozed_until {
            return Ok(Claim::Already(already));
        }
        entry.snoozed_until = Some(until);
        let reminder = entry.reminder.clone();
        save_line(&self.path, &entries)?;
        Ok(Claim::Claimed(reminder))
    }

    /// Undoes a claim whose reminder could not be written, so the buttons can be pressed again.
    pub fn release(&mut self, id: &str) -> Result<(), Error> {
        let mut entries = self.load()?;
        if let Some(entry) = entries.get_mut(id) {
            entry.snoozed_until = None;
            save_line(&self.path, &entries)?;
        }
        Ok(())
    }

    /// Every live entry by id (the file is not rewritten).
    pub fn load(&self) -> Result<BTreeMap<String, SnoozeEntry>, Error> {
        let now = self.clock.now();
        let raw = state_file::load_json::<BTreeMap<String, serde_json::Value>>(
            &self.path,
            BTreeMap::new,
        )?;
        Ok(raw
            .into_value()
            .into_iter()
            .filter_map(|(id, value)| match serde_json::from_value::<SnoozeEntry>(value) {
                Ok(entry) => Some((id, entry)),
                Err(reason) => {
                    tracing::warn!(file = %self.path.display(), %id, %reason, "skipping a malformed snooze");
                    None
                }
            })
            .filter(|(_, entry)| is_live(entry.ts, now))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone, Utc};

    use super::*;
    use crate::base::clock::ManualClock;

    fn snoozes() -> (tempfile::TempDir, ManualClock, Snoozes) {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(Utc.with_ymd_and_hms(2026, 3, 2, 20, 0, 0).unwrap());
        let s = Snoozes::new(dir.path().join("state").join(FILE_NAME), clock.shared());
        (dir, clock, s)
    }

    fn at(text: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(text).unwrap()
    }

    #[test]
    fn the_first_press_claims_and_later_ones_hear_when() {
        let (_dir, _clock, mut s) = snoozes();
        let id = s.register("---\nid: \"x\"\n---\nbody\n").unwrap();
        let until = at("2026-03-02T15:45:00-05:00");
        assert_eq!(
            s.claim(&id, until).unwrap(),
            Claim::Claimed("---\nid: \"x\"\n---\nbody\n".into())
        );
        assert_eq!(
            s.claim(&id, at("2026-03-03T09:00:00-05:00")).unwrap(),
            Claim::Already(until)
        );
        s.release(&id).unwrap();
        assert!(matches!(s.claim(&id, until).unwrap(), Claim::Claimed(_)));
        assert_eq!(s.claim("ffffffff", until).unwrap(), Claim::Expired);
    }

    #[test]
    fn entries_expire_after_seven_days() {
        let (_dir, clock, mut s) = snoozes();
        let id = s.register("md").unwrap();
        clock.advance(Duration::days(7));
        assert_eq!(
            s.claim(&id, at("2026-03-09T15:45:00-05:00")).unwrap(),
            Claim::Expired
        );
    }

    #[test]
    fn a_corrupt_file_is_set_aside_and_reads_as_empty() {
        let (dir, _clock, mut s) = snoozes();
        std::fs::create_dir_all(dir.path().join("state")).unwrap();
        std::fs::write(s.path(), "{not json").unwrap();
        assert!(s.load().unwrap().is_empty());
        let id = s.register("md").unwrap();
        assert_eq!(s.load().unwrap()[&id].reminder, "md");
    }
}
