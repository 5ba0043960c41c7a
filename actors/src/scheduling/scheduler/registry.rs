//! What the job directories hold, re-read incrementally.
//!
//! A [`DirIndex`] remembers each `*.md` file's size, modification time and inode with what it
//! parsed to, and re-parses only files that are new or changed. Which files to look at comes
//! from the directory's file events ([`DirEvents`]): a look when nothing moved costs one
//! non-blocking read, and a look after a fire (a reminder's file deleted) one `stat` of that
//! file, however many thousands of jobs there are (the scheduler looks at every fire). Symbolic
//! links and refused entries are looked at every time (a link's target changes without an
//! event in this directory). The first look, and any look where the events cannot be trusted
//! or are not available, lists the whole directory and `stat`s every file, relative to the
//! open directory.
//!
//! A file that does not parse is warned about once (naming the file and the reason), kept with
//! its reason ([`DirIndex::broken`]) and skipped until it changes again. An entry that is not a
//! job file ([`store::check_entry`]: a link out of the data directory or to nothing, a
//! directory named `x.md`) is warned about once the same way and never read. Reading never
//! writes.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::dir_events::{DirEvents, Since};
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

fn is_job_name(name: &OsStr) -> bool {
    Path::new(name).extension().and_then(|e| e.to_str()) == Some("md")
}

#[derive(Debug)]
struct Entry<T> {
    path: PathBuf,
    mark: Mark,
    /// The listing that last saw it.
    listed: u64,
    /// A symbolic link (looked at every time).
    linked: bool,
    /// What it parsed to, or why it did not.
    item: Result<T, String>,
}

/// The parsed `*.md` files of one directory.
#[derive(Debug)]
pub struct DirIndex<T> {
    dir: PathBuf,
    /// By file name.
    entries: HashMap<OsString, Entry<T>>,
    /// How many full listings so far.
    listings: u64,
    /// Entries that are not job files, with the reason last warned about.
    refused: HashMap<PathBuf, NotAFile>,
    /// Which names changed since the last look.
    events: DirEvents,
    /// How many files were parsed so far (tests check that unchanged files are not).
    #[cfg(test)]
    parses: usize,
    /// How many entries were looked at so far (tests check that unchanged ones are not).
    #[cfg(test)]
    checks: usize,
}

/// What a refresh saw (ordered: a refresh that saw both removals and additions is `Added`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
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
            events: DirEvents::new(),
            #[cfg(test)]
            parses: 0,
            #[cfg(test)]
            checks: 0,
        }
    }

    /// The directory indexed.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Makes the next refresh list the directory whole (starting a new event feed).
    pub fn list_next(&mut self) {
        self.events.stop();
    }

    /// Re-reads new and changed files with `parse`, forgets removed ones.
    pub fn refresh<E: Display>(&mut self, parse: impl Fn(&Path) -> Result<T, E>) -> Changed {
        match self.events.since_last(&self.dir) {
            Since::Names(names) => self.recheck(names, &parse),
            Since::Unknown => {
                // The feed starts before the listing: a change during it is seen next time.
                self.events.restart(&self.dir);
                self.relist(&parse)
            }
        }
    }

    /// Lists the whole directory. An unchanged entry costs one `stat` relative to the open
    /// directory and no allocation beyond its name; only a symbolic link (rare) is followed
    /// through [`store::check_entry`].
    fn relist<E: Display>(&mut self, parse: &impl Fn(&Path) -> Result<T, E>) -> Changed {
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
        let refused_before = std::mem::take(&mut self.refused);
        for entry in listing.filter_map(Result::ok) {
            let name = entry.file_name();
            if !is_job_name(&name) {
                continue;
            }
            #[cfg(test)]
            {
                self.checks += 1;
            }
            let (checked, linked) = match entry.file_type() {
                Ok(kind) if kind.is_file() => (entry.metadata().map_err(|_| NotAFile::Gone), false),
                _ => (store::check_entry(&self.dir, &entry.path()), true),
            };
            match checked {
                Ok(meta) => {
                    let seen = self.take(name, entry.path(), &meta, linked, parse);
                    changed = changed.max(seen);
                }
                Err(NotAFile::Gone) => {}
                Err(reason) => {
                    let path = entry.path();
                    let before = refused_before.get(&path);
                    let warned = before == Some(&reason);
                    self.refuse(path, reason, warned);
                }
            }
        }
        let before = self.entries.len();
        self.entries.retain(|_, e| e.listed == listing_no);
        if self.entries.len() != before {
            changed = changed.max(Changed::Removed);
        }
        changed
    }

    /// Looks again at `names` only, and at every link and refused entry.
    fn recheck<E: Display>(
        &mut self,
        mut names: HashSet<OsString>,
        parse: &impl Fn(&Path) -> Result<T, E>,
    ) -> Changed {
        let linked = self.entries.iter().filter(|(_, e)| e.linked);
        names.extend(linked.map(|(name, _)| name.clone()));
        names.extend(
            self.refused
                .keys()
                .filter_map(|p| p.file_name())
                .map(OsStr::to_os_string),
        );
        let mut changed = Changed::None;
        for name in names {
            if !is_job_name(&name) {
                continue;
            }
            #[cfg(test)]
            {
                self.checks += 1;
            }
            let path = self.dir.join(&name);
            let refused_before = self.refused.remove(&path);
            let (checked, linked) = match std::fs::symlink_metadata(&path) {
                Ok(own) if own.is_file() => (Ok(own), false),
                Ok(_) => (store::check_entry(&self.dir, &path), true),
                Err(_) => (Err(NotAFile::Gone), false),
            };
            match checked {
                Ok(meta) => changed = changed.max(self.take(name, path, &meta, linked, parse)),
                Err(reason) => {
                    if self.entries.remove(&name).is_some() {
                        changed = changed.max(Changed::Removed);
                    }
                    if reason != NotAFile::Gone {
                        let warned = refused_before.as_ref() == Some(&reason);
                        self.refuse(path, reason, warned);
                    }
                }
            }
        }
        changed
    }

    /// Records a job file seen now, parsing it when it is new or changed.
    fn take<E: Display>(
        &mut self,
        name: OsString,
        path: PathBuf,
        meta: &std::fs::Metadata,
        linked: bool,
        parse: &impl Fn(&Path) -> Result<T, E>,
    ) -> Changed {
        let mark = mark_of(meta);
        if let Some(known) = self.entries.get_mut(&name) {
            known.listed = self.listings;
            known.linked = linked;
            if known.mark == mark {
                return Changed::None;
            }
        }
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
            listed: self.listings,
            linked,
            item,
        };
        self.entries.insert(name, entry);
        Changed::Added
    }

    /// Keeps `path` out as not a job file, warning unless already `warned` for this reason.
    fn refuse(&mut self, path: PathBuf, reason: NotAFile, warned: bool) {
        if !warned {
            tracing::warn!(file = %path.display(), %reason, "skipping entry that is not a job file");
        }
        self.refused.insert(path, reason);
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

    /// What `path` parsed to, if it did.
    pub fn get(&self, path: &Path) -> Option<&T> {
        let entry = self.entries.get(path.file_name()?)?;
        (entry.path == path)
            .then_some(entry.item.as_ref().ok())
            .flatten()
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
#[path = "registry_tests.rs"]
mod tests;
