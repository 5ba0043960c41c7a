//! `state/runs.jsonl`: one JSON line per run or miss ([`RunRecord`]), oldest first.
//!
//! Lines are appended whole (one `write` of a complete line in append mode), so a crash leaves
//! every earlier line intact; a line that does not parse (a torn last line after a power cut, a
//! hand edit) is skipped and counted, and the next append starts on a fresh line. Pruning
//! rewrites the file atomically without the lines older than [`KEEP`] (and than the current
//! month, [`keep_from`]): when they are its first
//! lines (nearly always, lines being appended as runs end) the rest is copied as it is
//! ([`drop_leading`]), else every kept line is written again ([`rewrite`]). Reading never writes, so
//! `ollim-bot routine history` may read while the bot runs.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use chrono::{DateTime, Duration, Utc};

use super::record::RunRecord;
use crate::base::state_file;

/// The file's name inside `state/`.
pub const FILE_NAME: &str = "runs.jsonl";

/// How long a line is kept.
pub const KEEP: Duration = Duration::days(30);

/// What was read from the file.
#[derive(Debug, Default)]
pub struct Read {
    /// The lines that parsed, in file order.
    pub records: Vec<RunRecord>,
    /// Lines that did not parse.
    pub skipped: usize,
    /// The file does not end with a newline (a torn last line).
    pub torn_end: bool,
    /// The file exists.
    pub exists: bool,
}

/// Reads every line of `path`; a missing file reads as empty.
pub fn read(path: &Path) -> Result<Read, state_file::Error> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Read::default()),
        Err(source) => {
            return Err(state_file::Error::Io {
                action: "reading",
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let mut out = Read {
        torn_end: !bytes.is_empty() && !bytes.ends_with(b"\n"),
        exists: true,
        ..Read::default()
    };
    for line in bytes.split(|b| *b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<RunRecord>(line) {
            Ok(record) => out.records.push(record),
            Err(_) => out.skipped += 1,
        }
    }
    Ok(out)
}

/// Appends `records` as whole lines; `fresh_line` first ends a torn last line.
pub fn append(
    path: &Path,
    records: &[RunRecord],
    fresh_line: bool,
) -> Result<(), state_file::Error> {
    let mut bytes = Vec::new();
    if fresh_line {
        bytes.push(b'\n');
    }
    for record in records {
        serde_json::to_writer(&mut bytes, record).map_err(|source| state_file::Error::Encode {
            path: path.to_path_buf(),
            source,
        })?;
        bytes.push(b'\n');
    }
    let io_err = |action| {
        move |source| state_file::Error::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    };
    let appended = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_err("opening"))
        .and_then(|mut file| {
            let before = file.metadata().map(|m| m.len()).map_err(io_err("reading"))?;
            file.write_all(&bytes).map_err(|e| {
                // A part written (the disk filled up mid-line) is cut off again, so the
                // file keeps whole lines only.
                if let Err(cut) = file.set_len(before) {
                    tracing::warn!(file = %path.display(), cause = %cut, "could not cut off a part-written line");
                }
                io_err("appending to")(e)
            })
        });
    match &appended {
        Ok(()) => crate::base::disk_space::note_write(path, Ok(())),
        Err(state_file::Error::Io { source, .. }) => {
            crate::base::disk_space::note_write(path, Err(source))
        }
        Err(_) => {}
    }
    appended
}

/// Rewrites the file with `records` only (atomically).
pub fn rewrite(path: &Path, records: &[RunRecord]) -> Result<(), state_file::Error> {
    let mut bytes = Vec::new();
    for record in records {
        serde_json::to_writer(&mut bytes, record).map_err(|source| state_file::Error::Encode {
            path: path.to_path_buf(),
            source,
        })?;
        bytes.push(b'\n');
    }
    state_file::write_atomic(path, &bytes)
}

/// Rewrites the file without its first lines when those are the runs `leading`, in order
/// (a line among them that does not parse goes too, as in [`rewrite`]); the rest is kept byte
/// for byte, without parsing it again. Answers `false`, writing nothing, when the file does not
/// begin with them: the caller then rewrites it whole.
pub fn drop_leading(path: &Path, leading: &[String]) -> Result<bool, state_file::Error> {
    #[derive(serde::Deserialize)]
    struct RunOnly {
        run: String,
    }
    let bytes = fs::read(path).map_err(|source| state_file::Error::Io {
        action: "reading",
        path: path.to_path_buf(),
        source,
    })?;
    let mut at = 0;
    let mut wanted = leading.iter().peekable();
    while let Some(expected) = wanted.peek() {
        let Some(len) = bytes[at..].iter().position(|b| *b == b'\n') else {
            return Ok(false);
        };
        let line = &bytes[at..at + len];
        at += len + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<RunOnly>(line) {
            Ok(found) if found.run == **expected => {
                wanted.next();
            }
            Ok(_) => return Ok(false),
            Err(_) => {}
        }
    }
    state_file::write_atomic(path, &bytes[at..])?;
    Ok(true)
}

/// The oldest end time kept at `now`: [`KEEP`] back, or local midnight on the first of the
/// month when that is earlier — the month's spend is summed from these lines, so on the 31st
/// the 1st's runs still count.
pub fn keep_from(now: DateTime<Utc>, zone: chrono_tz::Tz) -> DateTime<Utc> {
    let month = crate::base::local_days::month_start(now.with_timezone(&zone)).with_timezone(&Utc);
    (now - KEEP).min(month)
}

/// Whether `record` ended before `keep_from`.
pub fn expired(record: &RunRecord, keep_from: DateTime<Utc>) -> bool {
    record.ended.with_timezone(&Utc) < keep_from
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::JobId;
    use crate::records::runs::record::{JobKind, Outcome, Trigger};

    fn record(run: &str, ended: &str) -> RunRecord {
        let at = DateTime::parse_from_rfc3339(ended).unwrap();
        RunRecord {
            run: run.into(),
            job: JobId("j".into()),
            kind: JobKind::Reminder,
            tag: "reminder".into(),
            name: "n".into(),
            file: "reminders/n.md".into(),
            scheduled: at,
            started: Some(at),
            ended: at,
            outcome: Outcome::Ok,
            pinged: false,
            reported: false,
            cost_usd: None,
            turns: None,
            error: None,
            late_since: None,
            trigger: Trigger::Schedule,
            alerted: false,
            count: None,
            session: None,
        }
    }

    #[test]
    fn a_torn_or_foreign_line_is_skipped_and_the_next_append_starts_fresh() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(FILE_NAME);
        append(&path, &[record("a", "2026-03-01T10:00:00Z")], false).unwrap();
        fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"run\":\"half")
            .unwrap();
        let read1 = read(&path).unwrap();
        assert_eq!(
            (read1.records.len(), read1.skipped, read1.torn_end),
            (1, 1, true)
        );
        append(
            &path,
            &[record("b", "2026-03-01T11:00:00Z")],
            read1.torn_end,
        )
        .unwrap();
        let read2 = read(&path).unwrap();
        let runs: Vec<_> = read2.records.iter().map(|r| r.run.as_str()).collect();
        assert_eq!(runs, ["a", "b"]);
        assert_eq!((read2.skipped, read2.torn_end), (1, false));
    }

    #[test]
    fn a_missing_file_reads_empty_and_expiry_is_thirty_days_or_the_month() {
        let tmp = tempfile::tempdir().unwrap();
        let read = read(&tmp.path().join(FILE_NAME)).unwrap();
        assert!(!read.exists && read.records.is_empty());
        let zone = chrono_tz::Europe::Berlin;
        let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        // Mid-month: 30 days back reaches into the month before.
        let kept = keep_from(at("2026-04-15T12:00:00Z"), zone);
        assert_eq!(kept, at("2026-03-16T12:00:00Z"));
        assert!(expired(&record("old", "2026-03-16T11:59:00Z"), kept));
        assert!(!expired(&record("new", "2026-03-16T12:01:00Z"), kept));
        // On the 31st the month reaches further back: its first hour (local) is kept.
        let kept = keep_from(at("2026-03-31T20:00:00Z"), zone);
        assert_eq!(kept, at("2026-02-28T23:00:00Z"));
        assert!(!expired(
            &record("first", "2026-03-01T00:10:00+01:00"),
            kept
        ));
        assert!(expired(&record("feb", "2026-02-28T23:50:00+01:00"), kept));
    }

    #[test]
    fn dropping_the_leading_runs_keeps_the_rest_byte_for_byte_or_declines() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(FILE_NAME);
        let lines = [
            record("a", "2026-03-01T10:00:00Z"),
            record("b", "2026-03-02T10:00:00Z"),
        ];
        append(&path, &lines, false).unwrap();
        fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"not json\n   {\"run\": \"c\", \"hand\": \"edited\"}\n")
            .unwrap();
        let before = fs::read_to_string(&path).unwrap();
        // The file does not begin with "b": nothing is written.
        assert!(!drop_leading(&path, &["b".to_owned()]).unwrap());
        assert_eq!(fs::read_to_string(&path).unwrap(), before);
        assert!(drop_leading(&path, &["a".to_owned(), "b".to_owned()]).unwrap());
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "not json\n   {\"run\": \"c\", \"hand\": \"edited\"}\n",
            "the lines after the dropped ones are copied as they were"
        );
        assert!(!drop_leading(&path, &["c".to_owned(), "d".to_owned()]).unwrap());
    }
}
