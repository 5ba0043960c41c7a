//! What in a job directory counts as a job file (SPEC §3, ours): a regular `*.md` file, or a
//! symbolic link to one inside the data directory. Links are checked where they finally lead,
//! so `routines/x.md -> ../../home/me/.ssh/id_rsa` is refused however many hops it takes.

use std::fs;
use std::path::{Path, PathBuf};

/// Why a `*.md` entry of a job directory is not read as a job file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAFile {
    /// A directory named like a file.
    #[error("is a directory")]
    Directory,
    /// A symbolic link whose target does not exist.
    #[error("is a symbolic link to {target}, which does not exist")]
    DanglingLink {
        /// Where it points.
        target: PathBuf,
    },
    /// A symbolic link leading outside the data directory.
    #[error("is a symbolic link to {target}, outside the data directory")]
    LinkOutside {
        /// Where it leads.
        target: PathBuf,
    },
    /// Something else (a socket, a device).
    #[error("is not a regular file")]
    Special,
    /// Removed since the directory was listed.
    #[error("no longer exists")]
    Gone,
}

/// Checks the entry `path` of the job directory `dir`: a regular file, or a symbolic link to a
/// regular file inside the data directory (`dir`'s parent). Returns the file's metadata.
pub fn check_entry(dir: &Path, path: &Path) -> Result<fs::Metadata, NotAFile> {
    let Ok(own) = fs::symlink_metadata(path) else {
        return Err(NotAFile::Gone);
    };
    if own.is_dir() {
        return Err(NotAFile::Directory);
    }
    if !own.file_type().is_symlink() {
        return if own.is_file() {
            Ok(own)
        } else {
            Err(NotAFile::Special)
        };
    }
    let link = fs::read_link(path).unwrap_or_default();
    let Ok(target) = fs::canonicalize(path) else {
        return Err(NotAFile::DanglingLink { target: link });
    };
    let root = dir.parent().unwrap_or(dir);
    let inside = fs::canonicalize(root).is_ok_and(|root| target.starts_with(root));
    if !inside {
        return Err(NotAFile::LinkOutside { target });
    }
    match fs::metadata(&target) {
        Ok(meta) if meta.is_file() => Ok(meta),
        Ok(meta) if meta.is_dir() => Err(NotAFile::Directory),
        _ => Err(NotAFile::Special),
    }
}
