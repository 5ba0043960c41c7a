//! `state/inquiries.json`: the prompts behind `agent:` buttons (SPEC §10), so a button still
//! works after a restart. Entries live for [`TTL`](super::TTL).
//!
//! The file is the original's: a JSON object from an 8-hex-digit id (the button's custom id
//! carries it) to `{prompt, ts}`, `ts` in Unix seconds. *(ours)* An entry may also name the fork
//! session whose embed carried the button (`fork_session_id`), so a click can resume it; the
//! key is written only when set, and the original ignores it. Expired entries are invisible and
//! dropped whenever the file is written. An entry that does not parse is skipped with a warning;
//! a file that is not an object is set aside by [`state_file`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::base::state_file;

use super::{is_live, save_line, unix_seconds, Error};

/// Name of the file inside `state/`.
pub const FILE_NAME: &str = "inquiries.json";

/// One button's stored prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inquiry {
    /// What the agent is asked when the button is clicked.
    pub prompt: String,
    /// When it was registered, Unix seconds (missing reads as expired, as in the original).
    #[serde(default)]
    pub ts: f64,
    /// *(ours)* The fork session that sent the button, to resume on click.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_session_id: Option<String>,
}

/// The stored button prompts. The running bot has one owner of this file, the
/// [`SessionRecords`](super::records::SessionRecords) actor, so its read-modify-write cycles never
/// overlap.
pub struct Inquiries {
    /// The file.
    path: PathBuf,
    /// The source of `ts` and of the TTL cutoff.
    clock: SharedClock,
}

impl Inquiries {
    /// The prompts at `path`.
    pub fn new(path: impl Into<PathBuf>, clock: SharedClock) -> Self {
        Self {
            path: path.into(),
            clock,
        }
    }

    /// `state/inquiries.json` in `data_dir`.
    pub fn in_data_dir(data_dir: &DataDir, clock: SharedClock) -> Self {
        Self::new(data_dir.state_file(FILE_NAME), clock)
    }

    /// The file this reads and writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stores `prompt` (sent from `fork_session_id`, if any) and returns its new id.
    pub fn register(
        &mut self,
        prompt: &str,
        fork_session_id: Option<&str>,
    ) -> Result<String, Error> {
        let mut entries = self.load()?;
        let id = loop {
            let candidate = uuid::Uuid::new_v4().simple().to_string()[..8].to_owned();
            if !entries.contains_key(&candidate) {
                break candidate;
            }
        };
        entries.insert(
            id.clone(),
            Inquiry {
                prompt: prompt.to_owned(),
                ts: unix_seconds(self.clock.now()),
                fork_session_id: fork_session_id.map(str::to_owned),
            },
        );
        save_line(&self.path, &entries)?;
        Ok(id)
    }

    /// The live entry for `id`, left in place.
    pub fn peek(&self, id: &str) -> Result<Option<Inquiry>, Error> {
        Ok(self.load()?.remove(id))
    }

    /// Takes the live entry for `id` out of the file; `None` for an unknown or expired id.
    pub fn pop(&mut self, id: &str) -> Result<Option<Inquiry>, Error> {
        let mut entries = self.load()?;
        let Some(entry) = entries.remove(id) else {
            return Ok(None);
        };
        save_line(&self.path, &entries)?;
        Ok(Some(entry))
    }

    /// Puts back an entry [`Inquiries::pop`] took whose click was refused, as it was (its `ts`
    /// too, so it still expires when it would have); an entry past its TTL by now stays gone.
    pub fn put_back(&mut self, id: &str, entry: Inquiry) -> Result<(), Error> {
        if !is_live(entry.ts, self.clock.now()) {
            return Ok(());
        }
        let mut entries = self.load()?;
        entries.insert(id.to_owned(), entry);
        save_line(&self.path, &entries)
    }

    /// Every live entry by id (the file is not rewritten).
    pub fn load(&self) -> Result<BTreeMap<String, Inquiry>, Error> {
        let now = self.clock.now();
        let raw = state_file::load_json::<BTreeMap<String, serde_json::Value>>(
            &self.path,
            BTreeMap::new,
        )?;
        let entries = raw
            .into_value()
            .into_iter()
            .filter_map(|(id, value)| match serde_json::from_value::<Inquiry>(value) {
                Ok(entry) => Some((id, entry)),
                Err(reason) => {
                    tracing::warn!(file = %self.path.display(), %id, %reason, "skipping a malformed inquiry");
                    None
                }
            })
            .filter(|(_, entry)| is_live(entry.ts, now))
            .collect();
        Ok(entries)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use chrono::{Duration, TimeZone, Utc};

    use super::*;
    use crate::base::clock::ManualClock;

    fn inquiries() -> (tempfile::TempDir, ManualClock, Inquiries) {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(Utc.with_ymd_and_hms(2026, 2, 24, 12, 0, 0).unwrap());
        let i = Inquiries::new(dir.path().join("state").join(FILE_NAME), clock.shared());
        (dir, clock, i)
    }

    #[test]
    fn registered_prompt_is_peeked_then_popped_once() {
        let (_dir, _clock, mut i) = inquiries();
        let id = i.register("plan my afternoon", None).unwrap();
        assert_eq!(id.len(), 8);
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(i.peek(&id).unwrap().unwrap().prompt, "plan my afternoon");
        assert_eq!(i.peek(&id).unwrap().unwrap().prompt, "plan my afternoon");
        assert_eq!(i.pop(&id).unwrap().unwrap().prompt, "plan my afternoon");
        assert_eq!(i.pop(&id).unwrap(), None);
        assert_eq!(i.peek(&id).unwrap(), None);
    }

    #[test]
    fn fork_session_is_kept_and_only_written_when_set() {
        let (_dir, _clock, mut i) = inquiries();
        let plain = i.register("a", None).unwrap();
        let forked = i.register("b", Some("fork-1")).unwrap();
        let text = fs::read_to_string(i.path()).unwrap();
        assert!(
            text.contains(&format!(
                r#""{plain}": {{"prompt": "a", "ts": 1771934400.0}}"#
            )),
            "{text}"
        );
        assert_eq!(
            i.pop(&forked).unwrap().unwrap().fork_session_id.as_deref(),
            Some("fork-1")
        );
    }

    #[test]
    fn entries_expire_after_seven_days_and_are_dropped_on_the_next_write() {
        let (_dir, clock, mut i) = inquiries();
        let old = i.register("old", None).unwrap();
        clock.advance(Duration::days(7) - Duration::seconds(1));
        assert!(i.peek(&old).unwrap().is_some());
        clock.advance(Duration::seconds(1));
        assert_eq!(i.peek(&old).unwrap(), None);
        assert_eq!(i.pop(&old).unwrap(), None);
        let fresh = i.register("fresh", None).unwrap();
        let text = fs::read_to_string(i.path()).unwrap();
        assert!(!text.contains(&old), "{text}");
        assert!(text.contains(&fresh));
    }

    #[test]
    fn file_written_by_the_original_is_read_and_bad_entries_skipped() {
        let (_dir, _clock, i) = inquiries();
        fs::create_dir_all(i.path().parent().unwrap()).unwrap();
        fs::write(
            i.path(),
            r#"{"a1b2c3d4": {"prompt": "check the oven", "ts": 1771930000.25}, "deadbeef": {"ts": 1771930000.0}, "0000ffff": {"prompt": "no ts"}}"#,
        )
        .unwrap();
        let all = i.load().unwrap();
        assert_eq!(all.keys().collect::<Vec<_>>(), vec!["a1b2c3d4"]);
        assert_eq!(all["a1b2c3d4"].prompt, "check the oven");
        assert_eq!(all["a1b2c3d4"].fork_session_id, None);
    }

    #[test]
    fn corrupt_file_is_set_aside_and_reads_as_empty() {
        let (dir, _clock, mut i) = inquiries();
        fs::create_dir_all(i.path().parent().unwrap()).unwrap();
        fs::write(i.path(), "[1, 2").unwrap();
        assert!(i.load().unwrap().is_empty());
        let names: Vec<String> = fs::read_dir(dir.path().join("state"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names
                .iter()
                .any(|n| n.starts_with("inquiries.json.corrupt-")),
            "{names:?}"
        );
        let id = i.register("after", None).unwrap();
        assert_eq!(i.peek(&id).unwrap().unwrap().prompt, "after");
    }
}
