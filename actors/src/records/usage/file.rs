//! `state/usage.jsonl`: one JSON line per turn ([`UsageRecord`]), oldest first.
//!
//! Lines are appended whole (one `write` of a complete line in append mode), so a crash leaves
//! every earlier line intact; a line that does not parse (a torn last line, a hand edit) is
//! skipped and counted by readers, and the next append starts on a fresh line. Pruning
//! rewrites the file atomically without the lines older than [`KEEP`], keeping every other
//! line byte for byte (a line whose time cannot be read is kept too: nothing is dropped that
//! is not known to be old). Reading never writes, so `ollim-bot usage` may read while the bot
//! runs.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use chrono::{DateTime, Duration, FixedOffset, Utc};
use serde::Deserialize;

use super::record::UsageRecord;
use crate::base::state_file;

/// The file's name inside `state/`.
pub const FILE_NAME: &str = "usage.jsonl";

/// How long a line is kept.
pub const KEEP: Duration = Duration::days(400);

/// What was read from the file.
#[derive(Debug, Default)]
pub struct Read {
    /// The lines that parsed, in file order.
    pub records: Vec<UsageRecord>,
    /// Lines that did not parse.
    pub skipped: usize,
    /// The file does not end with a newline (a torn last line).
    pub torn_end: bool,
}

fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>, state_file::Error> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(state_file::Error::Io {
            action: "reading",
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
}

/// Reads every line of `path`; a missing file reads as empty.
pub fn read(path: &Path) -> Result<Read, state_file::Error> {
    let Some(bytes) = read_bytes(path)? else {
        return Ok(Read::default());
    };
    let mut out = Read {
        torn_end: !bytes.is_empty() && !bytes.ends_with(b"\n"),
        ..Read::default()
    };
    for line in lines(&bytes) {
        match serde_json::from_slice::<UsageRecord>(line) {
            Ok(record) => out.records.push(record),
            Err(_) => out.skipped += 1,
        }
    }
    Ok(out)
}

/// Whether the file at `path` ends in a torn line (the next append must start a fresh one).
pub fn torn_end(path: &Path) -> Result<bool, state_file::Error> {
    Ok(read_bytes(path)?.is_some_and(|b| !b.is_empty() && !b.ends_with(b"\n")))
}

/// Appends `record` as one whole line; `fresh_line` first ends a torn last line.
pub fn append(
    path: &Path,
    record: &UsageRecord,
    fresh_line: bool,
) -> Result<(), state_file::Error> {
    let mut bytes = Vec::new();
    if fresh_line {
        bytes.push(b'\n');
    }
    serde_json::to_writer(&mut bytes, record).map_err(|source| state_file::Error::Encode {
        path: path.to_path_buf(),
        source,
    })?;
    bytes.push(b'\n');
    let io_err = |action| {
        move |source| state_file::Error::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    };
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_err("opening"))?;
    file.write_all(&bytes).map_err(io_err("appending to"))
}

/// Only the time of a line, so pruning reads what it must and keeps the rest as it was.
#[derive(Deserialize)]
struct Stamp {
    ts: DateTime<FixedOffset>,
}

/// What pruning did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Lines removed for being older than [`KEEP`].
    pub removed: usize,
    /// Lines kept although their time could not be read.
    pub unreadable: usize,
}

/// Removes the lines older than [`KEEP`] at `now`, rewriting the file atomically when any go;
/// every other line stays byte for byte.
pub fn prune(path: &Path, now: DateTime<Utc>) -> Result<Pruned, state_file::Error> {
    let Some(bytes) = read_bytes(path)? else {
        return Ok(Pruned::default());
    };
    let mut pruned = Pruned::default();
    let mut kept = Vec::with_capacity(bytes.len());
    for line in lines(&bytes) {
        match serde_json::from_slice::<Stamp>(line) {
            Ok(stamp) if now - stamp.ts.with_timezone(&Utc) > KEEP => {
                pruned.removed += 1;
                continue;
            }
            Ok(_) => {}
            Err(_) => pruned.unreadable += 1,
        }
        kept.extend_from_slice(line);
        kept.push(b'\n');
    }
    if pruned.removed > 0 {
        state_file::write_atomic(path, &kept)?;
    }
    Ok(pruned)
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
