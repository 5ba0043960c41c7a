//! `state/fork_messages.json`: which Discord messages a background fork sent, so that replying
//! to one resumes that fork's session (SPEC §5, §6). Records live for [`TTL`](super::TTL).
//!
//! The file is the original's: a JSON array of `{message_id, fork_session_id,
//! parent_session_id, ts}` with `ts` in Unix seconds. A lookup sees expired records too, so it
//! can tell "this session has expired" apart from "not a fork message"; reading never rewrites
//! the file. *(ours)* The original dropped expired records whenever it wrote the file, so a reply
//! to an old ping read as an ordinary message as soon as any newer background message was
//! recorded; here a write keeps the newest [`KEPT_EXPIRED`] expired records (and every live one),
//! so the owner is told the session expired. [`ForkMessages::prune`] drops every expired record.
//! A record that does not parse is skipped with a warning; a file that is not an array is set
//! aside by [`state_file`].

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::base::state_file;

use super::{is_live, save_line, unix_seconds, Error};

/// Name of the file inside `state/`.
pub const FILE_NAME: &str = "fork_messages.json";

/// How many expired records a write keeps (the newest), so a reply to an old message can still
/// be told apart from a reply to an ordinary one; the file stays bounded.
pub const KEPT_EXPIRED: usize = 500;

/// One Discord message a background fork sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForkMessageRecord {
    /// The Discord message id.
    pub message_id: u64,
    /// The fork's session, to resume on reply.
    pub fork_session_id: String,
    /// The main session it forked from (`None` for an isolated run).
    #[serde(default)]
    pub parent_session_id: Option<String>,
    /// When it was recorded, Unix seconds.
    pub ts: f64,
}

/// What a reply to a message leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForkLookup {
    /// A fork sent it recently: resume this session.
    Live {
        /// The fork's session id.
        fork_session_id: String,
        /// How long ago the message went out, in seconds (the resumed fork is told).
        age_secs: u64,
    },
    /// A fork sent it, but longer ago than the TTL.
    Expired,
    /// No fork sent it.
    Unknown,
}

/// Whole seconds from `ts` (Unix seconds) to `now`; a time in the future reads as 0.
fn age_secs(ts: f64, now: chrono::DateTime<chrono::Utc>) -> u64 {
    let age = unix_seconds(now) - ts;
    if age.is_finite() && age > 0.0 {
        age as u64
    } else {
        0
    }
}

/// The fork-message records. The running bot has one owner of this file, the Discord outbox
/// (which posts the messages), so its read-modify-write cycles never overlap.
pub struct ForkMessages {
    /// The file.
    path: PathBuf,
    /// The source of `ts` and of the TTL cutoff.
    clock: SharedClock,
}

impl ForkMessages {
    /// The records at `path`.
    pub fn new(path: impl Into<PathBuf>, clock: SharedClock) -> Self {
        Self {
            path: path.into(),
            clock,
        }
    }

    /// `state/fork_messages.json` in `data_dir`.
    pub fn in_data_dir(data_dir: &DataDir, clock: SharedClock) -> Self {
        Self::new(data_dir.state_file(FILE_NAME), clock)
    }

    /// The file this reads and writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The records still within the TTL (the file is not rewritten).
    pub fn load(&self) -> Result<Vec<ForkMessageRecord>, Error> {
        let now = self.clock.now();
        let mut records = self.load_all()?;
        records.retain(|r| is_live(r.ts, now));
        Ok(records)
    }

    /// Records that `message_ids` were sent by the fork `fork_session_id` (branched from
    /// `parent_session_id`); of the expired records, only the newest [`KEPT_EXPIRED`] stay.
    pub fn record(
        &mut self,
        message_ids: &[u64],
        fork_session_id: &str,
        parent_session_id: Option<&str>,
    ) -> Result<(), Error> {
        if message_ids.is_empty() {
            return Ok(());
        }
        let now = self.clock.now();
        let ts = unix_seconds(now);
        let mut records = self.load_all()?;
        let expired = records.iter().filter(|r| !is_live(r.ts, now)).count();
        if expired > KEPT_EXPIRED {
            // The file is in the order written: the oldest expired ones go first.
            let mut dropping = expired - KEPT_EXPIRED;
            records.retain(|r| {
                let drop = dropping > 0 && !is_live(r.ts, now);
                dropping -= usize::from(drop);
                !drop
            });
        }
        records.extend(message_ids.iter().map(|&message_id| ForkMessageRecord {
            message_id,
            fork_session_id: fork_session_id.to_owned(),
            parent_session_id: parent_session_id.map(str::to_owned),
            ts,
        }));
        save_line(&self.path, &records)
    }

    /// Which fork, if any, sent `message_id`.
    pub fn lookup(&self, message_id: u64) -> Result<ForkLookup, Error> {
        let now = self.clock.now();
        let found = self
            .load_all()?
            .into_iter()
            .find(|r| r.message_id == message_id);
        Ok(match found {
            Some(r) if is_live(r.ts, now) => ForkLookup::Live {
                fork_session_id: r.fork_session_id,
                age_secs: age_secs(r.ts, now),
            },
            Some(_) => ForkLookup::Expired,
            None => ForkLookup::Unknown,
        })
    }

    /// Rewrites the file without expired records; returns how many were dropped (no write
    /// when none were).
    pub fn prune(&mut self) -> Result<usize, Error> {
        let all = self.load_all()?;
        let before = all.len();
        let now = self.clock.now();
        let live: Vec<_> = all.into_iter().filter(|r| is_live(r.ts, now)).collect();
        let dropped = before - live.len();
        if dropped > 0 {
            save_line(&self.path, &live)?;
        }
        Ok(dropped)
    }

    /// Every readable record, expired ones included.
    fn load_all(&self) -> Result<Vec<ForkMessageRecord>, Error> {
        let raw = state_file::load_json::<Vec<serde_json::Value>>(&self.path, Vec::new)?;
        let records = raw
            .into_value()
            .into_iter()
            .filter_map(|value| match serde_json::from_value(value) {
                Ok(record) => Some(record),
                Err(reason) => {
                    tracing::warn!(file = %self.path.display(), %reason, "skipping a malformed fork message record");
                    None
                }
            })
            .collect();
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use chrono::{Duration, TimeZone, Utc};

    use super::*;
    use crate::base::clock::ManualClock;

    fn records() -> (tempfile::TempDir, ManualClock, ForkMessages) {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(Utc.with_ymd_and_hms(2026, 2, 24, 12, 0, 0).unwrap());
        let f = ForkMessages::new(dir.path().join("state").join(FILE_NAME), clock.shared());
        (dir, clock, f)
    }

    fn live(id: &str, age_secs: u64) -> ForkLookup {
        ForkLookup::Live {
            fork_session_id: id.into(),
            age_secs,
        }
    }

    #[test]
    fn recorded_messages_are_found_and_others_are_unknown() {
        let (_dir, _clock, mut f) = records();
        f.record(&[11, 12], "fork-a", Some("main")).unwrap();
        assert_eq!(f.lookup(11).unwrap(), live("fork-a", 0));
        assert_eq!(f.lookup(12).unwrap(), live("fork-a", 0));
        assert_eq!(f.lookup(13).unwrap(), ForkLookup::Unknown);
    }

    #[test]
    fn file_has_the_original_shape() {
        let (_dir, _clock, mut f) = records();
        f.record(&[1_234_567_890_123_456_789], "fork-a", None)
            .unwrap();
        let text = fs::read_to_string(f.path()).unwrap();
        assert_eq!(
            text,
            r#"[{"message_id": 1234567890123456789, "fork_session_id": "fork-a", "parent_session_id": null, "ts": 1771934400.0}]"#
        );
    }

    #[test]
    fn nothing_is_written_for_no_messages() {
        let (_dir, _clock, mut f) = records();
        f.record(&[], "fork-a", None).unwrap();
        assert!(!f.path().exists());
    }

    #[test]
    fn a_record_older_than_seven_days_is_expired_and_still_known_after_a_write() {
        let (_dir, clock, mut f) = records();
        f.record(&[1], "old", None).unwrap();
        clock.advance(Duration::days(7) - Duration::seconds(1));
        assert_eq!(f.lookup(1).unwrap(), live("old", 604_799));
        clock.advance(Duration::seconds(1));
        assert_eq!(f.lookup(1).unwrap(), ForkLookup::Expired);
        assert!(f.load().unwrap().is_empty());
        assert_eq!(
            f.lookup(1).unwrap(),
            ForkLookup::Expired,
            "reading rewrote the file"
        );

        // A newer background message does not make the old one read as ordinary.
        f.record(&[2], "new", Some("main")).unwrap();
        assert_eq!(f.lookup(1).unwrap(), ForkLookup::Expired);
        let live: Vec<u64> = f.load().unwrap().iter().map(|r| r.message_id).collect();
        assert_eq!(live, vec![2]);
    }

    #[test]
    fn a_write_keeps_only_the_newest_expired_records() {
        let (_dir, clock, mut f) = records();
        let old: Vec<u64> = (0..KEPT_EXPIRED as u64 + 3).collect();
        f.record(&old, "old", None).unwrap();
        clock.advance(Duration::days(8));
        f.record(&[9_999], "new", None).unwrap();
        assert_eq!(f.lookup(0).unwrap(), ForkLookup::Unknown);
        assert_eq!(f.lookup(2).unwrap(), ForkLookup::Unknown);
        assert_eq!(f.lookup(3).unwrap(), ForkLookup::Expired);
        assert_eq!(f.lookup(9_999).unwrap(), live("new", 0));
        assert_eq!(f.load_all().unwrap().len(), KEPT_EXPIRED + 1);
    }

    #[test]
    fn prune_drops_only_expired_records() {
        let (_dir, clock, mut f) = records();
        f.record(&[1], "old", None).unwrap();
        clock.advance(Duration::days(6));
        f.record(&[2], "young", None).unwrap();
        assert_eq!(f.prune().unwrap(), 0);
        clock.advance(Duration::days(2));
        assert_eq!(f.prune().unwrap(), 1);
        assert_eq!(f.lookup(1).unwrap(), ForkLookup::Unknown);
        assert_eq!(f.lookup(2).unwrap(), live("young", 172_800));
    }

    #[test]
    fn file_written_by_the_original_is_read() {
        let (_dir, _clock, f) = records();
        fs::create_dir_all(f.path().parent().unwrap()).unwrap();
        fs::write(
            f.path(),
            r#"[{"message_id": 77, "fork_session_id": "py-fork", "parent_session_id": "py-main", "ts": 1771930000.5}, {"message_id": "bad"}]"#,
        )
        .unwrap();
        assert_eq!(f.lookup(77).unwrap(), live("py-fork", 4_399));
        assert_eq!(
            f.load().unwrap()[0].parent_session_id.as_deref(),
            Some("py-main")
        );
        assert_eq!(f.load().unwrap().len(), 1);
    }

    #[test]
    fn corrupt_file_is_set_aside_and_reads_as_empty() {
        let (dir, _clock, f) = records();
        fs::create_dir_all(f.path().parent().unwrap()).unwrap();
        fs::write(f.path(), "{\"not\": \"a list\"}").unwrap();
        assert_eq!(f.lookup(1).unwrap(), ForkLookup::Unknown);
        assert!(!f.path().exists());
        let names: Vec<String> = fs::read_dir(dir.path().join("state"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names
                .iter()
                .any(|n| n.starts_with("fork_messages.json.corrupt-")),
            "{names:?}"
        );
    }

    /// Writers take `&mut self`, so records cannot race through one value; its one owner (the
    /// outbox) records each fork's message in turn, and none is lost.
    #[test]
    fn records_from_many_forks_are_all_kept() {
        let (_dir, _clock, mut f) = records();
        for n in 0..20u64 {
            f.record(&[n], &format!("fork-{n}"), None).unwrap();
        }
        for n in 0..20u64 {
            assert_eq!(f.lookup(n).unwrap(), live(&format!("fork-{n}"), 0));
        }
    }
}
