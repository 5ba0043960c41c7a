//! A git remote on disk for update tests: a bare repository stands in for the bot's upstream,
//! `bot` is the checkout the bot updates, and `dev` is a developer's clone that pushes. Only
//! local git; nothing leaves the machine.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs git in `dir` (with a throwaway identity); its trimmed stdout. Panics on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The remote, the bot's checkout and the developer's clone, removed when dropped.
pub struct Repos {
    _tmp: tempfile::TempDir,
    /// The bare repository.
    pub remote: PathBuf,
    /// The developer's clone.
    pub dev: PathBuf,
    /// The bot's checkout (tracks `origin/main`).
    pub bot: PathBuf,
}

impl Repos {
    /// A remote with one commit, cloned for the developer and for the bot.
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().expect("temp dir");
        let (remote, dev, bot) = (
            tmp.path().join("remote.git"),
            tmp.path().join("dev"),
            tmp.path().join("bot"),
        );
        git(
            tmp.path(),
            &["init", "-q", "--bare", "-b", "main", "remote.git"],
        );
        git(tmp.path(), &["clone", "-q", "remote.git", "dev"]);
        let repos = Repos {
            _tmp: tmp,
            remote,
            dev,
            bot,
        };
        repos.push(&["first version"]);
        git(
            repos.dev.parent().expect("a parent"),
            &["clone", "-q", "remote.git", "bot"],
        );
        repos
    }

    /// Commits and pushes one commit per subject from the developer's clone.
    pub fn push(&self, subjects: &[&str]) {
        for s in subjects {
            std::fs::write(self.dev.join("notes.txt"), s).expect("write");
            git(&self.dev, &["add", "notes.txt"]);
            git(&self.dev, &["commit", "-q", "-m", s]);
        }
        git(&self.dev, &["push", "-q", "origin", "HEAD:main"]);
    }

    /// Pushes one commit per subject, then tags the last one `tag` (a release) and pushes the
    /// tag.
    pub fn release(&self, subjects: &[&str], tag: &str) {
        self.push(subjects);
        git(&self.dev, &["tag", tag]);
        git(&self.dev, &["push", "-q", "origin", tag]);
    }

    /// The commit checked out in `dir`.
    pub fn head(dir: &Path) -> String {
        git(dir, &["rev-parse", "HEAD"])
    }
}
