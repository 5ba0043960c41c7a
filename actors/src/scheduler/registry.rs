//! What the job directories hold, re-read incrementally.
//!
//! A [`DirIndex`] remembers each `*.md` file's size and modification time with what it parsed
//! to. A refresh lists the directory and re-parses only files that are new or changed, so a
//! directory of thousands of jobs costs one `read_dir` and a `stat` per file when nothing
//! moved (entries are keyed by file name, and each file is looked up once per refresh: the
//! scheduler refreshes at every fire). A file that does not parse is warned about once (naming the file and the reason),
//! kept with its reason ([`DirIndex::broken`]) and skipped until it changes again. An entry that is not a job file
//! ([`store::check_entry`]: a link out of the data directory or to nothing, a directory named
//! `x.md`) is warned about once the same way and never read. Reading never writes.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::jobs::store::{self, NotAFile};

/// A file's identity for change detection.
type Mark = (u64, Option<SystemTime>);

#[derive(Debug)]
struct Entry<T> {
    path: PathBuf,
    mark: Mark,
    /// The refresh that last listed it.
    listed: u64,
    /// What it parsed to, or why it did not.
    item: Result<T, String>,
}

/// The parsed `*.md` files of one directory.
#[derive(Debug)]
pub struct DirIndex<T> {
    dir: PathBuf,
    /// By file name.
    entries: HashMap<OsString, Entry<T>>,
    /// How many listings so far.
    listings: u64,
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
            listings: 0,
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
        self.listings += 1;
        let listing_no = self.listings;
        let mut changed = false;
        let mut refused: HashMap<PathBuf, NotAFile> = HashMap::new();
        for entry in listing.filter_map(Result::ok) {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("md") {
                continue;
            }
            let meta = match store::check_entry(&self.dir, &path) {
                Ok(meta) => meta,
                Err(NotAFile::Gone) => continue,
                Err(reason) => {
                    if self.refused.get(&path) != Some(&reason) {
                        tracing::warn!(file = %path.display(), %reason, "skipping entry that is not a job file");
                    }
                    refused.insert(path, reason);
                    continue;
                }
            };
            let mark = (meta.len(), meta.modified().ok());
            let name = entry.file_name();
            if let Some(known) = self.entries.get_mut(&name) {
                known.listed = listing_no;
                if known.mark == mark {
                    continue;
                }
            }
            changed = true;
            let item = parse(&path).map_err(|reason| {
                tracing::warn!(file = %path.display(), %reason, "skipping job file that does not parse");
                reason.to_string()
            });
            let entry = Entry {
                path,
                mark,
                listed: listing_no,
                item,
            };
            self.entries.insert(name, entry);
        }
        self.refused = refused;
        let before = self.entries.len();
        self.entries.retain(|_, e| e.listed == listing_no);
        changed |= self.entries.len() != before;
        Changed(changed)
    }

    /// Every file that parsed, with its path.
    pub fn items(&self) -> impl Iterator<Item = (&Path, &T)> {
        self.entries
            .values()
            .filter_map(|e| e.item.as_ref().ok().map(|i| (e.path.as_path(), i)))
    }

    /// Every file that did not parse, with why.
    pub fn broken(&self) -> impl Iterator<Item = (&Path, &str)> {
        self.entries.values().filter_map(|e| {
            e.item
                .as_ref()
                .err()
                .map(|r| (e.path.as_path(), r.as_str()))
        })
    }

    /// When `path` was last modified, as last seen.
    pub fn modified(&self, path: &Path) -> Option<SystemTime> {
        let entry = self.entries.get(path.file_name()?)?;
        (entry.path == path).then_some(entry.mark.1).flatten()
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
