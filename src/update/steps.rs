//! The steps of an update, shared by `/update` and the auto-update timer (SPEC §17: updates
//! follow `v*` tags): `git fetch --tags`, find the newest release tag (`v*`, by version), and
//! when the checkout does not contain it yet, `git merge --ff-only <tag>`; then the build
//! command. Commits pushed to the branch without a release tag never trigger an update. Each
//! step runs in the checkout with a time limit; the first that fails stops the update with its
//! command and exit code, and the running binary stays as it is.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// The default build command.
pub const DEFAULT_BUILD: &str = "cargo build --release --bin ollim-bot";
/// The variable that replaces it (run with `sh -c` in the checkout).
pub const BUILD_VAR: &str = "OLLIM_BUILD_COMMAND";

/// How long git may take over the network.
const GIT_TIMEOUT: Duration = Duration::from_secs(120);
/// How long the build may take (a cold release build on a small machine is slow).
const BUILD_TIMEOUT: Duration = Duration::from_secs(60 * 60);
/// How many commit subjects the announcement lists.
pub const SHOWN_SUBJECTS: usize = 5;

/// A step that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepError {
    /// The command as the user would type it.
    pub command: String,
    /// How it ended: `returned 1`, `timed out after 120s`, `could not start: …`.
    pub ending: String,
    /// The end of what it printed.
    pub output: String,
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` {}", self.command, self.ending)
    }
}

/// What the git checkout is and how it is rebuilt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// The checkout's directory.
    pub dir: PathBuf,
    /// The build command (`sh -c`).
    pub build: String,
    /// The commit the running binary was built from (a prefix), when known.
    pub running: Option<String>,
}

/// An update ready to be installed by a restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// Subjects of the new commits, newest first.
    pub subjects: Vec<String>,
}

impl Built {
    /// "updating and restarting..." with up to five subjects and "... and N more".
    pub fn announcement(&self) -> String {
        let mut text = "updating and restarting...".to_owned();
        for subject in self.subjects.iter().take(SHOWN_SUBJECTS) {
            text.push_str("\n- ");
            text.push_str(subject);
        }
        let more = self.subjects.len().saturating_sub(SHOWN_SUBJECTS);
        if more > 0 {
            text.push_str(&format!("\n... and {more} more"));
        }
        text
    }
}

/// How an update attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing new upstream, and the binary matches the checkout.
    UpToDate,
    /// Pulled and built: restart to run it.
    Built(Built),
    /// A step failed; the running binary is unchanged.
    Failed(StepError),
}

impl Checkout {
    /// Fetches, compares, pulls fast-forward only and builds.
    pub async fn update(&self) -> Outcome {
        match self.try_update().await {
            Ok(Some(built)) => Outcome::Built(built),
            Ok(None) => Outcome::UpToDate,
            Err(e) => Outcome::Failed(e),
        }
    }

    async fn try_update(&self) -> Result<Option<Built>, StepError> {
        self.git(&["fetch", "--quiet", "--tags"]).await?;
        let head = self.git(&["rev-parse", "HEAD"]).await?;
        // The newest release the checkout does not contain yet, if any.
        let release = match self.latest_release().await? {
            Some(tag) if !self.contains(&tag).await => Some(tag),
            _ => None,
        };
        // The running binary's commit, when this checkout has it: a binary built from an older
        // commit than HEAD (a build that failed after a pull, a manual pull) is rebuilt too.
        let running = match &self.running {
            Some(r) if self.has_commit(r).await => Some(r.clone()),
            _ => None,
        };
        let stale_binary = running.as_deref().is_some_and(|r| !head.starts_with(r));
        if release.is_none() && !stale_binary {
            return Ok(None);
        }
        if let Some(tag) = &release {
            tracing::info!(release = %tag, "a newer release is tagged; updating to it");
            self.git(&["merge", "--ff-only", "--quiet", tag]).await?;
        }
        // What the new binary has that the running one lacks.
        let base = running.unwrap_or(head);
        let log = self
            .git(&["log", "--format=%s", &format!("{base}..HEAD")])
            .await?;
        self.run(
            Command::new("sh").args(["-c", &self.build]),
            &self.build,
            BUILD_TIMEOUT,
        )
        .await?;
        Ok(Some(Built {
            subjects: log.lines().map(str::to_owned).collect(),
        }))
    }

    /// The newest `v*` tag by version order (`v0.10.0` after `v0.9.1`), if there is one.
    async fn latest_release(&self) -> Result<Option<String>, StepError> {
        let tags = self
            .git(&["tag", "--list", "v*", "--sort=-version:refname"])
            .await?;
        Ok(tags.lines().next().map(str::trim).map(str::to_owned))
    }

    /// Whether HEAD already contains `tag` (it is HEAD or one of its ancestors).
    async fn contains(&self, tag: &str) -> bool {
        self.git(&[
            "merge-base",
            "--is-ancestor",
            &format!("{tag}^{{commit}}"),
            "HEAD",
        ])
        .await
        .is_ok()
    }

    async fn has_commit(&self, commit: &str) -> bool {
        self.git(&["cat-file", "-e", &format!("{commit}^{{commit}}")])
            .await
            .is_ok()
    }

    async fn git(&self, args: &[&str]) -> Result<String, StepError> {
        let shown = format!("git {}", args.join(" ").replace(" --quiet", ""));
        self.run(Command::new("git").args(args), &shown, GIT_TIMEOUT)
            .await
    }

    /// Runs `cmd` in the checkout; its trimmed stdout, or how it failed.
    async fn run(
        &self,
        cmd: &mut Command,
        shown: &str,
        limit: Duration,
    ) -> Result<String, StepError> {
        let failed = |ending: String, output: String| StepError {
            command: shown.to_owned(),
            ending,
            output,
        };
        let child = cmd
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Never ask for credentials on a terminal nobody watches.
            .env("GIT_TERMINAL_PROMPT", "0")
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| failed(format!("could not start: {e}"), String::new()))?;
        let out = match tokio::time::timeout(limit, child.wait_with_output()).await {
            Err(_) => {
                return Err(failed(
                    format!("timed out after {}s", limit.as_secs()),
                    String::new(),
                ))
            }
            Ok(Err(e)) => return Err(failed(format!("failed: {e}"), String::new())),
            Ok(Ok(out)) => out,
        };
        let stdout = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        if out.status.success() {
            return Ok(stdout);
        }
        let printed = format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        let ending = match out.status.code() {
            Some(code) => format!("returned {code}"),
            None => "was killed".to_owned(),
        };
        Err(failed(ending, tail(&printed, 15)))
    }
}

/// The last `n` non-empty lines of `text`.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The git checkout the running binary was built from: `OLLIM_PROJECT_DIR`, else the nearest
/// ancestor of `exe` holding both `Cargo.toml` and `.git`.
pub fn find_checkout(explicit: Option<PathBuf>, exe: &Path) -> Option<PathBuf> {
    if let Some(dir) = explicit {
        return Some(dir);
    }
    exe.ancestors()
        .find(|d| d.join("Cargo.toml").is_file() && d.join(".git").exists())
        .map(Path::to_path_buf)
}
