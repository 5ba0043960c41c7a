//! The files of persistent routine sessions under `state/routine_sessions/`.

use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::base::data_dir::DataDir;
use crate::base::state_file;

/// What is kept of a routine's session between fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// The CLI session to resume.
    pub session_id: String,
    /// The context the last run ended with, when it was reported.
    pub usage: Option<Usage>,
}

/// The context a run ended with: what its last model call read, and the window it read it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens of the last model call, cached or not.
    pub context_tokens: u64,
    /// The model's context window.
    pub window: u64,
}

impl Saved {
    /// Whether this session is compacted before its next fire.
    pub fn compaction_due(&self) -> bool {
        self.usage
            .is_some_and(|u| super::compaction_due(u.context_tokens, u.window))
    }
}

fn dir(data: &DataDir) -> PathBuf {
    data.state().join("routine_sessions")
}

fn id_file(data: &DataDir, routine: &str) -> PathBuf {
    dir(data).join(routine)
}

fn usage_file(data: &DataDir, routine: &str) -> PathBuf {
    dir(data).join(format!("{routine}.usage"))
}

/// The saved session of `routine` (a validated job id), or `None` before its first fire. A file
/// that cannot be read is logged and read as none: the fire starts a new session.
pub fn load(data: &DataDir, routine: &str) -> Option<Saved> {
    let path = id_file(data, routine);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::warn!(file = %path.display(), cause = %e, "cannot read the routine's session id; it starts a new session");
            return None;
        }
    };
    let session_id = text.trim();
    if session_id.is_empty() {
        return None;
    }
    let usage = match state_file::load_json::<Option<Usage>>(&usage_file(data, routine), || None) {
        Ok(loaded) => loaded.into_value(),
        Err(e) => {
            tracing::warn!(%routine, cause = %e, "cannot read the routine's last context; not compacting");
            None
        }
    };
    Some(Saved {
        session_id: session_id.to_owned(),
        usage,
    })
}

/// Saves `saved` as `routine`'s session (each file written atomically; the usage first, so a
/// crash between the two leaves the old id with a figure that is at worst too high).
pub fn save(data: &DataDir, routine: &str, saved: &Saved) -> Result<(), state_file::Error> {
    // The directory is made by the first write (`state_file` creates a file's directory).
    let usage = usage_file(data, routine);
    match saved.usage {
        Some(u) => state_file::save_json(&usage, &u)?,
        None => {
            remove_file(&usage)?;
        }
    }
    state_file::write_atomic(
        &id_file(data, routine),
        format!("{}\n", saved.session_id).as_bytes(),
    )
}

/// Removes `routine`'s session files; `Ok(true)` when it had a session.
pub fn remove(data: &DataDir, routine: &str) -> Result<bool, state_file::Error> {
    remove_file(&usage_file(data, routine))?;
    remove_file(&id_file(data, routine))
}

fn remove_file(path: &std::path::Path) -> Result<bool, state_file::Error> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(state_file::Error::Io {
            action: "removing",
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> (tempfile::TempDir, DataDir) {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path().join("data"));
        (tmp, data)
    }

    #[test]
    fn a_session_is_saved_loaded_and_removed() {
        let (_tmp, data) = data();
        assert_eq!(load(&data, "a1b2c3d4"), None);
        let saved = Saved {
            session_id: "s-1".into(),
            usage: Some(Usage {
                context_tokens: 130_000,
                window: 200_000,
            }),
        };
        save(&data, "a1b2c3d4", &saved).unwrap();
        assert_eq!(load(&data, "a1b2c3d4"), Some(saved.clone()));
        assert!(saved.compaction_due());
        let text = std::fs::read_to_string(data.state().join("routine_sessions/a1b2c3d4"));
        assert_eq!(
            text.unwrap(),
            "s-1\n",
            "the id alone, as the original wrote it"
        );
        assert!(remove(&data, "a1b2c3d4").unwrap());
        assert_eq!(load(&data, "a1b2c3d4"), None);
        assert!(!remove(&data, "a1b2c3d4").unwrap());
        let left = std::fs::read_dir(data.state().join("routine_sessions")).unwrap();
        assert_eq!(left.count(), 0, "nothing left behind");
    }

    #[test]
    fn the_original_bots_file_is_read_and_a_later_save_drops_a_stale_figure() {
        let (_tmp, data) = data();
        std::fs::create_dir_all(data.state().join("routine_sessions")).unwrap();
        std::fs::write(
            data.state().join("routine_sessions/r1"),
            "  sess-from-python",
        )
        .unwrap();
        let saved = load(&data, "r1").unwrap();
        assert_eq!(saved.session_id, "sess-from-python");
        assert_eq!(saved.usage, None);
        assert!(!saved.compaction_due());
        save(
            &data,
            "r1",
            &Saved {
                session_id: "s-2".into(),
                usage: Some(Usage {
                    context_tokens: 1,
                    window: 2,
                }),
            },
        )
        .unwrap();
        save(
            &data,
            "r1",
            &Saved {
                session_id: "s-3".into(),
                usage: None,
            },
        )
        .unwrap();
        assert_eq!(load(&data, "r1").unwrap().usage, None);
    }
}
