//! Flush before forgetting (SPEC §18): the silent `[memory-flush]` turn the conversation gets
//! before `/clear`, before `/compact`, and once when its context passes `memory_flush_at`, and
//! the session snapshot its answer becomes (`memory/sessions/YYYY-MM-DD-HHMM-<id8>.md`).
//!
//! This module is the pure part — the prompt, the threshold, the snapshot file — so it is tested
//! without an actor; the main session drives it (`main_session::memory_flush`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

/// Where snapshots live, relative to the data directory.
pub const SNAPSHOT_DIR: &str = "memory/sessions";
/// The tag that starts the flush prompt (neutralised in outside text, see `untrusted_fence`).
pub const TAG: &str = "[memory-flush]";
/// The longest a flush may take before the clear or compaction goes ahead without it.
pub const LIMIT: Duration = Duration::from_secs(120);
/// Shown while the flush runs (its answer is not shown).
pub const SAVING: &str = "-# saving what to remember…";
/// Shown when the flush failed or took too long (the clear or compaction happens anyway).
pub const NOT_SAVED: &str = "-# couldn't save a snapshot";

/// What the flush comes before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// `/clear`.
    Clear,
    /// `/compact`.
    Compact,
    /// The context passed `memory_flush_at`.
    Threshold,
}

impl Reason {
    /// The word in the snapshot's frontmatter.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Clear => "clear",
            Reason::Compact => "compact",
            Reason::Threshold => "threshold",
        }
    }
}

/// The flush prompt for `reason`; `user` is the owner's name.
pub fn prompt(reason: Reason, user: &str) -> String {
    let why = match reason {
        Reason::Clear => "This conversation is about to be cleared.",
        Reason::Compact => "This conversation is about to be compacted.",
        Reason::Threshold => "This conversation's context is filling up.",
    };
    format!(
        "{TAG} {why} First update context.md (your living memory) with what from it is worth \
         keeping: ongoing projects, commitments, decisions, people, preferences not already in \
         USER.md; keep the file condensed. Then answer with a short summary of this session \
         (a few lines: what was discussed, decided and left open). {user} does not see this \
         answer; it is saved as a snapshot in {SNAPSHOT_DIR}/."
    )
}

/// Whether `tokens` of context reach `pct` percent of `window`.
pub fn past_threshold(tokens: u64, window: u64, pct: u64) -> bool {
    window > 0 && tokens.saturating_mul(100) >= window.saturating_mul(pct)
}

/// One snapshot to write.
#[derive(Debug, Clone)]
pub struct Snapshot<'a> {
    /// The session that was flushed.
    pub session: &'a str,
    /// What the flush came before.
    pub reason: Reason,
    /// The session's first message the bot knows of.
    pub from: DateTime<Utc>,
    /// Its last message.
    pub to: DateTime<Utc>,
    /// The agent's summary.
    pub summary: &'a str,
}

/// Why a snapshot was not written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The directory or the file could not be written.
    #[error("writing {path}: {source}")]
    Io {
        /// Where.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl Snapshot<'_> {
    /// The file's text: YAML frontmatter (`session`, `reason`, `from`, `to`, times in `tz`),
    /// then the summary.
    pub fn render(&self, tz: Tz) -> String {
        let time = |t: DateTime<Utc>| t.with_timezone(&tz).to_rfc3339();
        format!(
            "---\nsession: {}\nreason: {}\nfrom: {}\nto: {}\n---\n\n{}\n",
            self.session,
            self.reason.as_str(),
            time(self.from),
            time(self.to),
            self.summary.trim()
        )
    }

    /// Writes the snapshot under `data_root`, named for `now` (local `YYYY-MM-DD-HHMM`) and the
    /// session's first 8 characters; a second flush of the same session in the same minute
    /// gets `-2`, `-3`… rather than overwriting the first. Returns the file's path.
    pub fn write(&self, data_root: &Path, now: DateTime<Utc>, tz: Tz) -> Result<PathBuf, Error> {
        let dir = data_root.join(SNAPSHOT_DIR);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io { path, source }
        };
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let short: String = self
            .session
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
            .take(8)
            .collect();
        let stem = format!("{}-{short}", now.with_timezone(&tz).format("%Y-%m-%d-%H%M"));
        let text = self.render(tz);
        for n in 1..1000 {
            let name = if n == 1 {
                format!("{stem}.md")
            } else {
                format!("{stem}-{n}.md")
            };
            let path = dir.join(name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut file) => {
                    file.write_all(text.as_bytes()).map_err(io(&path))?;
                    return Ok(path);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(&path)(e)),
            }
        }
        Err(io(&dir)(std::io::Error::other(
            "too many snapshots this minute",
        )))
    }
}

/// A snapshot as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// Its file name (`2026-11-27-1005-0123abcd.md`).
    pub name: String,
    /// Its text, cut to `max_chars`.
    pub text: String,
}

/// The newest `limit` snapshots under `data_root` (by name, which starts with the local time),
/// newest first, each cut to `max_chars`: what the dashboard's Memory page lists. A missing
/// directory is none; an unreadable file is logged and left out.
pub fn recent(data_root: &Path, limit: usize, max_chars: usize) -> Vec<Saved> {
    let dir = data_root.join(SNAPSHOT_DIR);
    let mut names: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".md"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            tracing::warn!(dir = %dir.display(), cause = %e, "snapshots unreadable");
            return Vec::new();
        }
    };
    names.sort_unstable_by(|a, b| b.cmp(a));
    names
        .into_iter()
        .take(limit)
        .filter_map(|name| match std::fs::read_to_string(dir.join(&name)) {
            Ok(text) => Some(Saved {
                text: text.chars().take(max_chars).collect(),
                name,
            }),
            Err(e) => {
                tracing::warn!(file = %name, cause = %e, "snapshot unreadable");
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn recent_snapshots_come_newest_first_bounded_and_cut() {
        let dir = tempfile::tempdir().unwrap();
        assert!(recent(dir.path(), 5, 100).is_empty(), "no directory: none");
        let snaps = dir.path().join(SNAPSHOT_DIR);
        std::fs::create_dir_all(&snaps).unwrap();
        for name in [
            "2026-11-25-0900-a.md",
            "2026-11-27-1005-b.md",
            "2026-11-26-0800-c.md",
        ] {
            std::fs::write(snaps.join(name), format!("summary of {name}")).unwrap();
        }
        std::fs::write(snaps.join("notes.txt"), "not a snapshot").unwrap();
        let found = recent(dir.path(), 2, 12);
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["2026-11-27-1005-b.md", "2026-11-26-0800-c.md"]);
        assert_eq!(found[0].text, "summary of 2");
    }

    #[test]
    fn the_threshold_is_a_share_of_the_window() {
        assert!(!past_threshold(139_999, 200_000, 70));
        assert!(past_threshold(140_000, 200_000, 70));
        assert!(!past_threshold(10, 0, 70));
    }

    #[test]
    fn the_prompt_starts_with_the_tag_and_names_context_md() {
        let p = prompt(Reason::Compact, "Julius");
        assert!(p.starts_with("[memory-flush] This conversation is about to be compacted."));
        assert!(p.contains("context.md") && p.contains("Julius does not see"));
    }

    #[test]
    fn a_snapshot_has_its_frontmatter_and_never_overwrites_another() {
        let dir = tempfile::tempdir().unwrap();
        let tz: Tz = "Europe/Berlin".parse().unwrap();
        let from = Utc.with_ymd_and_hms(2026, 11, 27, 8, 0, 0).unwrap();
        let now = Utc.with_ymd_and_hms(2026, 11, 27, 9, 5, 0).unwrap();
        let snap = Snapshot {
            session: "0123abcd-ffff-eeee",
            reason: Reason::Clear,
            from,
            to: now,
            summary: "  talked about the dentist\n",
        };
        let first = snap.write(dir.path(), now, tz).unwrap();
        let second = snap.write(dir.path(), now, tz).unwrap();
        assert!(first.ends_with("memory/sessions/2026-11-27-1005-0123abcd.md"));
        assert!(second.ends_with("memory/sessions/2026-11-27-1005-0123abcd-2.md"));
        let text = std::fs::read_to_string(first).unwrap();
        assert_eq!(
            text,
            "---\nsession: 0123abcd-ffff-eeee\nreason: clear\nfrom: 2026-11-27T09:00:00+01:00\n\
             to: 2026-11-27T10:05:00+01:00\n---\n\ntalked about the dentist\n"
        );
    }
}
