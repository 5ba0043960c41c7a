//! The session bookkeeping files in `state/` (SPEC §2, used by §5 the conversation, §6 forks and
//! §10 buttons), in the shapes the original ollim-bot writes, so an existing data directory
//! carries on:
//!
//! | file | type | holds |
//! | --- | --- | --- |
//! | `sessions.json` | [`MainSessionFile`] | the main session id, as plain text |
//! | `session_history.jsonl` | [`SessionHistory`] | one line per lifecycle event, append-only |
//! | `fork_messages.json` | [`ForkMessages`] | Discord messages a background fork sent, 7 days |
//! | `inquiries.json` | [`Inquiries`] | prompts behind `agent:` buttons, 7 days |
//! | `snoozes.json` *(ours)* | [`Snoozes`] | the reminders behind snooze buttons, 7 days |
//!
//! Each file has one writer in the running bot: the main session for the id, the
//! [`SessionRecords`] actor ([`records`]) for the history, the inquiries and the snoozes, the
//! Discord outbox for the fork messages; the types here are the file formats they use. Every JSON file is
//! written atomically through [`state_file`], and one that does not parse is set aside by it and
//! read as empty. [`compact_report`] turns the history and a compaction's numbers into the
//! `/compact` report line.

pub mod compact_report;
pub mod fork_messages;
pub mod history;
pub mod inquiries;
pub mod main_id;
pub mod python_json;
pub mod records;
pub mod snoozes;

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use crate::base::state_file;

pub use compact_report::CompactReport;
pub use fork_messages::{ForkLookup, ForkMessageRecord, ForkMessages};
pub use history::{EventKind, SessionEvent, SessionHistory};
pub use inquiries::{Inquiries, Inquiry};
pub use main_id::{IdChange, MainSessionFile};
pub use records::SessionRecords;
pub use snoozes::{Claim, SnoozeEntry, Snoozes};

/// How long fork-message records and button prompts stay usable.
pub const TTL: chrono::Duration = chrono::Duration::days(7);

/// What went wrong reading or writing a session file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A JSON state file could not be read or written.
    #[error(transparent)]
    State(#[from] state_file::Error),
    /// The history file could not be opened, appended to or read.
    #[error("{action} {path}: {source}")]
    Io {
        /// What we were doing.
        action: &'static str,
        /// The file concerned.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A record could not be encoded.
    #[error("encoding a record for {path}: {source}")]
    Encode {
        /// The file it was meant for.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
}

impl Error {
    /// What the system said, without the file (`No space left on device (os error 28)`).
    pub fn cause(&self) -> String {
        match self {
            Error::State(e) => state_file::NotSaved::from(e).cause,
            Error::Io { source, .. } => source.to_string(),
            Error::Encode { source, .. } => format!("it could not be encoded ({source})"),
        }
    }
}

/// `at` as Unix seconds with a fraction, the way the original stamps `ts` (`time.time()`).
fn unix_seconds(at: DateTime<Utc>) -> f64 {
    at.timestamp_micros() as f64 / 1_000_000.0
}

/// Whether a record stamped `ts` (Unix seconds) is still within [`TTL`] at `now`; a record is
/// live while strictly newer than the cutoff, as in the original.
fn is_live(ts: f64, now: DateTime<Utc>) -> bool {
    ts > unix_seconds(now - TTL)
}

/// Writes `value` atomically as one line in the original's spacing.
fn save_line<T: serde::Serialize + ?Sized>(path: &std::path::Path, value: &T) -> Result<(), Error> {
    let bytes = python_json::to_line(value).map_err(|source| Error::Encode {
        path: path.to_path_buf(),
        source,
    })?;
    state_file::write_atomic(path, &bytes)?;
    Ok(())
}
