//! The one migration reminder files need (SPEC §17): reminders now run in the background when
//! the file has no `background:` key, as the original's do since 2026-03-10. Earlier releases
//! of this program read a missing key as foreground and wrote foreground reminders without it,
//! so on the first start of this release, a data directory this program has run in (it has
//! `state/runs.jsonl`, which only this program writes) gets `background: false` written into
//! each reminder file that has no `background:` key, keeping what the owner scheduled running
//! where it ran. A directory only the original has used is left as it is. A marker in `state/`
//! makes it happen once.

use std::path::PathBuf;

use super::{reminder, store, Reminder};
use crate::base::data_dir::DataDir;
use crate::base::state_file;

/// The marker written once the migration has been considered.
pub const MARKER: &str = "reminders_background_default";

/// What went wrong: the file that could not be rewritten, or the marker.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    /// The reminders directory could not be read.
    #[error(transparent)]
    Store(#[from] store::Error),
    /// A file or the marker could not be written.
    #[error("writing {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: state_file::Error,
    },
}

/// Marks this program's foreground reminders written before background became the default;
/// answers the files rewritten. Files that do not parse are left alone (the scheduler names
/// them).
pub fn reminders_background_default(data: &DataDir) -> Result<Vec<PathBuf>, MigrateError> {
    let marker = data.state_file(MARKER);
    if marker.exists() {
        return Ok(Vec::new());
    }
    let mut rewritten = Vec::new();
    if data.state_file("runs.jsonl").exists() {
        let loaded = store::load_dir_unlogged::<Reminder>(&data.reminders())?;
        for (path, mut r) in loaded.items {
            if r.background_as_read.is_some() {
                continue;
            }
            r.settings.background = false;
            state_file::write_atomic(&path, reminder::to_markdown(&r).as_bytes()).map_err(
                |source| MigrateError::Write {
                    path: path.clone(),
                    source,
                },
            )?;
            tracing::info!(file = %path.display(), "reminder written before background became the default: marked background: false");
            data.commit(&path, &format!("keep reminder {} in the foreground", r.id));
            rewritten.push(path);
        }
    }
    let note = b"reminders without a background key run in the background (SPEC 17)\n";
    state_file::write_atomic(&marker, note).map_err(|source| MigrateError::Write {
        path: marker.clone(),
        source,
    })?;
    Ok(rewritten)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BARE: &str =
        "---\nid: \"a1a1a1a1\"\nrun-at: \"2026-03-02T09:00:00-05:00\"\n---\nstretch\n";
    const EXPLICIT: &str =
        "---\nid: \"b2b2b2b2\"\nrun-at: \"2026-03-02T09:00:00-05:00\"\nbackground: true\n---\nwater\n";

    fn dir_with(runs_history: bool) -> (tempfile::TempDir, DataDir) {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path().join("data"));
        data.ensure().unwrap();
        std::fs::write(data.reminders().join("stretch.md"), BARE).unwrap();
        std::fs::write(data.reminders().join("water.md"), EXPLICIT).unwrap();
        std::fs::write(data.reminders().join("broken.md"), "no frontmatter").unwrap();
        if runs_history {
            std::fs::write(data.state_file("runs.jsonl"), "").unwrap();
        }
        (tmp, data)
    }

    #[test]
    fn our_old_foreground_reminders_stay_in_the_foreground_once() {
        let (_tmp, data) = dir_with(true);
        let done = reminders_background_default(&data).unwrap();
        assert_eq!(done, vec![data.reminders().join("stretch.md")]);
        let text = std::fs::read_to_string(data.reminders().join("stretch.md")).unwrap();
        assert_eq!(
            text,
            BARE.replace("---\nstretch", "background: false\n---\nstretch")
        );
        let untouched = std::fs::read_to_string(data.reminders().join("water.md")).unwrap();
        assert_eq!(untouched, EXPLICIT);
        let broken = std::fs::read_to_string(data.reminders().join("broken.md")).unwrap();
        assert_eq!(broken, "no frontmatter");
        // A reminder written after the migration keeps the new default.
        std::fs::write(
            data.reminders().join("later.md"),
            BARE.replace("a1a1a1a1", "c3c3c3c3"),
        )
        .unwrap();
        assert!(reminders_background_default(&data).unwrap().is_empty());
    }

    #[test]
    fn a_directory_only_the_original_used_is_left_alone() {
        let (_tmp, data) = dir_with(false);
        assert!(reminders_background_default(&data).unwrap().is_empty());
        let text = std::fs::read_to_string(data.reminders().join("stretch.md")).unwrap();
        assert_eq!(text, BARE);
        assert!(data.state_file(MARKER).exists());
    }
}
