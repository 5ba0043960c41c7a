//! `state/runs_open.json`: the runs that have started and not yet ended ([`OpenRun`]), and since
//! when the bot keeps a run history (`history_since`: missed-run catch-up never looks earlier,
//! so the first start of a version with history does not re-run what an older one ran).
//!
//! Rewritten atomically on every change, one run per line. Each run's JSON is kept from when
//! it last changed ([`Encoded`]), so the write after one run opened, changed or closed encodes
//! that run only, however many others are open (a morning's routines all fire at 9:00). A run
//! whose entry outlives the process that opened it was cut off by a crash or a stop; the next
//! start finds it here.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, FixedOffset};
use serde::Deserialize;

use super::record::OpenRun;
use crate::base::state_file::{self, Loaded};

/// The file's name inside `state/`.
pub const FILE_NAME: &str = "runs_open.json";

/// The file's content.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct OpenFile {
    /// When the run history began (the first start that kept one).
    pub history_since: DateTime<FixedOffset>,
    /// Runs in progress, oldest first.
    #[serde(default)]
    pub open: Vec<OpenRun>,
}

/// Reads the file: `None` when there is none (a first start); a file that does not parse is
/// moved aside (logged) and reads as `None` too.
pub fn load(path: &Path) -> Result<Option<OpenFile>, state_file::Error> {
    Ok(
        match state_file::load_json::<Option<OpenFile>>(path, || None)? {
            Loaded::Found(found) => found,
            Loaded::Missing(_) | Loaded::Corrupt(..) => None,
        },
    )
}

/// Each open run's JSON as last written, by run id.
#[derive(Debug, Default)]
pub struct Encoded(HashMap<String, Vec<u8>>);

impl Encoded {
    /// Forgets `run`'s JSON: it is about to change.
    pub fn forget(&mut self, run: &str) {
        self.0.remove(run);
    }

    /// Writes the file atomically with `runs`, encoding only those not encoded yet.
    pub fn save<'a>(
        &mut self,
        path: &Path,
        history_since: DateTime<FixedOffset>,
        runs: impl Iterator<Item = &'a OpenRun>,
    ) -> Result<(), state_file::Error> {
        let encode_err = |source| state_file::Error::Encode {
            path: path.to_path_buf(),
            source,
        };
        let mut bytes = br#"{"history_since": "#.to_vec();
        serde_json::to_writer(&mut bytes, &history_since).map_err(encode_err)?;
        bytes.extend_from_slice(br#", "open": ["#);
        let mut live = Vec::new();
        for (i, run) in runs.enumerate() {
            if !self.0.contains_key(&run.run) {
                let json = serde_json::to_vec(run).map_err(encode_err)?;
                self.0.insert(run.run.clone(), json);
            }
            bytes.extend_from_slice(if i == 0 { b"\n  " } else { b",\n  " });
            bytes.extend_from_slice(&self.0[&run.run]);
            live.push(run.run.as_str());
        }
        bytes.extend_from_slice(if live.is_empty() { b"]}\n" } else { b"\n]}\n" });
        if self.0.len() != live.len() {
            let live: std::collections::HashSet<&str> = live.into_iter().collect();
            self.0.retain(|run, _| live.contains(run.as_str()));
        }
        state_file::write_atomic(path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::JobId;
    use crate::records::runs::record::{JobKind, Trigger};

    fn run(id: &str) -> OpenRun {
        let at = DateTime::parse_from_rfc3339("2026-03-01T09:00:00+01:00").unwrap();
        OpenRun {
            run: id.into(),
            boot: "b1".into(),
            job: JobId(format!("job-{id}")),
            kind: JobKind::Reminder,
            tag: "reminder".into(),
            name: "a \"quoted\"\nname".into(),
            file: "reminders/x.md".into(),
            scheduled: at,
            started: at,
            late_since: None,
            trigger: Trigger::Schedule,
            attempt: 1,
            retry: 0,
            pinged: false,
            followed_up: false,
            reports: Vec::new(),
            reminder: Some("---\nmessage: hi\n---\n".into()),
            payload: None,
        }
    }

    #[test]
    fn the_file_always_holds_the_runs_as_they_are_now() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(FILE_NAME);
        let since = DateTime::parse_from_rfc3339("2026-02-01T00:00:00+01:00").unwrap();
        let mut encoded = Encoded::default();
        let mut runs = vec![run("a"), run("b"), run("c")];
        encoded.save(&path, since, runs.iter()).unwrap();
        let read = |runs: &[OpenRun]| {
            let file = load(&path).unwrap().expect("the file parses");
            assert_eq!(file.history_since, since);
            assert_eq!(file.open, runs);
        };
        read(&runs);
        // A change goes through `forget`; the next save writes the run as it is now.
        encoded.forget("b");
        runs[1].pinged = true;
        runs.remove(0);
        encoded.save(&path, since, runs.iter()).unwrap();
        read(&runs);
        assert_eq!(encoded.0.len(), 2, "a closed run's JSON is dropped");
        encoded.save(&path, since, [].iter()).unwrap();
        read(&[]);
        assert!(encoded.0.is_empty());
    }
}
