//! The sessions in scope, newest first, and how a session is named on the command line: `prev`
//! (the latest session other than the one asking), `prev-2`, `prev-3`…, a session id, or the
//! start of one. Sessions are ordered by when their transcript last changed.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::store::{self, AgentFile, SessionFile};
use super::transcript::Transcript;

/// Everything the history commands read.
pub struct Library {
    /// Session files, most recently changed first.
    pub sessions: Vec<SessionFile>,
    /// The project directories read (their subagents are listed only when asked for).
    pub projects: Vec<PathBuf>,
    /// The session running the command (`CLAUDE_CODE_SESSION_ID`), left out of `prev`.
    pub current: Option<String>,
}

/// A session as read.
pub struct Loaded {
    /// Its file.
    pub file: SessionFile,
    /// Its label (`prev`, `prev-2`, `this`), when it has one.
    pub label: String,
    /// Its transcript.
    pub transcript: Transcript,
}

impl Library {
    /// The sessions of `projects`.
    pub fn open(projects: &[PathBuf], current: Option<String>) -> Self {
        let mut sessions: Vec<SessionFile> = projects
            .iter()
            .flat_map(|p| store::session_files(p))
            .collect();
        sessions.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.id.cmp(&b.id)));
        Self {
            sessions,
            projects: projects.to_vec(),
            current: current.filter(|c| !c.trim().is_empty()),
        }
    }

    /// The subagent transcripts of the projects.
    pub fn agents(&self) -> Vec<AgentFile> {
        self.projects
            .iter()
            .flat_map(|p| store::agent_files(p))
            .collect()
    }

    /// The label of the session at `index` in [`Library::sessions`].
    pub fn label(&self, index: usize) -> String {
        let file = &self.sessions[index];
        if self.current.as_deref() == Some(file.id.as_str()) {
            return "this".to_owned();
        }
        let before = self.sessions[..index]
            .iter()
            .filter(|s| self.current.as_deref() != Some(s.id.as_str()))
            .count();
        match before {
            0 => "prev".to_owned(),
            n => format!("prev-{}", n + 1),
        }
    }

    /// The sessions changed at or after `since` (all when `None`), with their indices.
    pub fn since(&self, since: Option<DateTime<Utc>>) -> Vec<usize> {
        (0..self.sessions.len())
            .filter(|&i| match (since, self.sessions[i].modified) {
                (Some(since), Some(modified)) => DateTime::<Utc>::from(modified) >= since,
                _ => true,
            })
            .collect()
    }

    /// The session `name` refers to.
    pub fn resolve(&self, name: &str) -> anyhow::Result<usize> {
        let name = name.trim();
        if let Some(n) = previous_number(name) {
            let index = (0..self.sessions.len())
                .filter(|&i| self.current.as_deref() != Some(self.sessions[i].id.as_str()))
                .nth(n - 1);
            return index.ok_or_else(|| {
                anyhow::anyhow!(
                    "there is no session {name}: {} session(s) in the history",
                    self.sessions.len()
                )
            });
        }
        if name.len() < 4 {
            anyhow::bail!("name a session by prev, prev-N or at least 4 characters of its id");
        }
        let matches: Vec<usize> = (0..self.sessions.len())
            .filter(|&i| self.sessions[i].id.starts_with(name))
            .collect();
        match matches.as_slice() {
            [one] => Ok(*one),
            [] => anyhow::bail!("no session matches {name:?} (see `ollim-bot history sessions`)"),
            many => anyhow::bail!(
                "{name:?} matches {} sessions; give more of the id",
                many.len()
            ),
        }
    }

    /// Reads the session at `index`; an unreadable file is an error naming it.
    pub fn load(&self, index: usize) -> anyhow::Result<Loaded> {
        let file = self.sessions[index].clone();
        let transcript = Transcript::read(&file.path)
            .map_err(|e| anyhow::anyhow!("reading {}: {e}", file.path.display()))?;
        note_skipped(&file.id, transcript.skipped_lines);
        Ok(Loaded {
            label: self.label(index),
            file,
            transcript,
        })
    }
}

/// `prev` → 1, `prev-3` → 3.
fn previous_number(name: &str) -> Option<usize> {
    let rest = name.strip_prefix("prev")?;
    if rest.is_empty() {
        return Some(1);
    }
    rest.strip_prefix('-')?.parse().ok().filter(|n| *n >= 1)
}

/// Tells (on stderr, so the output stays clean) how many lines of a transcript were unreadable.
pub fn note_skipped(id: &str, skipped: usize) {
    if skipped > 0 {
        let short: String = id.chars().take(8).collect();
        eprintln!("note: {skipped} unreadable line(s) in session {short} skipped");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    fn file(id: &str, age_secs: u64) -> SessionFile {
        SessionFile {
            id: id.to_owned(),
            path: PathBuf::from(format!("/x/{id}.jsonl")),
            modified: Some(SystemTime::now() - Duration::from_secs(age_secs)),
        }
    }

    fn library(current: Option<&str>) -> Library {
        Library {
            sessions: vec![
                file("aaaa1111", 1),
                file("bbbb2222", 2),
                file("bbbb3333", 3),
            ],
            projects: Vec::new(),
            current: current.map(str::to_owned),
        }
    }

    #[test]
    fn prev_counts_back_from_the_latest_session_but_the_asking_one() {
        let lib = library(None);
        assert_eq!(lib.resolve("prev").unwrap(), 0);
        assert_eq!(lib.resolve("prev-3").unwrap(), 2);
        assert!(lib.resolve("prev-4").is_err());
        assert_eq!(lib.label(1), "prev-2");
        let lib = library(Some("aaaa1111"));
        assert_eq!(lib.resolve("prev").unwrap(), 1);
        assert_eq!(lib.label(0), "this");
        assert_eq!(lib.label(1), "prev");
        assert!(lib.resolve("prev-3").is_err());
    }

    #[test]
    fn ids_resolve_by_a_unique_start() {
        let lib = library(None);
        assert_eq!(lib.resolve("aaaa").unwrap(), 0);
        assert_eq!(lib.resolve("bbbb3333").unwrap(), 2);
        assert!(lib.resolve("bbbb").is_err());
        assert!(lib.resolve("zzzz").is_err());
        assert!(lib.resolve("ab").is_err());
        assert!(lib.resolve("prev-0").is_err());
    }
}
