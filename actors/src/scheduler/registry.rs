//! What the job directories hold, re-read incrementally.
//!
//! A [`DirIndex`] remembers each `*.md` file's size and modification time with what it parsed
//! to. A refresh lists the directory and re-parses only files that are new or changed, so a
//! directory of thousands of jobs costs one `read_dir` and a `stat` per file when nothing
//! moved. A file that does not parse is warned about once (naming the file and the reason),
//! kept with its reason ([`DirIndex::broken`]) and skipped until it changes again. An entry that is not a job file
//! ([`store::check_entry`]: a link out of the data directory or to nothing, a directory named
//! `x.md`) is warned about once the same way and never read. Reading never writes.

use std::collections::HashMap;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::jobs::store::{self, NotAFile};

/// A file's identity for change detection.
type Mark = (u64, Option<SystemTime>);

#[derive(Debug)]
struct Entry<T> {
    mark: Mark,
    /// What it parsed to, or why it did not.
    item: Result<T, String>,
}

/// The parsed `*.md` files of one directory.
#[derive(Debug)]
pub struct DirIndex<T> {
    dir: PathBuf,
    entries: HashMap<PathBuf, Entry<T>>,
    /// Entries that are not job files, with the reason last warned about.
    refused: HashMap<PathBuf, NotAFile>,
}

/// Whether a refresh saw any difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Changed(pub bool);

impl<T> DirIndex<T> {
    /// An empty index of `dir` (nothing read until [`DirIndex::refresh`]).
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            entries: HashMap::new(),
            refused: HashMap::new(),
        }
    }

    /// The directory indexed.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Re-reads new and changed files with `parse`, forgets removed ones.
    pub fn refresh<E: Display>(&mut self, parse: impl Fn(&Path) -> Result<T, E>) -> Changed {
        let listing = match std::fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) => {
                tracing::warn!(dir = %self.dir.display(), cause = %e, "cannot list job directory");
                let had = !self.entries.is_empty();
                self.entries.clear();
                return Changed(had);
            }
        };
        let mut seen: HashMap<PathBuf, Mark> = HashMap::new();
        let mut refused: HashMap<PathBuf, NotAFile> = HashMap::new();
        for entry in listing.filter_map(Result::ok) {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("md") {
                continue;
            }
            match store::check_entry(&self.dir, &path) {
                Ok(meta) => {
                    seen.insert(path, (meta.len(), meta.modified().ok()));
                }
                Err(NotAFile::Gone) => {}
                Err(reason) => {
                    if self.refused.get(&path) != Some(&reason) {
                        tracing::warn!(file = %path.display(), %reason, "skipping entry that is not a job file");
                    }
                    refused.insert(path, reason);
                }
            }
        }
        self.refused = refused;
        let before = self.entries.len();
        self.entries.retain(|p, _| seen.contains_key(p));
        let mut changed = self.entries.len() != before;
        for (path, mark) in seen {
            if self.entries.get(&path).is_some_and(|e| e.mark == mark) {
                continue;
            }
            changed = true;
            let item = parse(&path).map_err(|reason| {
                tracing::warn!(file = %path.display(), %reason, "skipping job file that does not parse");
                reason.to_string()
            });
            self.entries.insert(path, Entry { mark, item });
        }
        Changed(changed)
    }

    /// Every file that parsed, with its path.
    pub fn items(&self) -> impl Iterator<Item = (&Path, &T)> {
        self.entries
            .iter()
            .filter_map(|(p, e)| e.item.as_ref().ok().map(|i| (p.as_path(), i)))
    }

    /// Every file that did not parse, with why.
    pub fn broken(&self) -> impl Iterator<Item = (&Path, &str)> {
        self.entries
            .iter()
            .filter_map(|(p, e)| e.item.as_ref().err().map(|r| (p.as_path(), r.as_str())))
    }

    /// When `path` was last modified, as last seen.
    pub fn modified(&self, path: &Path) -> Option<SystemTime> {
        self.entries.get(path).and_then(|e| e.mark.1)
    }

    /// How many files parsed.
    pub fn len(&self) -> usize {
        self.entries.values().filter(|e| e.item.is_ok()).count()
    }

    /// Whether no file parsed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(p: &Path) -> Result<String, String> {
        let text = std::fs::read_to_string(p).map_err(|e| e.to_string())?;
        if text.starts_with("bad") {
            Err("starts with bad".into())
        } else {
            Ok(text)
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_only_inside_the_data_directory() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let dir = root.path().join("routines");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(root.path().join("shared.md"), "inside").unwrap();
        std::fs::write(outside.path().join("secret.md"), "outside").unwrap();
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
        };
        link(&root.path().join("shared.md"), "in.md");
        link(&outside.path().join("secret.md"), "out.md");
        link(&root.path().join("missing.md"), "dangling.md");
        std::fs::create_dir(dir.join("folder.md")).unwrap();
        let mut idx = DirIndex::new(dir.clone());
        assert_eq!(idx.refresh(parse), Changed(true));
        let items: Vec<_> = idx
            .items()
            .map(|(p, t)| (p.to_path_buf(), t.clone()))
            .collect();
        assert_eq!(items, [(dir.join("in.md"), "inside".to_owned())]);
        let mut refused: Vec<_> = idx.refused.keys().cloned().collect();
        refused.sort();
        assert_eq!(
            refused,
            ["dangling.md", "folder.md", "out.md"].map(|n| dir.join(n))
        );
    }

    #[test]
    fn refresh_tracks_additions_edits_removals_and_skips_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut idx = DirIndex::new(dir.path().to_path_buf());
        assert_eq!(idx.refresh(parse), Changed(false));
        std::fs::write(dir.path().join("a.md"), "one").unwrap();
        std::fs::write(dir.path().join("b.md"), "bad file").unwrap();
        std::fs::write(dir.path().join("c.txt"), "ignored").unwrap();
        assert_eq!(idx.refresh(parse), Changed(true));
        assert_eq!(idx.len(), 1);
        let broken: Vec<_> = idx.broken().map(|(p, r)| (p.to_path_buf(), r)).collect();
        assert_eq!(broken, [(dir.path().join("b.md"), "starts with bad")]);
        assert_eq!(idx.refresh(parse), Changed(false));
        std::fs::write(dir.path().join("a.md"), "one, edited").unwrap();
        assert_eq!(idx.refresh(parse), Changed(true));
        assert_eq!(idx.items().next().unwrap().1, "one, edited");
        std::fs::remove_file(dir.path().join("a.md")).unwrap();
        assert_eq!(idx.refresh(parse), Changed(true));
        assert!(idx.is_empty());
    }
}
