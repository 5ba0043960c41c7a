//! The auto-update timer against real git: a bare repository stands in for the remote, a clone
//! for the bot's checkout, and another clone pushes new commits. The build command is a shell
//! command the test picks (`OLLIM_BUILD_COMMAND` does the same for a real install). Time is a
//! manual clock that reports each sleep, which is how a test knows a look has ended.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration as StdDuration;

use actix::prelude::*;
use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;
use ollim_actors::base::clock::{Clock, ManualClock, Sleep};
use ollim_actors::conversation::main_session::quiet::{IsQuiet, RuntimeSettings};
use ollim_actors::records::runtime_config::RuntimeConfig;
use ollim_actors::scheduling::job_runner::{RunCounts, Runs};
use tokio::sync::mpsc;

use super::super::steps::Checkout;
use super::super::Note;
use super::Timer;

const LIMIT: StdDuration = StdDuration::from_secs(60);

#[path = "../../tests/support/git_remote.rs"]
mod git_remote;

use git_remote::{git, Repos};

fn checkout(repos: &Repos, build: &str) -> Checkout {
    Checkout {
        dir: repos.bot.clone(),
        build: build.to_owned(),
        running: None,
    }
}

/// A manual clock that reports each deadline the timer sleeps until.
struct ReportingClock {
    inner: ManualClock,
    slept: mpsc::UnboundedSender<DateTime<Utc>>,
}

impl Clock for ReportingClock {
    fn now(&self) -> DateTime<Utc> {
        self.inner.now()
    }
    fn sleep_until(&self, deadline: DateTime<Utc>) -> Sleep {
        let _ = self.slept.send(deadline);
        self.inner.sleep_until(deadline)
    }
}

/// The conversation and the job runner as the timer sees them: quiet or not, a background
/// fork running or not, and the settings.
struct FakeConversation {
    quiet: Arc<AtomicBool>,
    fork_running: Arc<AtomicBool>,
    settings: RuntimeConfig,
}

impl Actor for FakeConversation {
    type Context = Context<Self>;
}

impl Handler<IsQuiet> for FakeConversation {
    type Result = bool;
    fn handle(&mut self, _msg: IsQuiet, _ctx: &mut Self::Context) -> bool {
        self.quiet.load(Ordering::SeqCst)
    }
}

impl Handler<Runs> for FakeConversation {
    type Result = MessageResult<Runs>;
    fn handle(&mut self, _msg: Runs, _ctx: &mut Self::Context) -> Self::Result {
        let running = u64::from(self.fork_running.load(Ordering::SeqCst));
        MessageResult(RunCounts {
            forks_started: 3,
            forks_finished: 3 - running,
            ..RunCounts::default()
        })
    }
}

impl Handler<RuntimeSettings> for FakeConversation {
    type Result = MessageResult<RuntimeSettings>;
    fn handle(&mut self, _msg: RuntimeSettings, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.settings)
    }
}

fn berlin() -> Tz {
    "Europe/Berlin".parse().unwrap()
}

fn at(h: u32, m: u32) -> DateTime<Utc> {
    berlin()
        .with_ymd_and_hms(2026, 3, 2, h, m, 0)
        .unwrap()
        .with_timezone(&Utc)
}

/// A running timer and what it does.
struct Rig {
    clock: ManualClock,
    quiet: Arc<AtomicBool>,
    fork_running: Arc<AtomicBool>,
    notes: mpsc::UnboundedReceiver<Note>,
    slept: mpsc::UnboundedReceiver<DateTime<Utc>>,
    task: tokio::task::JoinHandle<()>,
}

impl Rig {
    fn start(checkout: Option<Checkout>, now: DateTime<Utc>, quiet: bool, on: bool) -> Rig {
        Self::start_with_fork(checkout, now, quiet, on, false)
    }

    fn start_with_fork(
        checkout: Option<Checkout>,
        now: DateTime<Utc>,
        quiet: bool,
        on: bool,
        fork_running: bool,
    ) -> Rig {
        let clock = ManualClock::new(now);
        let (slept_tx, slept) = mpsc::unbounded_channel();
        let quiet = Arc::new(AtomicBool::new(quiet));
        let fork_running = Arc::new(AtomicBool::new(fork_running));
        let conversation = FakeConversation {
            quiet: Arc::clone(&quiet),
            fork_running: Arc::clone(&fork_running),
            settings: RuntimeConfig {
                auto_update: on,
                auto_update_interval_mins: 60,
                auto_update_hour: 6,
                ..RuntimeConfig::default()
            },
        }
        .start();
        let (out, notes) = mpsc::unbounded_channel();
        let task = super::spawn(Timer {
            clock: Arc::new(ReportingClock {
                inner: clock.clone(),
                slept: slept_tx,
            }),
            tz: berlin(),
            checkout,
            quiet: super::super::quiet::Quiet {
                conversation: conversation.clone().recipient(),
                runs: conversation.clone().recipient(),
            },
            settings: conversation.recipient(),
            out,
        });
        Rig {
            clock,
            quiet,
            fork_running,
            notes,
            slept,
            task,
        }
    }

    async fn note(&mut self) -> Note {
        tokio::time::timeout(LIMIT, self.notes.recv())
            .await
            .expect("a note in time")
            .expect("the timer is running")
    }

    async fn sleeps_until(&mut self) -> DateTime<Utc> {
        tokio::time::timeout(LIMIT, self.slept.recv())
            .await
            .expect("the timer sleeps in time")
            .expect("the timer is running")
    }
}

#[actix_rt::test]
async fn new_commits_are_pulled_built_announced_and_a_restart_asked_for() {
    let repos = Repos::new();
    let subjects: Vec<String> = (1..=7).map(|n| format!("change {n}")).collect();
    repos.release(
        &subjects.iter().map(String::as_str).collect::<Vec<_>>(),
        "v0.2.0",
    );
    let mut rig = Rig::start(
        Some(checkout(&repos, "touch built-by-the-test")),
        at(6, 0),
        true,
        true,
    );
    let Note::Say(text) = rig.note().await else {
        panic!("the announcement first");
    };
    assert_eq!(
        text,
        "updating and restarting...\n- change 7\n- change 6\n- change 5\n- change 4\n- change 3\n... and 2 more"
    );
    assert_eq!(
        rig.note().await,
        Note::Restart("auto-update installed".into())
    );
    assert_eq!(Repos::head(&repos.bot), Repos::head(&repos.dev), "pulled");
    assert!(repos.bot.join("built-by-the-test").exists(), "built");
    tokio::time::timeout(LIMIT, rig.task)
        .await
        .expect("the timer ends once a restart is asked for")
        .unwrap();
}

#[actix_rt::test]
async fn a_failing_build_is_reported_and_nothing_restarts() {
    let repos = Repos::new();
    repos.release(&["broken change"], "v0.1.1");
    let mut rig = Rig::start(Some(checkout(&repos, "exit 3")), at(6, 0), true, true);
    let Note::Say(text) = rig.note().await else {
        panic!("the failure");
    };
    assert_eq!(text, "auto-update failed: `exit 3` returned 3");
    // Tomorrow's hour, not another try today; no restart was asked for.
    assert_eq!(
        rig.sleeps_until().await,
        at(6, 0) + chrono::Duration::days(1)
    );
    assert!(rig.notes.try_recv().is_err(), "no restart");
}

#[actix_rt::test]
async fn a_failing_git_step_names_the_command() {
    let repos = Repos::new();
    std::fs::rename(&repos.remote, repos.remote.with_extension("gone")).unwrap();
    let mut rig = Rig::start(Some(checkout(&repos, "true")), at(6, 0), true, true);
    let Note::Say(text) = rig.note().await else {
        panic!("the failure");
    };
    assert!(
        text.starts_with("auto-update failed: `git fetch --tags` returned 128\n```\n"),
        "{text}"
    );
    assert_eq!(
        rig.sleeps_until().await,
        at(6, 0) + chrono::Duration::days(1)
    );
    assert!(rig.notes.try_recv().is_err(), "no restart");
}

#[actix_rt::test]
async fn busy_postpones_the_update_until_the_conversation_is_quiet() {
    let repos = Repos::new();
    repos.release(&["new feature"], "v0.1.1");
    let before = Repos::head(&repos.bot);
    let mut rig = Rig::start(Some(checkout(&repos, "true")), at(6, 0), false, true);
    assert_eq!(rig.sleeps_until().await, at(6, 1), "postponed a minute");
    assert_eq!(Repos::head(&repos.bot), before, "nothing pulled");
    assert!(
        !repos.bot.join(".git").join("FETCH_HEAD").exists(),
        "nothing fetched"
    );
    assert!(rig.notes.try_recv().is_err(), "nothing said");
    rig.quiet.store(true, Ordering::SeqCst);
    rig.clock.set(at(6, 1));
    assert_eq!(
        rig.note().await,
        Note::Say("updating and restarting...\n- new feature".into())
    );
    assert_eq!(
        rig.note().await,
        Note::Restart("auto-update installed".into())
    );
}

#[actix_rt::test]
async fn a_running_background_fork_postpones_the_update() {
    let repos = Repos::new();
    repos.release(&["new feature"], "v0.1.1");
    let before = Repos::head(&repos.bot);
    let mut rig = Rig::start_with_fork(Some(checkout(&repos, "true")), at(6, 0), true, true, true);
    assert_eq!(rig.sleeps_until().await, at(6, 1), "postponed a minute");
    assert_eq!(Repos::head(&repos.bot), before, "nothing pulled");
    assert!(rig.notes.try_recv().is_err(), "nothing said");
    rig.fork_running.store(false, Ordering::SeqCst);
    rig.clock.set(at(6, 1));
    assert_eq!(
        rig.note().await,
        Note::Say("updating and restarting...\n- new feature".into())
    );
}

#[actix_rt::test]
async fn off_or_outside_the_hour_nothing_is_fetched() {
    let repos = Repos::new();
    repos.release(&["new feature"], "v0.1.1");
    // Off: looks again after the interval and does nothing.
    let mut off = Rig::start(Some(checkout(&repos, "true")), at(6, 0), true, false);
    assert_eq!(off.sleeps_until().await, at(7, 0));
    // On, outside the hour: wakes when the hour begins.
    let mut early = Rig::start(Some(checkout(&repos, "true")), at(5, 30), true, true);
    assert_eq!(early.sleeps_until().await, at(6, 0));
    assert!(!repos.bot.join(".git").join("FETCH_HEAD").exists());
    assert!(off.notes.try_recv().is_err() && early.notes.try_recv().is_err());
}

#[actix_rt::test]
async fn up_to_date_says_nothing_and_an_old_binary_is_rebuilt() {
    let repos = Repos::new();
    let first = Repos::head(&repos.bot);
    let mut rig = Rig::start(Some(checkout(&repos, "true")), at(6, 0), true, true);
    assert_eq!(
        rig.sleeps_until().await,
        at(7, 0),
        "up to date: the interval"
    );
    assert!(rig.notes.try_recv().is_err(), "nothing said");
    // The checkout moved past the running binary (pulled by hand, or a build that failed
    // after its pull): the next look rebuilds and announces what the binary lacks.
    repos.push(&["pulled by hand"]);
    git(&repos.bot, &["pull", "-q", "--ff-only"]);
    let checkout = Checkout {
        running: Some(first[..12].to_owned()),
        ..checkout(&repos, "true")
    };
    let mut rig = Rig::start(Some(checkout), at(6, 0), true, true);
    assert_eq!(
        rig.note().await,
        Note::Say("updating and restarting...\n- pulled by hand".into())
    );
}

#[actix_rt::test]
async fn commits_without_a_release_tag_are_not_an_update() {
    let repos = Repos::new();
    repos.push(&["work in progress"]);
    let before = Repos::head(&repos.bot);
    let mut rig = Rig::start(Some(checkout(&repos, "exit 9")), at(6, 0), true, true);
    assert_eq!(
        rig.sleeps_until().await,
        at(7, 0),
        "up to date: the interval"
    );
    assert!(rig.notes.try_recv().is_err(), "nothing said");
    assert_eq!(Repos::head(&repos.bot), before, "nothing merged");
}

#[actix_rt::test]
async fn the_newest_release_tag_is_installed_and_nothing_after_it() {
    let repos = Repos::new();
    repos.release(&["nine"], "v0.9.0");
    repos.release(&["ten"], "v0.10.0");
    let ten = Repos::head(&repos.dev);
    repos.push(&["not released yet"]);
    let mut rig = Rig::start(
        Some(checkout(&repos, "touch built-by-the-test")),
        at(6, 0),
        true,
        true,
    );
    assert_eq!(
        rig.note().await,
        Note::Say("updating and restarting...\n- ten\n- nine".into()),
        "v0.10.0 is newer than v0.9.0"
    );
    assert_eq!(
        rig.note().await,
        Note::Restart("auto-update installed".into())
    );
    assert_eq!(Repos::head(&repos.bot), ten, "up to the tag, not beyond");
    // Installed: the next look finds nothing new.
    let mut again = Rig::start(Some(checkout(&repos, "exit 9")), at(6, 0), true, true);
    assert_eq!(again.sleeps_until().await, at(7, 0));
    assert!(again.notes.try_recv().is_err(), "nothing said");
}

#[actix_rt::test]
async fn no_checkout_is_said_once_a_day() {
    let mut rig = Rig::start(None, at(6, 0), true, true);
    assert_eq!(
        rig.note().await,
        Note::Say(format!("auto-update failed: {}", super::super::NO_CHECKOUT))
    );
    assert_eq!(
        rig.sleeps_until().await,
        at(6, 0) + chrono::Duration::days(1)
    );
}
