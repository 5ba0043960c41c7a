//! Starting the bot: read the environment, claim the single-instance pid file, prepare the
//! data directory, then hand over to the supervisor with the chosen surface.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use ollim_actors::settings::{Settings, SurfaceKind};
use ollim_actors::state_file;

/// Which surface to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceChoice {
    /// Discord when `DISCORD_TOKEN` is set, else the console.
    FromEnvironment,
    /// The console, whatever the environment says.
    Console,
}

/// Holds `state/bot.pid` while the bot runs; removes it on drop.
#[derive(Debug)]
pub struct PidGuard {
    path: PathBuf,
}

impl Drop for PidGuard {
    fn drop(&mut self) {
        // Only remove our own pid: a racing second start must not delete the first's file.
        if read_pid(&self.path) == Some(std::process::id()) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

fn read_pid(path: &Path) -> Option<u32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Whether `pid` is a live ollim-bot process (a recycled pid of another program is not).
fn is_running_bot(pid: u32) -> bool {
    if pid == std::process::id() {
        return false;
    }
    match fs::read(format!("/proc/{pid}/cmdline")) {
        Ok(cmdline) => String::from_utf8_lossy(&cmdline).contains("ollim-bot"),
        Err(_) => false,
    }
}

/// Claims the pid file, refusing when another bot is running on the same data directory.
pub fn claim_pid_file(path: &Path) -> anyhow::Result<PidGuard> {
    if let Some(pid) = read_pid(path) {
        if is_running_bot(pid) {
            bail!(
                "ollim-bot is already running (pid {pid}); stop it first or use another OLLIM_DATA_DIR"
            );
        }
        tracing::info!(stale_pid = pid, "removing a stale pid file");
    }
    state_file::write_atomic(path, format!("{}\n", std::process::id()).as_bytes())
        .context("writing the pid file")?;
    Ok(PidGuard {
        path: path.to_path_buf(),
    })
}

/// Runs the bot until it is told to stop.
pub fn run_bot(choice: SurfaceChoice) -> anyhow::Result<()> {
    let get = |k: &str| std::env::var(k).ok();
    let token_set = get("DISCORD_TOKEN").is_some_and(|t| !t.trim().is_empty());
    let surface = match choice {
        SurfaceChoice::Console => SurfaceKind::Console,
        SurfaceChoice::FromEnvironment if token_set => SurfaceKind::Discord,
        SurfaceChoice::FromEnvironment => SurfaceKind::Console,
    };
    let settings = Settings::from_lookup(&get, surface)?;
    if surface == SurfaceKind::Discord {
        bail!(
            "the Discord surface is not built yet; unset DISCORD_TOKEN or run `ollim-bot console`"
        );
    }
    settings
        .data_dir
        .ensure()
        .with_context(|| format!("preparing {}", settings.data_dir.root().display()))?;
    let _pid = claim_pid_file(&settings.data_dir.state_file("bot.pid"))?;
    ollim_actors::spec_docs::install(&settings.data_dir).context("placing the spec docs")?;
    crate::console::run(settings)
}
