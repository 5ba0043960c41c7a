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

/// A file's identity for change detection: size, modification time and (on Unix) inode, so a
/// file replaced by another of the same size within one tick of the clock is still re-read.
type Mark = (u64, Option<SystemTime>, u64);

fn mark_of(meta: &std::fs::Metadata) -> Mark {
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(meta);
    #[cfg(not(unix))]
    let inode = 0;
    (meta.len(), meta.modified().ok(), inode)
}

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
    /// How many files were parsed so far (tests check that unchanged files are not).
    #[cfg(test)]
    parses: usize,
}

/// What a refresh saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changed {
    /// Nothing.
    None,
    /// Files went, none came or changed (a fired reminder's file deleted, typically).
    Removed,
    /// Files came or changed (and maybe others went).
    Added,
}

impl Changed {
    /// Whether anything changed.
    pub fn any(self) -> bool {
        self != Changed::None
    }
}

impl<T> DirIndex<T> {
    /// An empty index of `dir` (nothing read until [`DirIndex::refresh`]).
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            entries: HashMap::new(),
            listings: 0,
            refused: HashMap::new(),
            #[cfg(test)]
            parses: 0,
        }
    }

    /// The directory indexed.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Re-reads new and changed files with `parse`, forgets removed ones.
    ///
    /// Runs at every fire, over thousands of files, so an unchanged entry costs one `stat`
    /// relative to the open directory (no walk of the whole path) and no allocation beyond its
    /// name; only a symbolic link (rare) is followed through [`store::check_entry`].
    pub fn refresh<E: Display>(&mut self, parse: impl Fn(&Path) -> Result<T, E>) -> Changed {
        let listing = match std::fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) => {
                tracing::warn!(dir = %self.dir.display(), cause = %e, "cannot list job directory");
                let had = !self.entries.is_empty();
                self.entries.clear();
                return if had { Changed::Removed } else { Changed::None };
            }
        };
        self.listings += 1;
        let listing_no = self.listings;
        let mut changed = Changed::None;
        let mut refused: HashMap<PathBuf, NotAFile> = HashMap::new();
        for entry in listing.filter_map(Result::ok) {
            let name = entry.file_name();
            if Path::new(&name).extension().and_then(|e| e.to_str()) != Some("md") {
                continue;
            }
            let meta = match self.check(&entry) {
                Ok(meta) => meta,
                Err(NotAFile::Gone) => continue,
                Err(reason) => {
                    let path = entry.path();
                    if self.refused.get(&path) != Some(&reason) {
                        tracing::warn!(file = %path.display(), %reason, "skipping entry that is not a job file");
                    }
                    refused.insert(path, reason);
                    continue;
                }
            };
            let mark = mark_of(&meta);
            if let Some(known) = self.entries.get_mut(&name) {
                known.listed = listing_no;
                if known.mark == mark {
                    continue;
                }
            }
            changed = Changed::Added;
            let path = entry.path();
            #[cfg(test)]
            {
                self.parses += 1;
            }
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
        if self.entries.len() != before && changed == Changed::None {
            changed = Changed::Removed;
        }
        changed
    }

    /// The metadata of a listed entry that is a job file (see [`store::check_entry`]). A plain
    /// file is `stat`ed relative to the directory, from the type the listing already gave.
    fn check(&self, entry: &std::fs::DirEntry) -> Result<std::fs::Metadata, NotAFile> {
        match entry.file_type() {
            Ok(kind) if kind.is_file() => entry.metadata().map_err(|_| NotAFile::Gone),
            _ => store::check_entry(&self.dir, &entry.path()),
        }
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
        assert_eq!(idx.refresh(parse), Changed::Added);
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
        assert_eq!(idx.refresh(parse), Changed::None);
        std::fs::write(dir.path().join("a.md"), "one").unwrap();
        std::fs::write(dir.path().join("b.md"), "bad file").unwrap();
        std::fs::write(dir.path().join("c.txt"), "ignored").unwrap();
        assert_eq!(idx.refresh(parse), Changed::Added);
        assert_eq!(idx.len(), 1);
        let broken: Vec<_> = idx.broken().map(|(p, r)| (p.to_path_buf(), r)).collect();
        assert_eq!(broken, [(dir.path().join("b.md"), "starts with bad")]);
        assert_eq!(idx.refresh(parse), Changed::None);
        std::fs::write(dir.path().join("a.md"), "one, edited").unwrap();
        assert_eq!(idx.refresh(parse), Changed::Added);
        assert_eq!(idx.items().next().unwrap().1, "one, edited");
        std::fs::remove_file(dir.path().join("a.md")).unwrap();
        assert_eq!(idx.refresh(parse), Changed::Removed);
        assert!(idx.is_empty());
    }

    #[test]
    fn an_unchanged_file_is_not_parsed_again() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "one").unwrap();
        std::fs::write(dir.path().join("b.md"), "two").unwrap();
        let mut idx = DirIndex::new(dir.path().to_path_buf());
        assert_eq!(idx.refresh(parse), Changed::Added);
        assert_eq!(idx.parses, 2);
        for _ in 0..3 {
            assert_eq!(idx.refresh(parse), Changed::None);
        }
        assert_eq!(idx.parses, 2, "unchanged files were parsed again");
        std::fs::remove_file(dir.path().join("b.md")).unwrap();
        assert_eq!(idx.refresh(parse), Changed::Removed);
        assert_eq!(idx.parses, 2);
    }

    #[test]
    fn a_file_edited_to_the_same_size_is_read_again_for_its_new_mtime() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "one").unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let mut idx = DirIndex::new(dir.path().to_path_buf());
        assert_eq!(idx.refresh(parse), Changed::Added);
        // Rewritten in place (same inode), same size; only the modification time tells.
        std::fs::write(&path, "two").unwrap();
        assert_eq!(idx.refresh(parse), Changed::Added);
        assert_eq!(idx.items().next().unwrap().1, "two");
        assert_eq!(idx.parses, 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_replaced_with_the_same_size_and_mtime_is_read_again_for_its_inode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        let at = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(at).unwrap();
            p
        };
        write("a.md", "one");
        let mut idx = DirIndex::new(dir.path().to_path_buf());
        assert_eq!(idx.refresh(parse), Changed::Added);
        // An atomic replace (write aside, rename over) within one tick of the clock.
        let aside = write("a.tmp", "two");
        std::fs::rename(aside, &path).unwrap();
        assert_eq!(idx.refresh(parse), Changed::Added);
        assert_eq!(idx.items().next().unwrap().1, "two");
    }
}
