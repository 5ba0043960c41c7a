//! The one way state files are written and read.
//!
//! Writes are atomic: the bytes go to a temporary file in the same directory, are flushed to
//! disk, and the temporary file is renamed over the target, so a crash leaves either the old
//! or the new content, never half of one; the directory is then flushed too, so the rename
//! itself survives a power loss. [`create_new`] publishes a new file the same way but never
//! replaces one that exists. Reads never lose data: a file that cannot be parsed is moved
//! aside to `<name>.corrupt-<timestamp>`, logged, and replaced by defaults.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::Utc;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// What went wrong reading or writing a state file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file system refused.
    #[error("{action} {path}: {source}")]
    Io {
        /// What we were doing.
        action: &'static str,
        /// The file concerned.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The value could not be encoded.
    #[error("encoding {path}: {source}")]
    Encode {
        /// The file concerned.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
}

impl Error {
    /// Whether the file (or every name tried for it) already existed.
    pub fn is_already_exists(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == io::ErrorKind::AlreadyExists)
    }

    /// The file concerned.
    pub fn path(&self) -> &Path {
        match self {
            Error::Io { path, .. } | Error::Encode { path, .. } => path,
        }
    }
}

/// A change the owner asked for that was not made because its file could not be written, as
/// the owner reads it: `couldn't save <file>: <cause> — nothing changed`. Only for answers
/// whose caller keeps nothing of the change, in memory or on disk, when the write fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("couldn't save {}: {cause} — nothing changed", file.display())]
pub struct NotSaved {
    /// The file that was not written.
    pub file: PathBuf,
    /// Why, in the system's words (`No space left on device (os error 28)`).
    pub cause: String,
}

impl From<&Error> for NotSaved {
    fn from(error: &Error) -> Self {
        let cause = match error {
            Error::Io { source, .. } => source.to_string(),
            Error::Encode { source, .. } => format!("it could not be encoded ({source})"),
        };
        NotSaved {
            file: error.path().to_path_buf(),
            cause,
        }
    }
}

/// Writes `bytes` to `path` atomically (temp file in the same directory, fsync, rename, fsync
/// of the directory).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let written = replace_with(path, bytes);
    note(path, &written);
    written
}

/// Tells [`crate::base::disk_space`] how a write of `path` went.
fn note<T>(path: &Path, written: &Result<T, Error>) {
    match written {
        Ok(_) => crate::base::disk_space::note_write(path, Ok(())),
        Err(Error::Io { source, .. }) => crate::base::disk_space::note_write(path, Err(source)),
        Err(Error::Encode { .. }) => {}
    }
}

fn replace_with(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let io_err = |action, source| Error::Io {
        action,
        path: path.to_path_buf(),
        source,
    };
    let (dir, tmp) = written_temp(path, bytes)?;
    tmp.persist(path)
        .map_err(|e| io_err("replacing", e.error))?;
    sync_dir(dir).map_err(|e| io_err("flushing the directory of", e))
}

/// Publishes `bytes` as a new file at the first of `candidates` that does not exist yet, and
/// returns that path. The content is complete before the name appears (temp file, fsync, then
/// a link that fails when the name is taken), so no reader ever sees half a file and no
/// existing file is ever replaced, however many writers race for the same name.
pub fn create_new(
    candidates: impl IntoIterator<Item = PathBuf>,
    bytes: &[u8],
) -> Result<PathBuf, Error> {
    let mut candidates = candidates.into_iter().peekable();
    let first = candidates.peek().cloned().unwrap_or_default();
    let created = publish_new(candidates, bytes);
    note(&first, &created);
    created
}

fn publish_new(
    mut candidates: std::iter::Peekable<impl Iterator<Item = PathBuf>>,
    bytes: &[u8],
) -> Result<PathBuf, Error> {
    let Some(first) = candidates.peek().cloned() else {
        return Err(Error::Io {
            action: "naming",
            path: PathBuf::new(),
            source: io::Error::new(io::ErrorKind::InvalidInput, "no file name to try"),
        });
    };
    let (dir, mut tmp) = written_temp(&first, bytes)?;
    for path in candidates {
        match tmp.persist_noclobber(&path) {
            Ok(_) => {
                return sync_dir(dir)
                    .map(|()| path.clone())
                    .map_err(|source| Error::Io {
                        action: "flushing the directory of",
                        path,
                        source,
                    })
            }
            Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => tmp = e.file,
            Err(e) => {
                return Err(Error::Io {
                    action: "creating",
                    path,
                    source: e.error,
                })
            }
        }
    }
    Err(Error::Io {
        action: "creating",
        path: first,
        source: io::Error::new(
            io::ErrorKind::AlreadyExists,
            "every candidate name is taken",
        ),
    })
}

/// A flushed temporary file holding `bytes` beside `path` (its directory created if needed).
fn written_temp<'a>(
    path: &'a Path,
    bytes: &[u8],
) -> Result<(&'a Path, tempfile::NamedTempFile), Error> {
    let io_err = |action, source| Error::Io {
        action,
        path: path.to_path_buf(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| io_err("creating the directory of", e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| io_err("creating a temporary file for", e))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| io_err("writing", e))?;
    Ok((dir, tmp))
}

/// Flushes a directory's entries (a rename or a new name in it) to disk.
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(test)]
    tests::SYNCED_DIRS.with(|synced| synced.borrow_mut().push(dir.to_path_buf()));
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    Ok(())
}

/// Serialises `value` as pretty JSON and writes it atomically.
pub fn save_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), Error> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|source| Error::Encode {
        path: path.to_path_buf(),
        source,
    })?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// How a state file was found.
#[derive(Debug, PartialEq, Eq)]
pub enum Loaded<T> {
    /// The file parsed.
    Found(T),
    /// There was no file (or it was empty): defaults.
    Missing(T),
    /// The file did not parse and was moved aside to the given path: defaults.
    Corrupt(T, PathBuf),
}

impl<T> Loaded<T> {
    /// The value, whichever way it was obtained.
    pub fn into_value(self) -> T {
        match self {
            Loaded::Found(v) | Loaded::Missing(v) | Loaded::Corrupt(v, _) => v,
        }
    }
}

/// Reads a state file with `parse`; a missing or empty file gives `default()`, and a file that
/// `parse` rejects is moved aside to `<name>.corrupt-<timestamp>` (logged) and gives `default()`.
pub fn load_with<T, E: std::fmt::Display>(
    path: &Path,
    parse: impl FnOnce(&[u8]) -> Result<T, E>,
    default: impl FnOnce() -> T,
) -> Result<Loaded<T>, Error> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Loaded::Missing(default())),
        Err(source) => {
            return Err(Error::Io {
                action: "reading",
                path: path.to_path_buf(),
                source,
            })
        }
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Loaded::Missing(default()));
    }
    match parse(&bytes) {
        Ok(v) => Ok(Loaded::Found(v)),
        Err(reason) => {
            let aside = move_aside(path)?;
            tracing::warn!(
                file = %path.display(),
                moved_to = %aside.display(),
                %reason,
                "state file did not parse; kept it aside and started from defaults"
            );
            Ok(Loaded::Corrupt(default(), aside))
        }
    }
}

/// Reads a JSON state file (see [`load_with`]).
pub fn load_json<T: DeserializeOwned>(
    path: &Path,
    default: impl FnOnce() -> T,
) -> Result<Loaded<T>, Error> {
    load_with(path, |b| serde_json::from_slice::<T>(b), default)
}

/// Renames `path` to `<name>.corrupt-<UTC timestamp>` beside it and returns the new path.
pub fn move_aside(path: &Path) -> Result<PathBuf, Error> {
    set_aside(path, "corrupt")
}

/// Renames `path` to `<name>.<why>-<UTC timestamp>` beside it and returns the new path.
pub fn set_aside(path: &Path, why: &str) -> Result<PathBuf, Error> {
    let stamp = Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "state".to_owned());
    let aside = path.with_file_name(format!("{name}.{why}-{stamp}"));
    fs::rename(path, &aside).map_err(|source| Error::Io {
        action: "moving aside",
        path: path.to_path_buf(),
        source,
    })?;
    Ok(aside)
}

#[cfg(test)]
#[path = "state_file_tests.rs"]
mod tests;
