//! Noticing changes to the job directories within a second.
//!
//! File-system events (inotify and friends, through `notify`) wake the scheduler as soon as a
//! routine or reminder file is added, edited, renamed or removed. Events can be missed (network
//! file systems, an exhausted inotify limit), so a poll compares a cheap fingerprint of each
//! directory (names, sizes, modification times) as a safety net: every second when events are
//! unavailable, every few seconds otherwise.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, SystemTime};

use notify::{RecursiveMode, Watcher};

/// Poll interval when file-system events work.
const SAFETY_POLL: Duration = Duration::from_secs(5);
/// Poll interval when they do not.
const FALLBACK_POLL: Duration = Duration::from_millis(750);

/// Keeps the watch alive; dropping it stops both the event watcher and the poll thread.
pub struct DirWatcher {
    _events: Option<notify::RecommendedWatcher>,
    stop: Arc<AtomicBool>,
}

impl Drop for DirWatcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for DirWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirWatcher")
            .field("events", &self._events.is_some())
            .finish()
    }
}

/// One entry of a directory fingerprint.
type Mark = (std::ffi::OsString, u64, Option<SystemTime>);

fn fingerprint(dirs: &[PathBuf]) -> Vec<Vec<Mark>> {
    dirs.iter()
        .map(|dir| {
            let mut marks: Vec<Mark> = std::fs::read_dir(dir)
                .map(|rd| {
                    rd.filter_map(Result::ok)
                        .filter_map(|e| {
                            let meta = e.metadata().ok()?;
                            Some((e.file_name(), meta.len(), meta.modified().ok()))
                        })
                        .collect()
                })
                .unwrap_or_default();
            marks.sort();
            marks
        })
        .collect()
}

/// How a change was noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noticed {
    /// A file-system event named it.
    Event,
    /// The poll's fingerprint changed: file events may have missed it (a network file system),
    /// so whatever reads the directories should list them whole.
    Poll,
}

/// Watches `dirs` (not recursively) and calls `on_change` after any change. Calls may come
/// in bursts; the receiver is expected to coalesce them.
pub fn watch(
    dirs: Vec<PathBuf>,
    on_change: impl Fn(Noticed) + Send + Sync + 'static,
) -> DirWatcher {
    let on_change = Arc::new(on_change);
    let events = {
        let notify_change = Arc::clone(&on_change);
        let made =
            notify::recommended_watcher(move |res: notify::Result<notify::Event>| match res {
                Ok(ev) if ev.kind.is_access() => {}
                Ok(_) => notify_change(Noticed::Event),
                Err(e) => tracing::warn!(cause = %e, "file watch error; relying on polling"),
            });
        match made {
            Ok(mut w) => {
                let mut ok = true;
                for dir in &dirs {
                    if let Err(e) = w.watch(dir, RecursiveMode::NonRecursive) {
                        tracing::warn!(dir = %dir.display(), cause = %e, "cannot watch directory; polling instead");
                        ok = false;
                    }
                }
                ok.then_some(w)
            }
            Err(e) => {
                tracing::warn!(cause = %e, "file watching unavailable; polling instead");
                None
            }
        }
    };
    let interval = if events.is_some() {
        SAFETY_POLL
    } else {
        FALLBACK_POLL
    };
    let stop = Arc::new(AtomicBool::new(false));
    let stop_poll = Arc::clone(&stop);
    let spawned = thread::Builder::new()
        .name("job-dir-poll".into())
        .spawn(move || {
            let mut last = fingerprint(&dirs);
            while !stop_poll.load(Ordering::Relaxed) {
                thread::sleep(interval);
                let now = fingerprint(&dirs);
                if now != last {
                    last = now;
                    on_change(Noticed::Poll);
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!(cause = %e, "could not start the directory poll thread");
    }
    DirWatcher {
        _events: events,
        stop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_new_file_is_noticed_within_a_second() {
        let dir = tempfile::tempdir().unwrap();
        let (tx, rx) = mpsc::channel();
        let tx = std::sync::Mutex::new(tx);
        let _w = watch(vec![dir.path().to_path_buf()], move |_| {
            let _ = tx.lock().map(|t| t.send(()));
        });
        std::fs::write(dir.path().join("a.md"), "x").unwrap();
        rx.recv_timeout(Duration::from_secs(1))
            .expect("change should be reported within a second");
    }
}
