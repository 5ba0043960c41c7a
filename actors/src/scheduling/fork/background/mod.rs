//! The BackgroundFork actor: runs one background job to completion (SPEC §6, §7, §9).
//!
//! It owns a CLI process forked from the main session (`--resume <main> --fork-session`) or,
//! for `isolated` jobs and before any conversation exists, a fresh session; the job's model and
//! thinking overrides; its tool restrictions (the rules the job runner put together when the job
//! fired — reply tools, the default or policy set, the job's and its skills' tools — minus what
//! `allow-ping: false` and `blocked` take away: the CLI is offered exactly that set,
//! [`crate::agent::tools::offer`]; reads are held to it by a hook, [`crate::agent::permissions::read_scope`]);
//! its own ping
//! count and reported/pinged flags; and its deadline. Plain text output is discarded: the job
//! talks to the user only through `ping_user` / `discord_embed` and back to the main session
//! through `report_updates`. A Stop hook keeps the agent going until it has reported when its
//! reporting mode demands it (a few continuations at most). The user hears about a timeout or a
//! failure in one short line. The actor stops when the job ends. Its start — the prompt's
//! timestamp header and peeked updates, and three attempts to start the CLI — is in
//! `start.rs`; what it does with its process's events (the result ending the job) in
//! `events.rs`; what its CLI is started with in `options.rs`; its answers to the CLI (no
//! questions, the file hooks, the Stop hook) in `host.rs`; the tools it is started with and
//! their backend in [`tools`].
//!
//! Pings go through the budget path in order — this fork's own count (here, serialized by the
//! mailbox), then quiet hours and whether the user is mid-turn (the main session), then the ping
//! budget (its own actor, which also refuses a text the job sent in the last day) — so two forks
//! can never both spend the last token.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use chrono_tz::Tz;

use super::end::short_error;
pub use super::end::{human_name, job_name, spoken, ForkEnd, ForkOutcome};
use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::claude::brain::Launcher;
use crate::conversation::main_session::{IsBusy, QuietHoursNow};
use crate::conversation::surface::SurfaceEvent;
use crate::jobs::{Job, UpdateMode};
use crate::records::pending_updates::PendingUpdates;
use crate::records::ping_budget::PingBudget;
use crate::records::runs::RunTicket;
use crate::records::sessions::SessionRecords;

mod events;
mod host;
mod options;
mod progress;
mod start;
pub mod tools;
use events::Event;
use host::ForkHost;
use progress::{Activity, Ending, RunState};
pub use start::START_RETRY_WAITS;
use tools::ForkTools;

/// How many times the Stop hook may send the agent back to report (the CLI sets no limit).
pub const MAX_STOP_BLOCKS: u32 = 3;

/// What every background fork shares.
#[derive(Clone)]
pub struct BackgroundConfig {
    /// The data directory (the CLI's working directory).
    pub data_dir: DataDir,
    /// The configured zone.
    pub tz: Tz,
    /// The clock.
    pub clock: SharedClock,
    /// Starts CLI processes.
    pub launcher: Arc<dyn Launcher>,
    /// The `claude` binary.
    pub binary: PathBuf,
    /// Text appended to the `claude_code` preset.
    pub system_prompt: String,
    /// The time limit (`bg_fork_timeout`).
    pub timeout: Duration,
    /// Extra environment for the CLI process.
    pub cli_env: std::collections::BTreeMap<String, String>,
}

/// One background job to run: the job as read from disk and its complete prompt.
#[derive(Debug, Clone)]
pub struct BackgroundJob {
    /// The job (routine, reminder or webhook).
    pub job: Job,
    /// The complete prompt (tag, preamble, skills, body).
    pub prompt: String,
    /// The job file's path relative to the data directory.
    pub rel_path: String,
    /// Its run in the run log, marked before each thing the owner will see.
    pub run: Option<RunTicket>,
    /// What its tools may do: put together once, when the job fired
    /// ([`tools::rules`]).
    pub rules: crate::agent::tools::BackgroundRules,
    /// *(ours, SPEC §19)* Its bounds on this run: `--max-budget-usd` and `--max-turns`.
    pub limits: RunBounds,
}

/// The CLI's own limits on one background run (`None`: the flag is left out).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RunBounds {
    /// `--max-budget-usd`: the smaller of the job's `max-cost` and what is left today.
    pub max_budget_usd: Option<f64>,
    /// `--max-turns`: the job's `max-turns`.
    pub max_turns: Option<u32>,
}

/// Who a background fork talks to.
#[derive(Clone)]
pub struct BackgroundPeers {
    /// The DM channel.
    pub surface: Recipient<SurfaceEvent>,
    /// Reports go here.
    pub pending: Addr<PendingUpdates>,
    /// Pings are paid here.
    pub budget: Addr<PingBudget>,
    /// Asked whether the user is mid-turn.
    pub busy: Recipient<IsBusy>,
    /// Asked whether quiet hours are in effect (the main session, which holds the setting).
    pub quiet: Recipient<QuietHoursNow>,
    /// Session history and button prompts are written here.
    pub records: Addr<SessionRecords>,
}

/// The actor.
pub struct BackgroundFork {
    pub(super) config: BackgroundConfig,
    pub(super) peers: BackgroundPeers,
    pub(super) fired: BackgroundJob,
    /// The main session's id as the fork was given it (`None`: no conversation yet).
    main_session: Option<String>,
    /// The session it forks now: the main one, or `None` once it fell back to isolated.
    parent_session: Option<String>,
    /// Where the run stands: starting its CLI, running, or ended and how.
    state: RunState,
    /// What the run has done so far (pings, refusals, its report, …).
    pub(super) activity: Activity,
    /// The CLI's session, once its init named it.
    pub(super) session_id: Option<String>,
    /// Hears how the run ended when the actor stops.
    done: Option<tokio::sync::oneshot::Sender<ForkEnd>>,
    /// Handed to its CLI in [`crate::agent::outside_reads::TOKEN_ENV`]: our Google commands note
    /// under it that the fork read outside text.
    pub(super) read_token: String,
    /// A `session: persistent` routine's own session ([`crate::scheduling::routine_sessions`]).
    pub(super) persistent: Option<crate::scheduling::routine_sessions::PersistentRun>,
}

impl BackgroundFork {
    /// A fork for `fired`, branching from `parent_session` (the main session's id) unless the
    /// job is isolated. `done` hears how it ended when the actor stops.
    pub fn new(
        config: BackgroundConfig,
        peers: BackgroundPeers,
        fired: BackgroundJob,
        parent_session: Option<String>,
        done: tokio::sync::oneshot::Sender<ForkEnd>,
    ) -> Self {
        let persistent = crate::scheduling::routine_sessions::PersistentRun::for_job(
            &config.data_dir,
            &fired.job,
        );
        Self {
            config,
            peers,
            fired,
            main_session: parent_session.clone(),
            parent_session,
            state: RunState::Starting { failed_attempts: 0 },
            activity: Activity::default(),
            session_id: None,
            persistent,
            done: Some(done),
            read_token: crate::agent::outside_reads::new_token(),
        }
    }

    /// True when the fork read outside text: it runs for a webhook, or one of our Google
    /// commands noted a read under its token (SPEC §20, the second hop).
    pub(super) fn read_outside_text(&self) -> bool {
        matches!(self.fired.job, Job::Webhook(_))
            || crate::agent::outside_reads::was_noted(&self.config.data_dir, &self.read_token)
    }

    /// Ends the run with `ending` (unless it has ended already: the first ending stays), tells
    /// the owner `notice`, shuts its CLI down and then stops the actor.
    fn finish(&mut self, ending: Ending, notice: Option<String>, ctx: &mut Context<Self>) {
        if self.state.has_ended() {
            return;
        }
        let driver = match std::mem::replace(&mut self.state, RunState::Ended(ending)) {
            RunState::Running { driver } => Some(driver),
            RunState::Starting { .. } | RunState::Ended(_) => None,
        };
        if let Some(text) = notice {
            self.peers.surface.do_send(SurfaceEvent::Notice(text));
        }
        ctx.spawn(
            async move {
                if let Some(d) = driver.and_then(|d| Arc::try_unwrap(d).ok()) {
                    let _ = d.shutdown().await;
                }
            }
            .into_actor(self)
            .map(|(), _act, ctx| ctx.stop()),
        );
    }
}

impl Actor for BackgroundFork {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        tracing::info!(actor = "background_fork", job = %self.fired.job.id(), isolated = self.isolated(), "background fork started");
        let timeout = self.config.timeout;
        ctx.run_later(timeout, move |act, ctx| {
            let name = human_name(&act.fired);
            tracing::warn!(job = %act.fired.job.id(), "background job timed out");
            let notice = format!("{name} timed out after {}.", spoken(timeout));
            act.finish(
                Ending::TimedOut {
                    notice: notice.clone(),
                },
                Some(notice),
                ctx,
            );
        });
        self.launch(ctx);
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        crate::agent::outside_reads::forget(&self.config.data_dir, &self.read_token);
        let mut end = self.state.end(&self.activity);
        end.session = self.session_id.clone();
        let outcome = end.outcome;
        tracing::info!(actor = "background_fork", job = %self.fired.job.id(), ?outcome, "background fork stopped");
        if let Some(done) = self.done.take() {
            // Whoever started the fork may have gone (a restart): nothing to tell then.
            let _ = done.send(end);
        }
        // Stopped after its process exited (see `finish`): what it wrote is all on disk.
        if let Some(session) = self.session_id.clone() {
            self.peers.surface.do_send(SurfaceEvent::BackgroundEnded {
                fork_session: session,
            });
        }
    }
}

/// The job's reporting mode.
pub(super) fn mode(fired: &BackgroundJob) -> UpdateMode {
    fired.job.settings().update_main_session
}
