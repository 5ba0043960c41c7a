//! A directory of markdown items: load all, write one, remove one by id (SPEC §3).
//!
//! Routines, reminders and webhook specs each live one per `*.md` file in their directory and
//! implement [`Item`]; the functions here are generic over it.
//!
//! - [`load_dir`] reads every `*.md` file (sorted by name). A file that cannot
//!   be read or parsed is logged as a warning naming the file and the reason, listed in
//!   [`Loaded::skipped`], and the rest load regardless. Reading never rewrites a file.
//! - What counts as a file ([`check_entry`]): a regular file, or a symbolic link to one inside
//!   the data directory (the job directory's parent). A link that leads outside it, a link to
//!   nothing, and a directory named `x.md` are not read; loading names each with the reason.
//! - [`write()`] writes atomically (through [`state_file`]). If a file in the directory
//!   already holds the item's id it is overwritten in place, whatever its name; otherwise the
//!   item gets a new file, `<stem>.md`, or `<stem>-2.md`, `-3`, … when that name exists. A new
//!   file is created exclusively ([`state_file::create_new`]), so writers racing for the same
//!   name (fifty `reminder add` of one message at once) each get their own file and none
//!   replaces another's. Committing to git is the caller's job.
//! - [`remove`] deletes the first file (by name) whose YAML `id` matches.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use super::entry::{check_entry, NotAFile};
use super::frontmatter::{self, ParseError};
use super::yaml_scalars::Text;
use super::{reminder, routine, slug, Reminder, Routine};
use crate::base::state_file;

/// What went wrong with a file in a store directory. Each variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The directory could not be listed.
    #[error("listing {path}: {source}")]
    ListDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The file could not be read (missing permissions, not UTF-8, …).
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The file was read but is not a valid item.
    #[error("{path}: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why it was rejected.
        #[source]
        source: ParseError,
    },
    /// The file could not be written.
    #[error(transparent)]
    Write(#[from] state_file::Error),
    /// The entry is not a file that may be read (see [`check_entry`]).
    #[error("{path} {reason}; not read")]
    NotAFile {
        /// The entry.
        path: PathBuf,
        /// What it is instead.
        reason: NotAFile,
    },
    /// The file could not be deleted.
    #[error("removing {path}: {source}")]
    Remove {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
}

/// A kind of item kept one per markdown file in a directory.
pub trait Item: Sized {
    /// What to call it in logs ("routine").
    const KIND: &'static str;
    /// Its authoritative id (the YAML `id`).
    fn id(&self) -> &str;
    /// The file name it gets when new, without `.md` (before collision suffixes).
    fn file_stem(&self) -> String;
    /// Parses a whole file.
    fn from_markdown(text: &str) -> Result<Self, ParseError>;
    /// The whole file's bytes.
    fn to_markdown(&self) -> String;
}

impl Item for Routine {
    const KIND: &'static str = "routine";
    fn id(&self) -> &str {
        self.id.as_str()
    }
    fn file_stem(&self) -> String {
        slug::file_stem(&self.message, self.id.as_str())
    }
    fn from_markdown(text: &str) -> Result<Self, ParseError> {
        routine::parse(text)
    }
    fn to_markdown(&self) -> String {
        routine::to_markdown(self)
    }
}

impl Item for Reminder {
    const KIND: &'static str = "reminder";
    fn id(&self) -> &str {
        self.id.as_str()
    }
    fn file_stem(&self) -> String {
        slug::file_stem(&self.message, self.id.as_str())
    }
    fn from_markdown(text: &str) -> Result<Self, ParseError> {
        reminder::parse(text)
    }
    fn to_markdown(&self) -> String {
        reminder::to_markdown(self)
    }
}

/// The result of loading a directory: what loaded and what was skipped, each with its file.
#[derive(Debug)]
pub struct Loaded<T> {
    /// Items that parsed, in file-name order.
    pub items: Vec<(PathBuf, T)>,
    /// Files that did not, with the reason (already logged).
    pub skipped: Vec<(PathBuf, Error)>,
}

impl<T> Default for Loaded<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            skipped: Vec::new(),
        }
    }
}

impl<T> Loaded<T> {
    /// Just the items, without their paths.
    pub fn into_items(self) -> Vec<T> {
        self.items.into_iter().map(|(_, item)| item).collect()
    }
}

/// Loads every `*.md` in `dir` as a `T`; a missing directory is empty.
pub fn load_dir<T: Item>(dir: &Path) -> Result<Loaded<T>, Error> {
    load_dir_with(dir, T::KIND, T::from_markdown)
}

/// Loads every `*.md` in `dir` with a parser of the caller's choosing (for example
/// `reminder::parse_in` to read offset-less times in the configured zone).
pub fn load_dir_with<T>(
    dir: &Path,
    kind: &str,
    parse: impl Fn(&str) -> Result<T, ParseError>,
) -> Result<Loaded<T>, Error> {
    let loaded = read_dir_with(dir, parse)?;
    for (path, err) in &loaded.skipped {
        let what = if matches!(err, Error::NotAFile { .. }) {
            "skipping entry"
        } else {
            "skipping file"
        };
        tracing::warn!(kind, file = %path.display(), reason = %err, "{what}");
    }
    Ok(loaded)
}

/// Like [`load_dir`], but leaves the skipped files unlogged: for a second look at a directory
/// whose owner (the scheduler) already warns about each bad file, so the owner hears it once.
pub fn load_dir_unlogged<T: Item>(dir: &Path) -> Result<Loaded<T>, Error> {
    read_dir_with(dir, T::from_markdown)
}

fn read_dir_with<T>(
    dir: &Path,
    parse: impl Fn(&str) -> Result<T, ParseError>,
) -> Result<Loaded<T>, Error> {
    let mut loaded = Loaded::default();
    for (path, checked) in markdown_entries(dir)? {
        if let Err(reason) = checked {
            let err = Error::NotAFile {
                path: path.clone(),
                reason,
            };
            loaded.skipped.push((path, err));
            continue;
        }
        match read_and_parse(&path, &parse) {
            Ok(item) => loaded.items.push((path, item)),
            Err(err) => loaded.skipped.push((path, err)),
        }
    }
    Ok(loaded)
}

/// Reads and parses one file.
pub fn load_file<T: Item>(path: &Path) -> Result<T, Error> {
    read_and_parse(path, T::from_markdown)
}

fn read_and_parse<T>(
    path: &Path,
    parse: impl Fn(&str) -> Result<T, ParseError>,
) -> Result<T, Error> {
    let text = fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text).map_err(|source| Error::Parse {
        path: path.to_path_buf(),
        source,
    })
}

/// The `*.md` files directly in `dir` that may be read ([`check_entry`]), sorted by name; none
/// if `dir` does not exist.
///
/// Hidden files count: the original named an item whose message had no letters or digits
/// `.md`, and such a file must keep loading.
pub fn markdown_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    Ok(markdown_entries(dir)?
        .into_iter()
        .filter_map(|(path, checked)| checked.is_ok().then_some(path))
        .collect())
}

/// A `*.md` entry and whether it may be read.
type Entry = (PathBuf, Result<(), NotAFile>);

/// Every `*.md` entry directly in `dir`, sorted by name, each with whether it may be read.
fn markdown_entries(dir: &Path) -> Result<Vec<Entry>, Error> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(Error::ListDir {
                path: dir.to_path_buf(),
                source,
            })
        }
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| Error::ListDir {
            path: dir.to_path_buf(),
            source,
        })?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !name.ends_with(".md") {
            continue;
        }
        let path = entry.path();
        match check_entry(dir, &path) {
            Ok(_) => files.push((path, Ok(()))),
            Err(NotAFile::Gone) => {}
            Err(reason) => files.push((path, Err(reason))),
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

/// Writes `item` into `dir` (created if needed) and returns the file's path.
pub fn write<T: Item>(dir: &Path, item: &T) -> Result<PathBuf, Error> {
    let bytes = item.to_markdown();
    let target = match find_path(dir, item.id())? {
        Some(existing) => {
            state_file::write_atomic(&existing, bytes.as_bytes())?;
            existing
        }
        None => {
            let stem = item.file_stem();
            let names = slug::candidates(&stem).map(|name| dir.join(name));
            state_file::create_new(names, bytes.as_bytes())?
        }
    };
    tracing::debug!(kind = T::KIND, id = item.id(), file = %target.display(), "wrote file");
    Ok(target)
}

/// Deletes the file in `dir` whose YAML `id` is `id`; returns its path, or `None` if no file
/// holds that id.
pub fn remove(dir: &Path, id: &str) -> Result<Option<PathBuf>, Error> {
    let Some(path) = find_path(dir, id)? else {
        return Ok(None);
    };
    fs::remove_file(&path).map_err(|source| Error::Remove {
        path: path.clone(),
        source,
    })?;
    tracing::debug!(id, file = %path.display(), "removed file");
    Ok(Some(path))
}

/// The first file (by name) in `dir` whose YAML `id` is `id`, whether or not the rest of it
/// is valid.
pub fn find_path(dir: &Path, id: &str) -> Result<Option<PathBuf>, Error> {
    Ok(markdown_files(dir)?
        .into_iter()
        .find(|path| yaml_id_of(path).as_deref() == Some(id)))
}

/// Just the `id` key of a file, if it can be read.
fn yaml_id_of(path: &Path) -> Option<String> {
    #[derive(Deserialize)]
    struct IdOnly {
        id: Option<Text>,
    }
    let text = fs::read_to_string(path).ok()?;
    let parts = frontmatter::split(&text).ok()?;
    let peek: IdOnly = serde_yaml::from_str(parts.yaml).ok()?;
    peek.id.map(|t| t.0)
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
