//! Broken job files told to the agent (SPEC §17; the original's "scheduler self-notification"
//! of 2026-03-16): a routine or reminder file that does not load, or a routine whose cron the
//! scheduler cannot register, becomes one pending update naming the file and the reason, so
//! the main session can fix it at the next turn. The log has it too.
//!
//! Once per broken content: what was told is remembered as `state/broken_jobs.json`, each file
//! (relative path) with a hash of the bytes that were broken, written by the scheduler alone.
//! A reload, an unrelated edit elsewhere, or a restart with the same broken bytes tells nothing
//! new; a file that loads again (or is removed) is forgotten, so breaking it again is told
//! again, as is a broken file edited into a different broken shape.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::base::data_dir::DataDir;
use crate::base::state_file::{self, Loaded};

/// Name of the record inside `state/`.
pub const FILE_NAME: &str = "broken_jobs.json";

/// A job file the scheduler could not register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenFile {
    /// The file.
    pub path: PathBuf,
    /// The file relative to the data directory (`routines/x.md`).
    pub rel_path: String,
    /// Why it is not registered.
    pub reason: String,
}

/// The pending update for `file`.
pub fn notice(file: &BrokenFile) -> String {
    format!(
        "Scheduler: {} is broken and will not run until it is fixed — {}",
        file.rel_path, file.reason
    )
}

/// What was told, and where that is kept.
#[derive(Debug)]
pub struct Notices {
    path: PathBuf,
    /// Relative path → hash of the broken bytes told about.
    told: BTreeMap<String, String>,
}

impl Notices {
    /// The record of `data`, read now (missing or unreadable: nothing told yet, logged).
    pub fn load(data: &DataDir) -> Self {
        let path = data.state_file(FILE_NAME);
        let told = match state_file::load_json(&path, BTreeMap::new) {
            Ok(Loaded::Found(told) | Loaded::Missing(told) | Loaded::Corrupt(told, _)) => told,
            Err(e) => {
                tracing::warn!(cause = %e, "could not read the broken job files told about");
                BTreeMap::new()
            }
        };
        Self { path, told }
    }

    /// The updates to send now, given every file broken now: one for each whose bytes were not
    /// told about yet. Files no longer broken are forgotten. Saves the record when it changed.
    pub fn review(&mut self, broken: &[BrokenFile]) -> Vec<String> {
        let mut told = BTreeMap::new();
        let mut fresh = Vec::new();
        for file in broken {
            // A file that vanished since it was read is no longer broken.
            let Some(hash) = content_hash(&file.path) else {
                continue;
            };
            if self.told.get(&file.rel_path) != Some(&hash) {
                tracing::warn!(file = %file.rel_path, reason = %file.reason, "broken job file told to the agent");
                fresh.push(notice(file));
            }
            told.insert(file.rel_path.clone(), hash);
        }
        if told != self.told {
            self.told = told;
            if let Err(e) = state_file::save_json(&self.path, &self.told) {
                tracing::error!(cause = %e, "could not save the broken job files told about");
            }
        }
        fresh
    }
}

/// A stable hash of the file's bytes (64-bit FNV-1a, hex): the same bytes give the same text in
/// every build, so the record survives an upgrade.
fn content_hash(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Some(format!("{hash:016x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn broken(data: &DataDir, name: &str, text: &str) -> BrokenFile {
        let path = data.routines().join(name);
        std::fs::write(&path, text).unwrap();
        BrokenFile {
            path,
            rel_path: format!("routines/{name}"),
            reason: "missing required field `cron`".into(),
        }
    }

    #[test]
    fn each_broken_content_is_told_once_even_across_a_restart() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        data.ensure().unwrap();
        let file = broken(&data, "a.md", "---\nid: a\n---\nhi\n");
        let mut notices = Notices::load(&data);
        assert_eq!(
            notices.review(std::slice::from_ref(&file)),
            [
                "Scheduler: routines/a.md is broken and will not run until it is fixed — missing \
              required field `cron`"
            ]
        );
        assert!(notices.review(std::slice::from_ref(&file)).is_empty());
        // A restart reads what was told.
        let mut restarted = Notices::load(&data);
        assert!(restarted.review(std::slice::from_ref(&file)).is_empty());
        // Broken differently: told again.
        let other = broken(&data, "a.md", "---\nid: a\n---\nhello\n");
        assert_eq!(restarted.review(std::slice::from_ref(&other)).len(), 1);
        // Fixed, then broken the same way again: told again.
        assert!(restarted.review(&[]).is_empty());
        assert_eq!(restarted.review(&[other]).len(), 1);
    }
}
