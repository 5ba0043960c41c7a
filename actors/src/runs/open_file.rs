//! `state/runs_open.json`: the runs that have started and not yet ended ([`OpenRun`]), and since
//! when the bot keeps a run history (`history_since`: missed-run catch-up never looks earlier,
//! so the first start of a version with history does not re-run what an older one ran).
//!
//! Rewritten atomically on every change. A run whose entry outlives the process that opened it
//! was cut off by a crash or a stop; the next start finds it here.

use std::path::Path;

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

use super::record::OpenRun;
use crate::state_file::{self, Loaded};

/// The file's name inside `state/`.
pub const FILE_NAME: &str = "runs_open.json";

/// The file's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// Writes the file atomically.
pub fn save(path: &Path, file: &OpenFile) -> Result<(), state_file::Error> {
    state_file::save_json(path, file)
}
