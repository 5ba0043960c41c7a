//! The two actors that own a state file, driven through their mailboxes: the ping budget
//! (SPEC §7) and the pending-updates queue (SPEC §8). Each test gets a fresh directory and a
//! manual clock; "restart" means stopping the arbiter the actor runs on and starting a new
//! actor on the same file.

mod pending_updates;
mod pending_updates_bounds;
mod ping_budget;
mod ping_budget_bounds;

use std::path::{Path, PathBuf};

use actix::{Actor, Addr, Arbiter};
use chrono::{DateTime, TimeZone, Utc};
use ollim_actors::base::clock::ManualClock;

/// A fresh temporary directory and the path of `name` inside its `state/` folder.
fn state_path(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("state").join(name);
    (dir, path)
}

/// A manual clock standing at the given UTC instant.
fn clock_at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> ManualClock {
    ManualClock::new(utc(y, mo, d, h, mi))
}

/// A UTC instant.
fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, 0)
        .single()
        .expect("a valid test instant")
}

/// Starts an actor on its own arbiter so that a test can stop it for good (a "crash" or a
/// shutdown) and start a successor on the same file.
fn start_on_own_arbiter<A, F>(make: F) -> (Arbiter, Addr<A>)
where
    A: Actor<Context = actix::Context<A>>,
    F: FnOnce() -> A + Send + 'static,
{
    let arbiter = Arbiter::new();
    let addr = A::start_in_arbiter(&arbiter.handle(), move |_| make());
    (arbiter, addr)
}

/// Stops an arbiter and waits until its thread (and every actor on it) is gone.
fn stop(arbiter: Arbiter) {
    assert!(arbiter.stop(), "the arbiter was already stopped");
    arbiter.join().expect("the arbiter thread ended cleanly");
}

/// Names of the files in `dir`.
fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("a readable directory")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}
