//! The JobRunner actor: the one fire path (SPEC §3, §6, §9, §13, §16). Whatever makes a job run
//! now — the scheduler's timer, `routine run`, an accepted webhook, a run cut off by a restart —
//! sends it a [`RunJob`]; nothing else builds a job's prompt or starts a background fork.
//!
//! For each job, in order: a routine fired late decides whether it still runs ([`catch_up`]:
//! its catch-up window; every missed time gets a line in the run history); the run is opened in
//! the run log ([`crate::records::runs`]) — before a reminder's file is deleted, so a crash from here on
//! leaves a record the next start acts on ([`recovery`]); then a foreground job is prepared and
//! goes to the main session as a [`FireJob`] turn, and a background job takes one of
//! `bg_fork_limit` slots or waits in line in fire order ([`queue`]; a reflection after a
//! background run takes a slot too, behind any waiting job: [`reflections`]). Preparing ([`prepare`]),
//! when the job starts: the skills it names are read ([`skill_refs`]; one missing or broken →
//! the run is recorded `skipped`, no model is asked, and for a routine or reminder a pending
//! update says which job was blocked and why), so is its subagent, a background job's tool set
//! is put together (an unsafe pattern blocks the run: recorded `skipped`, the agent told
//! through a pending update — [`Blocked`]; the runner owns the view of `tool-policy.yaml` it is
//! made with), *(ours)* its condition gate runs ([`gate`];
//! closed → the run is recorded `skipped`; broken → `failed`), untrusted webhook fields are screened (a flagged
//! payload is dropped; a screening that fails lets it through), the facts the prompt needs are
//! asked of their owners — the ping budget's [`Snapshot`](crate::records::ping_budget::Snapshot),
//! whether the user [`IsBusy`] and *(ours)* [`QuietHoursNow`], for background jobs — and the
//! prompt is built by [`crate::agent::prompts`]. A background job gets a
//! [`BackgroundFork`] of the saved main session (a fresh session when the job is isolated or no
//! conversation exists yet), limited to [`ForkTimeout`] as configured now. When the turn or the
//! fork ends, the run is closed with its outcome, cost and turns ([`records`]), and a failure
//! alert or "working again" goes to the owner when one is due. An owner that has stopped fails
//! the run ([`RunError::ActorGone`]), logged; it is never read as "not busy" or "no budget".
//!
//! Messages: [`RunJob`] (answered once the job has been handed on, its fork started, or it
//! waits in line), [`Runs`] (counts so far, [`RunCounts`]), [`Activity`] (what runs and what
//! waits, for `/routines`), [`Stopping`] (the bot is going down: runs cut off now stay open and
//! run again after the restart).
//!
//! Tests and tools without a conversation run it with [`Delivery::Recipient`]: every built job
//! (foreground or background) goes to one recipient instead, without slots.

mod catch_up;
mod dispatch;
mod foreground;
pub mod gate;
mod messages;
mod outcomes;
pub mod plain_reminder;
mod prepare;
mod queue;
mod records;
mod recovery;
mod reflections;
mod retry;
mod skill_refs;

use std::collections::HashMap;
use std::sync::Arc;

use actix::prelude::*;
use chrono_tz::Tz;

use crate::agent::permissions::tool_policy::PolicyFile;
use crate::agent::prompts::skill_section::CommandLimits;
use crate::agent::webhook_screen::Screener;
use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::conversation::main_session::{FireJob, IsBusy, MainSession, QuietHoursNow};
use crate::conversation::surface::SurfaceEvent;
use crate::records::ping_budget::PingBudget;
use crate::records::runs::{Record, RunLog};
use crate::records::runtime_config::RuntimeConfig;
use crate::scheduling::fork::background::{job_name, BackgroundConfig, BackgroundPeers};
pub use messages::{
    ActiveJob, Activity, ActivityReport, Blocked, Reopened, RunCounts, RunError, RunJob,
    RunOutcome, Runs, Skip, SkipReason, Stopping,
};
pub use skill_refs::{BadSkill, BlockedBySkills};

/// Where built jobs go.
#[derive(Clone)]
pub enum Delivery {
    /// Foreground jobs become turns of `main`; background jobs get a fork set up from `forks`.
    Conversation {
        /// The main session (turns, busy, settings, the fork time limit).
        main: Addr<MainSession>,
        /// What every background fork shares.
        forks: Box<BackgroundSetup>,
    },
    /// Every built job goes to `jobs` (tests, tools without a conversation); `busy`, when set,
    /// answers [`IsBusy`] for the preamble.
    Recipient {
        /// Receives every built job.
        jobs: Recipient<FireJob>,
        /// Answers whether the user is mid-turn.
        busy: Option<Recipient<IsBusy>>,
    },
}

/// What every background fork shares; the time limit is asked of the main session per fork.
#[derive(Clone)]
pub struct BackgroundSetup {
    /// Process settings (its `timeout` is replaced by [`ForkTimeout`] at each start).
    pub config: BackgroundConfig,
    /// Who the forks talk to.
    pub peers: BackgroundPeers,
}

/// What the runner needs.
#[derive(Clone)]
pub struct JobRunnerConfig {
    /// The data directory (skills, the saved main session id, reminder files).
    pub data_dir: DataDir,
    /// The configured zone.
    pub tz: Tz,
    /// The clock.
    pub clock: SharedClock,
    /// Bounds on `` !`command` `` expansion in skills.
    pub limits: CommandLimits,
    /// The ping budget, for the preamble.
    pub budget: Addr<PingBudget>,
    /// The run history.
    pub runs: Addr<RunLog>,
    /// Judges untrusted webhook fields; `None` lets them through unscreened (logged).
    pub screener: Option<Arc<dyn Screener>>,
    /// Where built jobs go.
    pub delivery: Delivery,
}

/// Whether a job runs or waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ActiveState {
    Running,
    Waiting,
}

/// A run the runner is looking after.
#[derive(Debug, Clone)]
struct Active {
    job: ActiveJob,
    state: ActiveState,
}

/// The actor.
pub struct JobRunner {
    config: JobRunnerConfig,
    counts: RunCounts,
    /// The runtime settings as last asked of the main session (defaults without one).
    settings: RuntimeConfig,
    slots: queue::Slots,
    /// Foreground jobs waiting to be prepared and handed to the conversation, in fire order.
    foreground: foreground::ForegroundLine,
    /// Runs in progress, by run id.
    active: HashMap<String, Active>,
    stopping: bool,
    /// Writes the reflections of ended background forks (with a conversation only).
    reflector: Option<Addr<crate::scheduling::reflection::Reflector>>,
    /// `tool-policy.yaml`, re-read when it changes (the last good one kept).
    tool_policy: PolicyFile,
    /// *(ours)* The local day the owner was last told that a spend cap holds jobs back.
    spend_noticed: Option<chrono::NaiveDate>,
}

impl JobRunner {
    /// A runner with nothing run yet.
    pub fn new(config: JobRunnerConfig) -> Self {
        let reflector = reflections::start_reflector(&config.delivery);
        Self {
            reflector,
            tool_policy: PolicyFile::in_data_dir(&config.data_dir),
            config,
            counts: RunCounts::default(),
            settings: RuntimeConfig::default(),
            slots: queue::Slots::default(),
            foreground: foreground::ForegroundLine::default(),
            active: HashMap::new(),
            stopping: false,
            spend_noticed: None,
        }
    }

    fn busy_asker(&self) -> Option<Recipient<IsBusy>> {
        match &self.config.delivery {
            Delivery::Conversation { main, .. } => Some(main.clone().recipient()),
            Delivery::Recipient { busy, .. } => busy.clone(),
        }
    }

    /// Who says whether quiet hours are on: the conversation (a recipient stands in for none).
    fn quiet_asker(&self) -> Option<Recipient<QuietHoursNow>> {
        match &self.config.delivery {
            Delivery::Conversation { main, .. } => Some(main.clone().recipient()),
            Delivery::Recipient { .. } => None,
        }
    }

    /// Where the owner hears about failures (none without a conversation).
    fn notices(&self) -> Option<Recipient<SurfaceEvent>> {
        match &self.config.delivery {
            Delivery::Conversation { forks, .. } => Some(forks.peers.surface.clone()),
            Delivery::Recipient { .. } => None,
        }
    }

    fn prepare_inputs(&mut self) -> prepare::Inputs {
        prepare::Inputs {
            data_dir: self.config.data_dir.clone(),
            tz: self.config.tz,
            limits: self.config.limits,
            budget: self.config.budget.clone(),
            busy: self.busy_asker(),
            quiet: self.quiet_asker(),
            screener: self.config.screener.clone(),
            tool_policy: self.tool_policy.current().clone(),
            runs: self.config.runs.clone(),
            settings: self.settings,
        }
    }

    /// Notes `run` as running or waiting, for [`Activity`].
    fn note_active(&mut self, run_id: &str, run: &RunJob, state: ActiveState) {
        let job = ActiveJob {
            job: run.job.id().clone(),
            name: job_name(&run.job, &run.rel_path),
            file: run.rel_path.clone(),
            background: run.job.settings().background,
            since: self.config.clock.now(),
        };
        self.active.insert(run_id.to_owned(), Active { job, state });
    }

    /// The runtime settings now: asked of the main session, defaults without one.
    fn fetch_settings(&self) -> impl std::future::Future<Output = Option<RuntimeConfig>> {
        let main = match &self.config.delivery {
            Delivery::Conversation { main, .. } => Some(main.clone()),
            Delivery::Recipient { .. } => None,
        };
        async move {
            match main {
                Some(main) => main
                    .send(crate::conversation::main_session::quiet::RuntimeSettings)
                    .await
                    .ok(),
                None => Some(RuntimeConfig::default()),
            }
        }
    }
}

impl Actor for JobRunner {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        tracing::info!(actor = "job_runner", "job runner started");
        self.recover(ctx);
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "job_runner", "job runner stopped");
    }
}

impl Supervised for JobRunner {
    fn restarting(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "job_runner", "actor restarting");
    }
}

impl Handler<RunJob> for JobRunner {
    type Result = ResponseActFuture<Self, RunOutcome>;

    fn handle(&mut self, run: RunJob, _ctx: &mut Self::Context) -> Self::Result {
        Box::pin(
            self.fetch_settings()
                .into_actor(self)
                .then(move |settings, act, ctx| match settings {
                    Some(settings) => {
                        act.settings = settings;
                        act.begin(run, ctx)
                    }
                    None => {
                        let job = run.job.id().to_string();
                        let err = RunError::ActorGone {
                            actor: "main_session",
                            job,
                        };
                        let now = act.config.clock.now();
                        let line = records::unopened_record(
                            &run,
                            crate::records::runs::Outcome::Failed,
                            err.to_string(),
                            now,
                            act.config.tz,
                        );
                        act.config.runs.do_send(Record(vec![line]));
                        Box::pin(fut::ready(RunOutcome::Failed(err)))
                    }
                })
                .map(|outcome, act, _ctx| {
                    act.count(&outcome);
                    outcome
                }),
        )
    }
}

impl Handler<Runs> for JobRunner {
    type Result = MessageResult<Runs>;

    fn handle(&mut self, _msg: Runs, _ctx: &mut Self::Context) -> Self::Result {
        let mut counts = self.counts;
        counts.slots_busy = self.slots.busy() as u64;
        counts.waiting = self.slots.waiting() as u64;
        counts.reflections_waiting = self.slots.reflections_waiting() as u64;
        MessageResult(counts)
    }
}

impl Handler<Activity> for JobRunner {
    type Result = MessageResult<Activity>;

    fn handle(&mut self, _msg: Activity, _ctx: &mut Self::Context) -> Self::Result {
        let mut running: Vec<ActiveJob> = self
            .active
            .values()
            .filter(|a| a.state == ActiveState::Running)
            .map(|a| a.job.clone())
            .collect();
        running.sort_by(|a, b| a.since.cmp(&b.since).then(a.job.cmp(&b.job)));
        let waiting = self
            .slots
            .line()
            .map(|(run, since)| ActiveJob {
                job: run.job.id().clone(),
                name: job_name(&run.job, &run.rel_path),
                file: run.rel_path.clone(),
                background: true,
                since,
            })
            .collect();
        MessageResult(ActivityReport {
            limit: self.settings.bg_fork_limit(),
            running,
            waiting,
        })
    }
}

impl Handler<Stopping> for JobRunner {
    type Result = ();

    fn handle(&mut self, _msg: Stopping, _ctx: &mut Self::Context) {
        self.stopping = true;
        self.drop_waiting_reflections();
    }
}
