//! The Scheduler actor: which routines and reminders exist and when they fire (SPEC §3, §9).
//!
//! It owns the contents of `routines/` and `reminders/` as last read ([`registry`]), notices
//! changes within a second ([`watch`]), and keeps one timer armed for the earliest due job
//! (sleeping through the injectable [`Clock`](crate::base::clock::Clock), so tests move time by hand);
//! fire-time maths lives in [`cron`] and [`plan`]. When a job is due it sends a [`RunJob`] to the
//! job runner, with the background jobs around now for the forward schedule; the runner records
//! the run, deletes a reminder's file (so a failing job never fires twice) and runs it. Overdue
//! reminders (their time passed while the bot was down) fire shortly after start, marked late;
//! so do routines whose times passed while the bot was down — at start it asks the run log when
//! each was last considered ([`Considered`](crate::records::runs::Considered)) — or while the machine
//! slept (a timer that wakes late), with the runner applying the catch-up window. Paused
//! routines are listed and never fire.
//!
//! Messages: [`Reload`] (from the watcher, or anyone who changed a file), [`Upcoming`] (what is
//! registered and when it fires next), [`ForwardItems`] (the background jobs around now, for a
//! webhook's preamble), [`FireDue`] (fire what is due at the clock's now; answered once every
//! fired job has been handed to the runner), and in [`control`]: [`RunNow`] (`routine run`, the
//! Run now button), [`SetPaused`] (the Pause / Resume buttons) and [`Routines`] (for
//! `/routines`).

pub mod broken;
pub mod control;
pub mod edits;
/// The cron schedules, a module of their own (the routine validator reads them too).
pub use crate::jobs::cron;
mod dir_events;
mod missed;
pub mod plan;
pub mod registry;
pub mod watch;

use std::path::PathBuf;

use actix::prelude::*;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::agent::prompts::forward;
use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::jobs::JobId;
use crate::records::pending_updates::Append;
use crate::records::runs::{Considered, RunLog};
use crate::scheduling::job_runner::{RunJob, RunOutcome};
pub use control::{RoutineEntry, Routines, RunNow, RunNowOutcome, SetPaused};
pub use edits::{JobFile, ReadJobFile, SavedJob, WriteJobFile};
use plan::{Baselines, Due, Plan};

/// Re-read the job directories now (coalesced when several arrive together).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct Reload {
    /// List the directories whole rather than trust their file events (the watcher's poll saw
    /// a change that the events may have missed).
    pub listing: bool,
}

/// Asks what is registered and when each job fires next.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Vec<UpcomingJob>")]
pub struct Upcoming;

/// Asks for the background jobs around now, for a forward schedule built outside the
/// scheduler (webhook jobs).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Vec<forward::ScheduledItem>")]
pub struct ForwardItems;

/// One registered job and its next fire time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpcomingJob {
    /// The job's id.
    pub id: JobId,
    /// When it fires next (`None`: a cron that never fires again).
    pub next: Option<DateTime<Utc>>,
    /// Whether it runs in the background.
    pub background: bool,
    /// The file, relative to the data directory.
    pub rel_path: String,
    /// A paused routine (listed, never fired).
    pub paused: bool,
    /// Its `description` (may be empty).
    pub description: String,
}

/// Fire whatever is due at the clock's now; answered once every job fired so far (by this or
/// by the timer) has been handed to the job runner and the runner has answered.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct FireDue;

/// What the scheduler needs to run.
#[derive(Clone)]
pub struct SchedulerConfig {
    /// The data directory (job files, skills, git).
    pub data_dir: DataDir,
    /// The configured zone.
    pub tz: Tz,
    /// The clock.
    pub clock: SharedClock,
    /// Watch the directories (off in tests that drive [`Reload`] themselves).
    pub watch: bool,
    /// The run history, asked at start when each routine was last considered (without it,
    /// times missed while the bot was down are not caught up).
    pub runs: Option<Addr<RunLog>>,
    /// Where broken job files are told to the agent (without it, they are only logged).
    pub pending: Option<Recipient<Append>>,
}

/// The scheduler actor.
pub struct Scheduler {
    config: SchedulerConfig,
    plan: Plan,
    runner: Recipient<RunJob>,
    timer: Option<SpawnHandle>,
    /// Which arming the live timer belongs to. A cancelled timer that was already due can
    /// still run its callback in the same turn of the context (actix drops cancelled futures
    /// lazily); the callback then does nothing, instead of forgetting the live timer and
    /// leaving two armed (each such race added a timer for good, and every one re-read the
    /// job directories at every fire).
    armed: u64,
    reload_queued: bool,
    watcher: Option<watch::DirWatcher>,
    /// Fired jobs not yet answered by the runner.
    in_flight: usize,
    /// [`FireDue`] answers waiting for `in_flight` to reach zero.
    fired_waiters: Vec<tokio::sync::oneshot::Sender<()>>,
    /// The run history's baselines were asked for (once, at the first start).
    baselined: bool,
    /// The broken job files already told to the agent.
    notices: broken::Notices,
}

impl Scheduler {
    /// A scheduler that sends due jobs to `runner`.
    pub fn new(config: SchedulerConfig, runner: Recipient<RunJob>) -> Self {
        let plan = Plan::new(&config.data_dir, config.tz, config.clock.now());
        let notices = broken::Notices::load(&config.data_dir);
        Self {
            notices,
            config,
            plan,
            runner,
            timer: None,
            armed: 0,
            reload_queued: false,
            watcher: None,
            in_flight: 0,
            fired_waiters: Vec::new(),
            baselined: false,
        }
    }

    fn reload(&mut self, ctx: &mut Context<Self>) {
        self.reload_queued = false;
        let now = self.config.clock.now();
        if self.plan.refresh(now) {
            tracing::debug!(jobs = self.plan.len(), "job directories changed");
            self.tell_broken();
        }
        self.arm(ctx);
    }

    /// Tells the agent about job files newly broken (once per broken content).
    fn tell_broken(&mut self) {
        let Some(pending) = &self.config.pending else {
            return;
        };
        for message in self.notices.review(&self.plan.broken()) {
            pending.do_send(Append { message });
        }
    }

    /// (Re)arms the one timer for the earliest due job.
    fn arm(&mut self, ctx: &mut Context<Self>) {
        if let Some(h) = self.timer.take() {
            ctx.cancel_future(h);
        }
        let Some(at) = self.plan.earliest() else {
            return;
        };
        self.armed += 1;
        let arming = self.armed;
        let sleep = self.config.clock.sleep_until(at);
        self.timer = Some(ctx.spawn(sleep.into_actor(self).map(move |(), act, ctx| {
            if act.armed != arming {
                return;
            }
            act.timer = None;
            act.fire_due(ctx);
        })));
    }

    fn fire_due(&mut self, ctx: &mut Context<Self>) {
        let now = self.config.clock.now();
        // Pick up edits that raced the timer before deciding what is due.
        if self.plan.refresh(now) {
            self.tell_broken();
        }
        let due = self.plan.take_due(now);
        for d in due {
            self.spawn_fire(d, now, ctx);
        }
        self.arm(ctx);
    }

    fn spawn_fire(&mut self, due: Due, now: DateTime<Utc>, ctx: &mut Context<Self>) {
        let schedule = if due.job.settings().background {
            self.plan.forward_items(now)
        } else {
            Vec::new()
        };
        let id = due.job.id().to_string();
        if let Some(late) = due.late_since {
            tracing::info!(job = %id, late_since = %late, missed = due.missed.len(), "job fires late");
        }
        let run = RunJob {
            late_since: due.late_since,
            missed: due.missed,
            schedule,
            ..RunJob::new(due.job, due.rel_path, due.due_at, now)
        };
        self.send_run(run, ctx);
    }

    /// Hands `run` to the runner, counted in flight until it answers.
    fn send_run(&mut self, run: RunJob, ctx: &mut Context<Self>) {
        let id = run.job.id().to_string();
        let runner = self.runner.clone();
        self.in_flight += 1;
        let fut = async move {
            match runner.send(run).await {
                Ok(RunOutcome::Failed(e)) => {
                    tracing::error!(job = %id, cause = %e, "fired job did not run");
                }
                Ok(outcome) => tracing::debug!(job = %id, ?outcome, "fired job handed on"),
                Err(e) => {
                    tracing::error!(job = %id, cause = %e, "the job runner has stopped; fired job lost");
                }
            }
        };
        ctx.spawn(fut.into_actor(self).map(|(), act, _ctx| {
            act.in_flight -= 1;
            if act.in_flight == 0 {
                for waiter in act.fired_waiters.drain(..) {
                    let _ = waiter.send(());
                }
            }
        }));
    }
}

impl Actor for Scheduler {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let span = tracing::info_span!("actor", actor = "scheduler");
        let _e = span.enter();
        if self.config.watch {
            let me = ctx.address();
            let dirs: Vec<PathBuf> = vec![
                self.config.data_dir.routines(),
                self.config.data_dir.reminders(),
            ];
            self.watcher = Some(watch::watch(dirs, move |noticed| {
                me.do_send(Reload {
                    listing: noticed == watch::Noticed::Poll,
                })
            }));
        }
        let runs = self.config.runs.clone().filter(|_| !self.baselined);
        let Some(runs) = runs else {
            self.reload(ctx);
            tracing::info!(jobs = self.plan.len(), "scheduler started");
            return;
        };
        self.baselined = true;
        // Nothing fires before the routines are timed from the history.
        ctx.wait(async move { runs.send(Considered).await }.into_actor(self).map(
            |considered, act, ctx| {
                match considered {
                    Ok(c) => act.plan.set_baselines(Baselines {
                        since: Some(c.since),
                        per_job: c.per_job,
                    }),
                    Err(e) => tracing::error!(cause = %e, "the run log did not answer; missed routine times are not caught up"),
                }
                act.reload(ctx);
                tracing::info!(jobs = act.plan.len(), "scheduler started");
            },
        ));
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "scheduler", "scheduler stopped");
    }
}

impl Handler<Reload> for Scheduler {
    type Result = ();

    fn handle(&mut self, msg: Reload, ctx: &mut Self::Context) {
        if msg.listing {
            self.plan.list_next();
        }
        // Bursts of file events collapse into one re-read on the next turn of the mailbox.
        if self.reload_queued {
            return;
        }
        self.reload_queued = true;
        ctx.run_later(std::time::Duration::from_millis(20), |act, ctx| {
            act.reload(ctx)
        });
    }
}

impl Handler<FireDue> for Scheduler {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, _msg: FireDue, ctx: &mut Self::Context) -> Self::Result {
        self.fire_due(ctx);
        if self.in_flight == 0 {
            return Box::pin(async {});
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.fired_waiters.push(tx);
        Box::pin(async move {
            let _ = rx.await;
        })
    }
}

impl Handler<ForwardItems> for Scheduler {
    type Result = MessageResult<ForwardItems>;

    fn handle(&mut self, _msg: ForwardItems, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.plan.forward_items(self.config.clock.now()))
    }
}

impl Handler<Upcoming> for Scheduler {
    type Result = MessageResult<Upcoming>;

    fn handle(&mut self, _msg: Upcoming, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.plan.upcoming())
    }
}
