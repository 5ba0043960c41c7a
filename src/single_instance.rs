//! One bot per data directory (SPEC §2): an OS lock on `state/bot.lock`, held for the life of
//! the process, decides. The kernel releases it however the process ends (exit, crash,
//! `kill -9`, or `exec` for `/restart`), so a stale lock cannot exist and two starts racing each
//! other cannot both win.
//!
//! The lock file also holds the owner's pid, which the loser quotes ("already running (pid
//! N)"). `state/bot.pid` is kept for people and scripts: written once the lock is held,
//! removed at exit. Neither file's content decides anything, so a pid file left by a crash, or
//! naming a process that has nothing to do with us, never blocks a start.

use std::fs::{self, File, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::base::state_file;

/// How long a refused start waits for the winner to write its pid into the lock file.
const PID_WAIT: Duration = Duration::from_secs(2);

/// The lock and the pid file, held while the bot runs.
#[derive(Debug)]
pub struct Instance {
    /// The locked file; closing it releases the lock.
    _lock: File,
    pid_file: PathBuf,
}

impl Drop for Instance {
    fn drop(&mut self) {
        // Only remove our own pid: the file is for people, but it should not lie.
        if read_pid(&self.pid_file) == Some(std::process::id()) {
            let _ = fs::remove_file(&self.pid_file);
        }
    }
}

/// Takes the data directory's instance lock, or fails naming the bot that holds it.
pub fn claim(data: &DataDir) -> anyhow::Result<Instance> {
    let lock_path = data.state_file("bot.lock");
    let mut lock = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .with_context(|| format!("opening {}", lock_path.display()))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let holder = wait_for_pid(&mut lock)
                .map_or_else(|| "pid unknown".to_owned(), |pid| format!("pid {pid}"));
            bail!(
                "ollim-bot is already running on {} ({holder}); stop it first or use another OLLIM_DATA_DIR",
                data.root().display()
            );
        }
        Err(TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("locking {}", lock_path.display()))
        }
    }
    let pid = std::process::id();
    lock.set_len(0)
        .and_then(|()| lock.seek(SeekFrom::Start(0)))
        .and_then(|_| lock.write_all(format!("{pid}\n").as_bytes()))
        .with_context(|| format!("writing {}", lock_path.display()))?;
    let pid_file = data.state_file("bot.pid");
    state_file::write_atomic(&pid_file, format!("{pid}\n").as_bytes())
        .context("writing the pid file")?;
    Ok(Instance {
        _lock: lock,
        pid_file,
    })
}

/// The pid the lock's holder wrote, waiting briefly for a holder that has only just won.
fn wait_for_pid(lock: &mut File) -> Option<u32> {
    let deadline = Instant::now() + PID_WAIT;
    loop {
        let mut text = String::new();
        let read = lock
            .seek(SeekFrom::Start(0))
            .and_then(|_| lock.read_to_string(&mut text));
        if let Some(pid) = read.ok().and_then(|_| text.trim().parse().ok()) {
            return Some(pid);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_pid(path: &Path) -> Option<u32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}
