//! The JobRunner actor: the one fire path (SPEC §3, §6, §9, §13). Whatever makes a job run now —
//! the scheduler's timer, an accepted webhook — sends it a [`RunJob`]; nothing else builds a
//! job's prompt or starts a background fork.
//!
//! For each job, in order: *(ours)* its condition gate runs ([`gate`]; closed → the run is
//! skipped, reported in [`JobRunner::report_skipped`]; broken → the run fails), then
//! ([`prepare`]) untrusted webhook fields are screened (a flagged
//! payload is dropped; a screening that fails lets it through), the facts the prompt needs are
//! asked of their owners — the ping budget's [`Snapshot`] and whether the user [`IsBusy`], for
//! background jobs — and the prompt is built by [`crate::prompts`]. Then a foreground job goes to
//! the main session as a [`FireJob`] turn, and a background job gets a [`BackgroundFork`] of the
//! saved main session (a fresh session when the job is isolated or no conversation exists yet),
//! limited to [`ForkTimeout`] as configured now. An owner that has stopped fails the run
//! ([`RunError::ActorGone`]), logged; it is never read as "not busy" or "no budget".
//!
//! Messages: [`RunJob`] (answered with the [`RunOutcome`] once the job has been handed on or its
//! fork started) and [`Runs`] (what has run so far, as [`RunCounts`]; a fork counts as finished
//! when its actor has stopped). The runner is where a queue with a limit and per-run records
//! belong; today it keeps counts only.
//!
//! Tests and tools without a conversation run it with [`Delivery::Recipient`]: every built job
//! (foreground or background) goes to one recipient instead.

pub mod gate;
mod prepare;

pub use gate::Skip;
use std::sync::Arc;

use actix::prelude::*;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde_json::{Map, Value};

use crate::data_dir::DataDir;
use crate::fork::background::{BackgroundConfig, BackgroundFork, BackgroundJob, BackgroundPeers};
use crate::jobs::Job;
use crate::main_session::{FireJob, ForkTimeout, IsBusy, MainSession, QuietHoursNow};
use crate::ping_budget::PingBudget;
use crate::prompts::forward::ScheduledItem;
use crate::prompts::skill_section::CommandLimits;
use crate::sessions::MainSessionFile;
use crate::webhook_screen::{Field, Screener};

/// Run this job now.
#[derive(Debug, Clone, Message)]
#[rtype(result = "RunOutcome")]
pub struct RunJob {
    /// The job (a webhook job carries its spec's settings and template).
    pub job: Job,
    /// When it was due.
    pub due_at: DateTime<Utc>,
    /// When it fired.
    pub fired_at: DateTime<Utc>,
    /// For an overdue reminder, when it was scheduled (it gets the `[late: …]` marker).
    pub late_since: Option<DateTime<Utc>>,
    /// The job's file relative to the data directory.
    pub rel_path: String,
    /// Background jobs around now, for the preamble's forward schedule (the scheduler's index as
    /// it stood when the job fired).
    pub schedule: Vec<ScheduledItem>,
    /// A webhook's payload (empty for routines and reminders).
    pub payload: Map<String, Value>,
    /// Untrusted free-form fields to screen before anything runs (webhooks).
    pub screen: Vec<Field>,
}

impl RunJob {
    /// A job due at `due_at` and firing at `fired_at`, with nothing to screen and no payload.
    pub fn new(job: Job, rel_path: String, due_at: DateTime<Utc>, fired_at: DateTime<Utc>) -> Self {
        Self {
            job,
            due_at,
            fired_at,
            late_since: None,
            rel_path,
            schedule: Vec::new(),
            payload: Map::new(),
            screen: Vec::new(),
        }
    }
}

/// What became of a [`RunJob`].
#[derive(Debug)]
pub enum RunOutcome {
    /// Handed to the main session as a turn (or to the recipient that stands in for it).
    Handed,
    /// A background fork was started.
    ForkStarted,
    /// Screening flagged these fields; nothing ran.
    Dropped {
        /// The flagged fields.
        flagged: Vec<String>,
    },
    /// *(ours)* Its gate said no (exited non-zero): nothing ran.
    Skipped(Skip),
    /// It could not run.
    Failed(RunError),
}

/// Why a job could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// An actor the run needed has stopped (its mailbox is closed).
    #[error("the {actor} actor has stopped, so job {job} did not run")]
    ActorGone {
        /// Which actor.
        actor: &'static str,
        /// The job.
        job: String,
    },
    /// *(ours)* The job's gate could not decide (it could not start, or ran too long).
    #[error("job {job} did not run: {failure}")]
    GateFailed {
        /// The job.
        job: String,
        /// What went wrong.
        failure: gate::GateFailure,
    },
}

/// Asks what has run so far.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "RunCounts")]
pub struct Runs;

/// Runs since the runner started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunCounts {
    /// Jobs handed to the main session (or the recipient).
    pub handed: u64,
    /// Background forks started.
    pub forks_started: u64,
    /// Background forks whose actor has stopped (done, failed or timed out).
    pub forks_finished: u64,
    /// Jobs dropped by screening.
    pub dropped: u64,
    /// Jobs whose gate skipped the run.
    pub skipped: u64,
    /// Jobs that could not run.
    pub failed: u64,
}

impl RunCounts {
    /// Background forks still running.
    pub fn forks_running(&self) -> u64 {
        self.forks_started - self.forks_finished
    }

    /// Jobs whose run has been decided (handed, started, dropped, skipped or failed).
    pub fn decided(&self) -> u64 {
        self.handed + self.forks_started + self.dropped + self.skipped + self.failed
    }
}

/// Where built jobs go.
#[derive(Clone)]
pub enum Delivery {
    /// Foreground jobs become turns of `main`; background jobs get a fork set up from `forks`.
    Conversation {
        /// The main session (turns, busy, the fork time limit).
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
    /// The data directory (skills, the saved main session id).
    pub data_dir: DataDir,
    /// The configured zone.
    pub tz: Tz,
    /// Bounds on `` !`command` `` expansion in skills.
    pub limits: CommandLimits,
    /// The ping budget, for the preamble.
    pub budget: Addr<PingBudget>,
    /// Judges untrusted webhook fields; `None` lets them through unscreened (logged).
    pub screener: Option<Arc<dyn Screener>>,
    /// Where built jobs go.
    pub delivery: Delivery,
}

/// The actor.
pub struct JobRunner {
    config: JobRunnerConfig,
    counts: RunCounts,
}

impl JobRunner {
    /// A runner with nothing run yet.
    pub fn new(config: JobRunnerConfig) -> Self {
        Self {
            config,
            counts: RunCounts::default(),
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

    /// Hands a built job on: a turn for the conversation (or the recipient), a fork for a
    /// background job.
    fn deliver(&mut self, fired: FireJob) -> ResponseActFuture<Self, RunOutcome> {
        let job = fired.job.id().to_string();
        let gone = move |actor| RunOutcome::Failed(RunError::ActorGone { actor, job });
        match self.config.delivery.clone() {
            Delivery::Recipient { jobs, .. } => Box::pin(
                async move {
                    match jobs.send(fired).await {
                        Ok(()) => RunOutcome::Handed,
                        Err(_) => gone("job recipient"),
                    }
                }
                .into_actor(self),
            ),
            Delivery::Conversation { main, .. } if !fired.job.settings().background => Box::pin(
                async move {
                    match main.send(fired).await {
                        Ok(()) => RunOutcome::Handed,
                        Err(_) => gone("main_session"),
                    }
                }
                .into_actor(self),
            ),
            Delivery::Conversation { main, forks } => Box::pin(
                async move { main.send(ForkTimeout).await }
                    .into_actor(self)
                    .map(move |timeout, act, ctx| match timeout {
                        Ok(timeout) => {
                            act.start_fork(*forks, fired, timeout, ctx);
                            RunOutcome::ForkStarted
                        }
                        Err(_) => gone("main_session"),
                    }),
            ),
        }
    }

    /// Starts the fork for `fired`, branching from the saved main session; counts it finished
    /// when its actor stops.
    fn start_fork(
        &mut self,
        setup: BackgroundSetup,
        fired: FireJob,
        timeout: std::time::Duration,
        ctx: &mut Context<Self>,
    ) {
        // Only a session the CLI has written can be forked: before the first turn, isolate.
        let parent = MainSessionFile::in_data_dir(&self.config.data_dir)
            .load()
            .unwrap_or_else(|e| {
                tracing::warn!(cause = %e, "could not read the saved main session id; running isolated");
                None
            });
        let mut config = setup.config;
        config.timeout = timeout;
        let job = BackgroundJob {
            job: fired.job,
            prompt: fired.prompt,
            rel_path: fired.rel_path,
        };
        let (done, ended) = tokio::sync::oneshot::channel();
        BackgroundFork::new(config, setup.peers, job, parent, done).start();
        ctx.spawn(ended.into_actor(self).map(|outcome, act, _ctx| {
            act.counts.forks_finished += 1;
            tracing::debug!(outcome = ?outcome.ok(), running = act.counts.forks_running(), "background fork ended");
        }));
    }

    /// The one place a run its gate skipped is reported. Logged for now; the run history
    /// records it as `skipped` (issue 15).
    fn report_skipped(&mut self, skip: &Skip) {
        self.counts.skipped += 1;
        tracing::info!(
            job = %skip.job,
            gate = %skip.gate,
            code = ?skip.closed.code,
            said = ?skip.closed.said,
            "job skipped: its gate said no"
        );
    }

    fn count(&mut self, outcome: &RunOutcome) {
        let counts = &mut self.counts;
        match outcome {
            RunOutcome::Handed => counts.handed += 1,
            RunOutcome::ForkStarted => counts.forks_started += 1,
            RunOutcome::Dropped { .. } => counts.dropped += 1,
            RunOutcome::Skipped(skip) => self.report_skipped(skip),
            RunOutcome::Failed(e) => {
                counts.failed += 1;
                tracing::error!(cause = %e, "job did not run");
            }
        }
    }
}

impl Actor for JobRunner {
    type Context = Context<Self>;

    fn started(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "job_runner", "job runner started");
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
        let inputs = prepare::Inputs {
            data_dir: self.config.data_dir.clone(),
            tz: self.config.tz,
            limits: self.config.limits,
            budget: self.config.budget.clone(),
            busy: self.busy_asker(),
            quiet: self.quiet_asker(),
            screener: self.config.screener.clone(),
        };
        Box::pin(
            async move {
                let gate_output = match gate::open(&inputs.data_dir, &run).await {
                    Ok(output) => output,
                    Err(outcome) => return Err(outcome),
                };
                prepare::prepare(inputs, run, gate_output).await
            }
            .into_actor(self)
            .then(|prepared, act, _ctx| match prepared {
                Ok(fired) => act.deliver(fired),
                Err(outcome) => Box::pin(fut::ready(outcome)),
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
        MessageResult(self.counts)
    }
}
