//! `state/sessions.json`: the main session's id, as plain text despite the name (SPEC §2, §5).
//!
//! The id is saved after every turn and read at start to resume the conversation; `/clear`
//! removes it. The file holds the bare id with no newline, as the original writes it. A file
//! starting with `{` is the original's older JSON layout and reads as "no session", as it does
//! there; anything else that is not a single token is set aside as corrupt.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::base::data_dir::DataDir;
use crate::base::state_file;

use super::Error;

/// Name of the file inside `state/`.
pub const FILE_NAME: &str = "sessions.json";

/// What a save changed, so the caller can log the matching history event (the original logs
/// `created` for the first id and `compacted` when the id changes, except during a swap, where
/// the caller logs `swapped` instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdChange {
    /// There was no id before.
    Created,
    /// A different id was replaced.
    Replaced {
        /// The id that was there.
        previous: String,
    },
    /// The same id was already saved.
    Unchanged,
}

/// Why the file's content was rejected.
#[derive(Debug, thiserror::Error)]
pub enum Malformed {
    /// The bytes are not text.
    #[error("not UTF-8")]
    NotText,
    /// More than the one id.
    #[error("more than one word")]
    NotOneToken,
}

/// The main session id file.
#[derive(Debug, Clone)]
pub struct MainSessionFile {
    /// Where the id lives.
    path: PathBuf,
}

impl MainSessionFile {
    /// The id file at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// `state/sessions.json` in `data_dir`.
    pub fn in_data_dir(data_dir: &DataDir) -> Self {
        Self::new(data_dir.state_file(FILE_NAME))
    }

    /// The file this reads and writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The saved id; `None` when there is none (no file, empty, the old JSON layout, or a
    /// corrupt file, which is set aside).
    pub fn load(&self) -> Result<Option<String>, Error> {
        let loaded = state_file::load_with(&self.path, parse, || None)?;
        Ok(loaded.into_value())
    }

    /// Saves `session_id` atomically and says how it differs from what was there.
    pub fn save(&self, session_id: &str) -> Result<IdChange, Error> {
        let change = match self.load()? {
            None => IdChange::Created,
            Some(previous) if previous == session_id => IdChange::Unchanged,
            Some(previous) => IdChange::Replaced { previous },
        };
        state_file::write_atomic(&self.path, session_id.as_bytes())?;
        Ok(change)
    }

    /// Removes the id (the next turn starts a new session); returns the id that was saved.
    pub fn clear(&self) -> Result<Option<String>, Error> {
        let previous = self.load()?;
        match fs::remove_file(&self.path) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => Err(Error::Io {
                action: "removing",
                path: self.path.clone(),
                source: err,
            }),
            _ => Ok(previous),
        }
    }
}

/// The id a file's content holds (`None` for the original's older JSON layout), without
/// touching the file; `doctor` checks with this what a start would read.
pub fn parse(bytes: &[u8]) -> Result<Option<String>, Malformed> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| Malformed::NotText)?
        .trim();
    if text.starts_with('{') {
        return Ok(None);
    }
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Malformed::NotOneToken);
    }
    Ok(Some(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> (tempfile::TempDir, MainSessionFile) {
        let dir = tempfile::tempdir().unwrap();
        let f = MainSessionFile::new(dir.path().join("state").join(FILE_NAME));
        (dir, f)
    }

    #[test]
    fn saved_id_loads_back_and_is_stored_as_bare_text() {
        let (_dir, f) = file();
        assert_eq!(f.load().unwrap(), None);
        assert_eq!(f.save("abc-123").unwrap(), IdChange::Created);
        assert_eq!(f.load().unwrap().as_deref(), Some("abc-123"));
        assert_eq!(fs::read(f.path()).unwrap(), b"abc-123");
    }

    #[test]
    fn save_reports_replacement_and_no_change() {
        let (_dir, f) = file();
        f.save("one").unwrap();
        assert_eq!(f.save("one").unwrap(), IdChange::Unchanged);
        assert_eq!(
            f.save("two").unwrap(),
            IdChange::Replaced {
                previous: "one".into()
            }
        );
        assert_eq!(f.load().unwrap().as_deref(), Some("two"));
    }

    #[test]
    fn clear_removes_the_file_and_returns_the_old_id() {
        let (_dir, f) = file();
        assert_eq!(f.clear().unwrap(), None);
        f.save("gone").unwrap();
        assert_eq!(f.clear().unwrap().as_deref(), Some("gone"));
        assert!(!f.path().exists());
        assert_eq!(f.load().unwrap(), None);
    }

    #[test]
    fn id_written_by_the_original_with_a_newline_is_read() {
        let (_dir, f) = file();
        fs::create_dir_all(f.path().parent().unwrap()).unwrap();
        fs::write(f.path(), "7c4b1e2a-0000-4000-8000-000000000000\n").unwrap();
        assert_eq!(
            f.load().unwrap().as_deref(),
            Some("7c4b1e2a-0000-4000-8000-000000000000")
        );
    }

    #[test]
    fn old_json_layout_reads_as_no_session_and_stays_in_place() {
        let (_dir, f) = file();
        fs::create_dir_all(f.path().parent().unwrap()).unwrap();
        fs::write(f.path(), r#"{"session_id": "x"}"#).unwrap();
        assert_eq!(f.load().unwrap(), None);
        assert!(f.path().exists());
    }

    #[test]
    fn garbage_is_set_aside_and_reads_as_no_session() {
        let (_dir, f) = file();
        let state = f.path().parent().unwrap().to_path_buf();
        fs::create_dir_all(&state).unwrap();
        for garbage in [&b"two words"[..], &b"id\xff"[..]] {
            fs::write(f.path(), garbage).unwrap();
            assert_eq!(f.load().unwrap(), None);
            assert!(!f.path().exists(), "{garbage:?} was not set aside");
        }
        let aside = fs::read_dir(&state)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("sessions.json.corrupt-"))
            .count();
        assert!(aside >= 1, "nothing was set aside");
    }
}
