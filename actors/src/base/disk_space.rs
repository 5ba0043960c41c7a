//! A full disk, told to the owner once *(ours, issue 28)*. Every write of a state or job file
//! (`state_file`, the run history's appends) reports here how it went
//! ([`note_write`]). The first write refused for lack of space starts an episode: one
//! [`DiskSpace::Full`] naming the file goes to whoever listens ([`subscribe`]; the supervisor
//! turns it into one notice for the owner), and the failed writes after it say nothing more.
//! The first write that succeeds again ends the episode ([`DiskSpace::Back`]) and re-arms the
//! notice for the next one.
//!
//! The writes come from many actors and from free functions, so the episode is one flag for
//! the process ([`Episode`]), set and cleared with a single atomic swap: whichever write
//! starts or ends an episode is the one that tells.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::LazyLock;

use tokio::sync::broadcast;

/// A change of the disk's state, as writes saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiskSpace {
    /// A write was refused for lack of space (the first of an episode).
    Full {
        /// The file it was writing.
        file: String,
        /// The system's words.
        error: String,
    },
    /// A write succeeded again after an episode.
    Back,
}

impl DiskSpace {
    /// The line for the owner.
    pub fn text(&self) -> String {
        match self {
            DiskSpace::Full { file, error } => format!(
                "⚠️ the disk is full: {file} could not be saved ({error}). The bot keeps \
                 running on what it last saved, but what changes now may be lost — free some \
                 space. (Said once until writing works again.)"
            ),
            DiskSpace::Back => "-# disk space is back: files are being saved again.".to_owned(),
        }
    }
}

/// Whether a full-disk episode is going on, and the one transition that tells.
#[derive(Debug, Default)]
pub struct Episode(AtomicBool);

impl Episode {
    /// A write was refused for lack of space: true when this starts an episode.
    pub fn full(&self) -> bool {
        !self.0.swap(true, Ordering::AcqRel)
    }

    /// A write succeeded: true when this ends an episode.
    pub fn written(&self) -> bool {
        self.0.swap(false, Ordering::AcqRel)
    }
}

static EPISODE: Episode = Episode(AtomicBool::new(false));
static EVENTS: LazyLock<broadcast::Sender<DiskSpace>> = LazyLock::new(|| broadcast::channel(8).0);

/// Whether `error` says the disk (or the quota) is full.
pub fn is_full(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
    )
}

/// Reports a write of `path`: `Ok`, or the error it failed with.
pub fn note_write(path: &Path, outcome: Result<(), &io::Error>) {
    match outcome {
        Ok(()) => {
            if EPISODE.written() {
                tracing::info!(file = %path.display(), "a write succeeded again: disk space is back");
                let _ = EVENTS.send(DiskSpace::Back);
            }
        }
        Err(e) if is_full(e) => {
            if EPISODE.full() {
                tracing::error!(file = %path.display(), cause = %e, "the disk is full");
                let _ = EVENTS.send(DiskSpace::Full {
                    file: path.display().to_string(),
                    error: e.to_string(),
                });
            }
        }
        Err(_) => {}
    }
}

/// Hears every episode's start and end from now on.
pub fn subscribe() -> broadcast::Receiver<DiskSpace> {
    EVENTS.subscribe()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_episode_is_told_once_and_ends_with_the_first_write_that_works() {
        let episode = Episode::default();
        assert!(!episode.written(), "no episode: a write says nothing");
        assert!(episode.full(), "the first refused write tells");
        assert!(!episode.full(), "the next ones do not");
        assert!(!episode.full());
        assert!(episode.written(), "the first write that works ends it");
        assert!(!episode.written());
        assert!(episode.full(), "the next episode tells again");
    }

    #[test]
    fn only_a_full_disk_counts() {
        assert!(is_full(&io::Error::from_raw_os_error(28)), "ENOSPC");
        assert!(!is_full(&io::Error::from(io::ErrorKind::PermissionDenied)));
        let text = DiskSpace::Full {
            file: "/d/state/ping_budget.json".into(),
            error: "No space left on device (os error 28)".into(),
        }
        .text();
        assert!(text.contains("/d/state/ping_budget.json could not be saved (No space left on device (os error 28))"), "{text}");
    }
}
