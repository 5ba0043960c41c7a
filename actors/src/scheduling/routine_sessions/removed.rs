//! Noticing that a persistent routine's file was deleted by hand (or by anything but
//! `routine cancel`), so its session goes too.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::base::data_dir::DataDir;
use crate::jobs::session_mode::SessionMode;
use crate::jobs::Routine;

/// The persistent routines among `routines`: their ids and files.
pub fn persistent<'a>(
    routines: impl Iterator<Item = (&'a Path, &'a Routine)>,
) -> Vec<(String, PathBuf)> {
    routines
        .filter(|(_, r)| r.session == SessionMode::Persistent)
        .map(|(path, r)| (r.id.as_str().to_owned(), path.to_path_buf()))
        .collect()
}

/// Removes the session of each routine of `before` that no routine holds now and whose file
/// is gone. A file that is only broken for now (mid-edit) keeps its session.
pub fn forget_removed<'a>(
    data: &DataDir,
    before: Vec<(String, PathBuf)>,
    now: impl Iterator<Item = (&'a Path, &'a Routine)>,
) {
    let ids: HashSet<&str> = now.map(|(_, r)| r.id.as_str()).collect();
    for (id, file) in before {
        if ids.contains(id.as_str()) || file.exists() {
            continue;
        }
        match super::remove(data, &id) {
            Ok(true) => {
                tracing::info!(routine = %id, file = %file.display(), "the persistent routine's file is gone; removed its session")
            }
            Ok(false) => {}
            Err(e) => {
                tracing::warn!(routine = %id, cause = %e, "could not remove a removed routine's session")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::routine;
    use crate::scheduling::routine_sessions::{load, save, Saved};

    #[test]
    fn a_deleted_persistent_routine_loses_its_session_a_broken_one_keeps_it() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path().join("data"));
        std::fs::create_dir_all(data.routines()).unwrap();
        let text = |id: &str| {
            format!("---\nid: \"{id}\"\ncron: \"0 9 * * 1\"\nbackground: true\nsession: persistent\n---\nReview.\n")
        };
        let (a, b) = (data.routines().join("a.md"), data.routines().join("b.md"));
        std::fs::write(&a, text("aaaa0001")).unwrap();
        std::fs::write(&b, text("bbbb0001")).unwrap();
        let routines = [
            (a.clone(), routine::parse(&text("aaaa0001")).unwrap()),
            (b.clone(), routine::parse(&text("bbbb0001")).unwrap()),
        ];
        for id in ["aaaa0001", "bbbb0001"] {
            let saved = Saved {
                session_id: format!("s-{id}"),
                usage: None,
            };
            save(&data, id, &saved).unwrap();
        }
        let before = persistent(routines.iter().map(|(p, r)| (p.as_path(), r)));
        std::fs::remove_file(&a).unwrap();
        std::fs::write(&b, "---\nid: [broken\n").unwrap();
        forget_removed(&data, before, std::iter::empty());
        assert_eq!(load(&data, "aaaa0001"), None, "deleted: its session goes");
        assert!(load(&data, "bbbb0001").is_some(), "broken mid-edit: kept");
    }
}
