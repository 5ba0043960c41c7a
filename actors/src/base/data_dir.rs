//! The data directory (`~/.ollim-bot`, or `OLLIM_DATA_DIR`): its layout and its git history.
//!
//! Created on first use with every subdirectory, initialised as a git repository, and kept
//! that way: markdown files that the bot or the agent write are committed (`auto: write
//! routines/x.md`). `state/` is code-only and never committed. When git is missing, commits
//! are skipped with one logged warning, never an error.
//!
//! Git allows one writer of its index at a time (`.git/index.lock`), and the bot, its agent's
//! `ollim-bot` commands and a person's may all commit at once. So every commit, and the first
//! `git init`, runs under an OS lock on `state/git.lock` (held by whichever process commits,
//! released when it is done), and a git command that still finds `index.lock` taken (a person's
//! own git) is retried with a growing pause before it is given up with a warning.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Subdirectories created on first use.
const SUBDIRS: [&str; 6] = [
    "routines",
    "reminders",
    "webhooks",
    "skills",
    "state",
    ".claude/agents",
];

/// Ignore rules written on first start: state is never committed.
const GITIGNORE: &str = "state/\nlogs/\n*.tmp\n";

/// The file whose OS lock serialises git operations in the data directory (inside `state/`).
const GIT_LOCK: &str = "git.lock";

/// Pauses before each retry of a git command that found `index.lock` taken.
const INDEX_LOCK_RETRIES: [Duration; 6] = [
    Duration::from_millis(50),
    Duration::from_millis(100),
    Duration::from_millis(200),
    Duration::from_millis(400),
    Duration::from_millis(800),
    Duration::from_millis(1600),
];

static GIT_MISSING_WARNED: AtomicBool = AtomicBool::new(false);

/// What went wrong preparing the data directory.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A directory or file could not be created.
    #[error("preparing {path}: {source}")]
    Io {
        /// The path concerned.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// A file could not be written.
    #[error(transparent)]
    State(#[from] crate::base::state_file::Error),
}

/// The reflections' folder, relative to the data directory (see [`DataDir::reflections`]).
pub const REFLECTIONS: &str = "reflections";

/// The data directory and the paths inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    root: PathBuf,
}

impl DataDir {
    /// A data directory at `root` (nothing is created until [`DataDir::ensure`]).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// `routines/`.
    pub fn routines(&self) -> PathBuf {
        self.root.join("routines")
    }
    /// `reminders/`.
    pub fn reminders(&self) -> PathBuf {
        self.root.join("reminders")
    }
    /// `webhooks/`.
    pub fn webhooks(&self) -> PathBuf {
        self.root.join("webhooks")
    }
    /// `skills/`.
    pub fn skills(&self) -> PathBuf {
        self.root.join("skills")
    }
    /// `reflections/`: one folder per job, a reflection per background run.
    pub fn reflections(&self) -> PathBuf {
        self.root.join(REFLECTIONS)
    }
    /// `state/` (code-only state).
    pub fn state(&self) -> PathBuf {
        self.root.join("state")
    }
    /// A file inside `state/`.
    pub fn state_file(&self, name: &str) -> PathBuf {
        self.state().join(name)
    }

    /// Creates the directory, its subdirectories, the `.claude/skills -> ../skills` link and
    /// the git repository, whichever are missing. Safe to call on every start.
    pub fn ensure(&self) -> Result<(), Error> {
        let io_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io { path, source }
        };
        for sub in SUBDIRS {
            let dir = self.root.join(sub);
            std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        }
        // Several processes may prepare a new directory at once (the agent's CLI calls, a
        // start): whoever creates the link or the ignore file first wins, the rest keep it.
        let link = self.root.join(".claude/skills");
        if std::fs::symlink_metadata(&link).is_err() {
            #[cfg(unix)]
            std::os::unix::fs::symlink("../skills", &link)
                .or_else(already_there)
                .map_err(io_err(&link))?;
        }
        let ignore = self.root.join(".gitignore");
        if !ignore.exists() {
            match crate::base::state_file::create_new([ignore], GITIGNORE.as_bytes()) {
                Ok(_) => {}
                Err(e) if e.is_already_exists() => {}
                Err(e) => return Err(Error::State(e)),
            }
        }
        if !self.root.join(".git").exists() {
            let _lock = self.git_lock();
            if !self.root.join(".git").exists() && run_git(&self.root, &["init", "-q"]).is_some() {
                tracing::info!(dir = %self.root.display(), "initialised the data directory as a git repository");
            }
        }
        Ok(())
    }

    /// What a read-only git command run in the data directory printed on stdout; `None`
    /// when there is no repository, git is missing, or the command fails (logged at debug:
    /// a file without history is an ordinary answer).
    pub fn git_read(&self, args: &[&str]) -> Option<String> {
        if !self.root.join(".git").exists() {
            return None;
        }
        match git_output(&self.root, args) {
            Ok(out) if out.status.success() => {
                Some(String::from_utf8_lossy(&out.stdout).into_owned())
            }
            Ok(out) => {
                tracing::debug!(args = ?args, stderr = %String::from_utf8_lossy(&out.stderr).trim(), "git read failed");
                None
            }
            Err(cause) => {
                tracing::debug!(args = ?args, %cause, "could not run git");
                None
            }
        }
    }

    /// Whether git has `rel` in its index.
    fn is_tracked(&self, rel: &str) -> bool {
        git_output(&self.root, &["ls-files", "--error-unmatch", "--", rel])
            .is_ok_and(|out| out.status.success())
    }

    /// Holds the data directory's git lock until dropped; `None` (logged) when the lock file
    /// cannot be opened or locked, in which case git's own `index.lock` retries still apply.
    fn git_lock(&self) -> Option<File> {
        let path = self.state_file(GIT_LOCK);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .and_then(|file| file.lock().map(|()| file));
        match file {
            Ok(file) => Some(file),
            Err(e) => {
                tracing::warn!(file = %path.display(), cause = %e, "could not take the git lock; committing without it");
                None
            }
        }
    }

    /// Commits `path` (added, changed or removed) with `message`. Files under `state/`
    /// are never committed. Failures are logged; they never stop the caller.
    pub fn commit(&self, path: &Path, message: &str) {
        if let Err(e) = self.try_commit(path, message) {
            e.log();
        }
    }

    /// [`DataDir::commit`], telling the caller whether the change is now in the history: `Ok`
    /// when it was committed or there was nothing to record (unchanged, under `state/`, outside
    /// the directory, no repository), [`CommitError`] when git could not record it.
    pub fn try_commit(&self, path: &Path, message: &str) -> Result<(), CommitError> {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            tracing::debug!(file = %path.display(), "not inside the data directory; not committed");
            return Ok(());
        };
        if rel.starts_with("state") || !self.root.join(".git").exists() {
            return Ok(());
        }
        let rel = rel.to_string_lossy();
        let _lock = self.git_lock();
        // A file that is gone and that git never knew (written by hand, or its own commit
        // failed) leaves nothing to record.
        if std::fs::symlink_metadata(path).is_err() && !self.is_tracked(&rel) {
            tracing::debug!(file = %rel, "removed file was never committed; nothing to record");
            return Ok(());
        }
        git_checked(&self.root, &["add", "-A", "--", &rel])?;
        // Nothing staged for this path (content unchanged): nothing to commit. `--quiet`
        // exits 1 for a difference; anything else is git failing.
        let diff = ["diff", "--cached", "--quiet", "--", &rel];
        let out = git_output(&self.root, &diff).map_err(|e| CommitError::spawn(&diff, e))?;
        match out.status.code() {
            Some(0) => Ok(()),
            Some(1) => git_checked(
                &self.root,
                &[
                    "-c",
                    "user.name=ollim-bot",
                    "-c",
                    "user.email=ollim-bot@localhost",
                    "commit",
                    "-q",
                    "-m",
                    message,
                    "--",
                    &rel,
                ],
            ),
            _ => Err(CommitError::failed(&diff, &out)),
        }
    }
}

/// Why git could not record a change in the data directory.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// Git did not run (not installed, or the system refused).
    #[error("git did not run: {source}")]
    Spawn {
        /// The git command.
        command: String,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// Git ran and failed.
    #[error("git {command} failed: {said}")]
    Failed {
        /// The git subcommand (`add`, `commit`, …).
        command: String,
        /// The last line git printed on stderr (or its exit status).
        said: String,
    },
}

impl CommitError {
    fn spawn(args: &[&str], source: io::Error) -> Self {
        CommitError::Spawn {
            command: subcommand(args),
            source,
        }
    }

    fn failed(args: &[&str], out: &Output) -> Self {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let said = stderr
            .lines()
            .map(str::trim)
            .rfind(|l| !l.is_empty())
            .map_or_else(|| out.status.to_string(), str::to_owned);
        CommitError::Failed {
            command: subcommand(args),
            said,
        }
    }

    /// Logs the failure as `run_git` always has (a missing git once).
    fn log(&self) {
        match self {
            CommitError::Spawn { source, .. } if source.kind() == io::ErrorKind::NotFound => {
                if !GIT_MISSING_WARNED.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        "git is not installed: data-directory changes will not be committed"
                    );
                }
            }
            CommitError::Spawn { command, source } => {
                tracing::warn!(%command, cause = %source, "could not run git in the data directory");
            }
            CommitError::Failed { command, said } => {
                tracing::warn!(%command, stderr = %said, "git command failed in the data directory");
            }
        }
    }
}

/// The git subcommand in `args` (past any `-c key=value`).
fn subcommand(args: &[&str]) -> String {
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if *arg == "-c" {
            rest.next();
        } else {
            return (*arg).to_owned();
        }
    }
    String::new()
}

/// Runs git in `dir` and returns what it said, retrying while another git process holds
/// `index.lock`.
fn git_output(dir: &Path, args: &[&str]) -> io::Result<Output> {
    // Bookkeeping, never what the owner waits for: it yields the CPU (see `cpu_priority`).
    let run = || {
        let mut git = Command::new("git");
        crate::base::cpu_priority::apply(
            &mut git,
            crate::base::cpu_priority::CpuPriority::Background,
        );
        git.args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .output()
    };
    let mut out = run()?;
    for pause in INDEX_LOCK_RETRIES {
        if out.status.success() || !String::from_utf8_lossy(&out.stderr).contains("index.lock") {
            break;
        }
        std::thread::sleep(pause);
        out = run()?;
    }
    Ok(out)
}

/// Runs git in `dir`; [`CommitError`] when git is missing or fails.
fn git_checked(dir: &Path, args: &[&str]) -> Result<(), CommitError> {
    let out = git_output(dir, args).map_err(|e| CommitError::spawn(args, e))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(CommitError::failed(args, &out))
    }
}

/// Runs git in `dir`; `None` (logged) when git is missing or fails.
fn run_git(dir: &Path, args: &[&str]) -> Option<()> {
    git_checked(dir, args).map_err(|e| e.log()).ok()
}

/// A create that lost the race to another process that made the same thing is not a failure.
fn already_there(e: std::io::Error) -> std::io::Result<()> {
    if e.kind() == std::io::ErrorKind::AlreadyExists {
        Ok(())
    } else {
        Err(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ensure_creates_layout_and_git_repo_and_commit_records_markdown() {
        let tmp = tempfile::tempdir().unwrap();
        let dd = DataDir::new(tmp.path().join("data"));
        dd.ensure().unwrap();
        for sub in SUBDIRS {
            assert!(dd.root().join(sub).is_dir(), "{sub} missing");
        }
        assert!(dd.root().join(".claude/skills").symlink_metadata().is_ok());
        assert!(dd.root().join(".git").is_dir());
        dd.ensure().unwrap(); // idempotent

        let file = dd.routines().join("x.md");
        std::fs::write(&file, "---\nid: \"a\"\n---\nhi\n").unwrap();
        dd.commit(&file, "auto: write routines/x.md");
        let log = Command::new("git")
            .args(["log", "--format=%s"])
            .current_dir(dd.root())
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&log.stdout).trim(),
            "auto: write routines/x.md"
        );
    }

    #[test]
    fn many_processes_preparing_a_new_directory_at_once_all_succeed() {
        let tmp = tempfile::tempdir().unwrap();
        let dd = DataDir::new(tmp.path().join("data"));
        let barrier = std::sync::Barrier::new(16);
        std::thread::scope(|scope| {
            let runs: Vec<_> = (0..16)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        dd.ensure()
                    })
                })
                .collect();
            for run in runs {
                run.join().unwrap().unwrap();
            }
        });
        assert_eq!(
            std::fs::read_to_string(dd.root().join(".gitignore")).unwrap(),
            GITIGNORE
        );
        assert_eq!(
            std::fs::read_link(dd.root().join(".claude/skills")).unwrap(),
            std::path::Path::new("../skills")
        );
    }
}
