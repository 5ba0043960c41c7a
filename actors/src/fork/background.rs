//! The BackgroundFork actor: runs one background job to completion (SPEC §6, §7, §9).
//!
//! It owns a CLI process forked from the main session (`--resume <main> --fork-session`) or,
//! for `isolated` jobs and before any conversation exists, a fresh session; the job's model and
//! thinking overrides; its tool restrictions (the minimal background set merged with the job's
//! and its skills' tools, minus what `allow-ping: false` and `blocked` take away); its own ping
//! count and reported/pinged flags; and its deadline. Plain text output is discarded: the job
//! talks to the user only through `ping_user` / `discord_embed` and back to the main session
//! through `report_updates`. A Stop hook keeps the agent going until it has reported when its
//! reporting mode demands it (a few continuations at most). The user hears about a timeout or a
//! failure in one short line. The actor stops when the job ends.
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

use super::background_host::ForkHost;
use super::background_tools::ForkTools;
use crate::brain::{BrainEvent, Driver, Handlers, Launcher, SessionStart, SpawnOptions, Thinking};
use crate::clock::SharedClock;
use crate::data_dir::DataDir;
use crate::jobs::{Job, UpdateMode};
use crate::main_session::{IsBusy, QuietHoursNow};
use crate::pending_updates::PendingUpdates;
use crate::permissions::file_hooks::{hooks as file_hooks, FileHooks};
use crate::ping_budget::PingBudget;
use crate::sessions::records::RecordSession;
use crate::sessions::{EventKind, SessionRecords};
use crate::surface::SurfaceEvent;

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
}

/// How a background fork ended, told to whoever started it when the actor stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForkOutcome {
    /// The job ran to its end.
    Completed,
    /// It could not start, its CLI failed or exited mid-job, or the actor stopped otherwise.
    Failed,
    /// It passed `bg_fork_timeout`.
    TimedOut,
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
    parent_session: Option<String>,
    pub(super) pings_sent: u32,
    /// Tool calls refused (quiet hours, busy, budget, repeats, …), for the run's log line.
    pub(super) refusals: u32,
    pub(super) reported: bool,
    pub(super) output_sent: bool,
    pub(super) stop_blocks: u32,
    driver: Option<Arc<Box<dyn Driver>>>,
    pub(super) session_id: Option<String>,
    /// How it ended, once it has; told through `done` when the actor stops.
    outcome: Option<ForkOutcome>,
    done: Option<tokio::sync::oneshot::Sender<ForkOutcome>>,
}

/// `30 minutes`, `1 minute`, or `45 seconds` for limits under a minute.
pub fn spoken(d: Duration) -> String {
    let secs = d.as_secs();
    let (n, unit) = if secs >= 60 {
        (secs / 60, "minute")
    } else {
        (secs, "second")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// The job's name for the user: its description, else its file name in words.
pub fn human_name(fired: &BackgroundJob) -> String {
    let description = &fired.job.settings().description;
    if !description.trim().is_empty() {
        return description.trim().to_owned();
    }
    std::path::Path::new(&fired.rel_path)
        .file_stem()
        .map(|s| s.to_string_lossy().replace('-', " "))
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "background task".to_owned())
}

impl BackgroundFork {
    /// A fork for `fired`, branching from `parent_session` (the main session's id) unless the
    /// job is isolated. `done` hears how it ended when the actor stops.
    pub fn new(
        config: BackgroundConfig,
        peers: BackgroundPeers,
        fired: BackgroundJob,
        parent_session: Option<String>,
        done: tokio::sync::oneshot::Sender<ForkOutcome>,
    ) -> Self {
        Self {
            config,
            peers,
            fired,
            parent_session,
            pings_sent: 0,
            refusals: 0,
            reported: false,
            output_sent: false,
            stop_blocks: 0,
            driver: None,
            session_id: None,
            outcome: None,
            done: Some(done),
        }
    }

    fn isolated(&self) -> bool {
        self.fired.job.settings().isolated || self.parent_session.is_none()
    }

    fn options(&self) -> SpawnOptions {
        let settings = self.fired.job.settings();
        let mut o = SpawnOptions::new(
            self.config.binary.clone(),
            self.config.data_dir.root().to_path_buf(),
        );
        o.append_system_prompt = Some(self.config.system_prompt.clone());
        o.model = settings.model.map(|m| m.as_str().to_owned());
        o.thinking = Some(if settings.thinking {
            Thinking::Adaptive
        } else {
            Thinking::Disabled
        });
        o.permission_mode = Some(crate::brain::PermissionMode::DontAsk);
        o.allowed_tools =
            super::background_tools::allowed_tools(&self.fired, &self.config.data_dir);
        o.disallowed_tools = super::background_tools::disallowed_tools(settings);
        o.session = match (&self.parent_session, self.isolated()) {
            (Some(main), false) => SessionStart::Fork(main.clone()),
            _ => SessionStart::NewWithId(uuid::Uuid::new_v4().to_string()),
        };
        o.setting_sources = Some(vec!["project".to_owned()]);
        let mut hooks = file_hooks();
        hooks.push(crate::brain::HookRegistration::on(
            crate::brain::HookEvent::Stop,
        ));
        o.hooks = hooks;
        o.label = format!("bg:{}", self.fired.job.id());
        o.env = self.config.cli_env.clone();
        o
    }

    fn finish(&mut self, outcome: ForkOutcome, notice: Option<String>, ctx: &mut Context<Self>) {
        if self.outcome.is_some() {
            return;
        }
        self.outcome = Some(outcome);
        if let Some(text) = notice {
            self.peers.surface.do_send(SurfaceEvent::Notice(text));
        }
        let driver = self.driver.take();
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

    /// Starts the process and sends the job's prompt. A fork of the main session that cannot
    /// start (its transcript is gone) is retried once as an isolated run.
    fn launch(&mut self, ctx: &mut Context<Self>) {
        let handlers = Handlers {
            host: Arc::new(ForkHost::new(
                FileHooks::new(self.config.data_dir.clone()),
                ctx.address(),
            )),
            tools: Arc::new(ForkTools::for_fork(&self.fired, ctx.address())),
        };
        let launcher = Arc::clone(&self.config.launcher);
        let options = self.options();
        ctx.wait(
            async move { launcher.launch(options, handlers).await }
                .into_actor(self)
                .map(|res, act, ctx| match res {
                    Ok(launched) => act.run(launched, ctx),
                    Err(e @ crate::brain::Error::StartFailed { .. }) if !act.isolated() => {
                        tracing::warn!(job = %act.fired.job.id(), cause = %e, "could not fork the main session; running isolated");
                        act.parent_session = None;
                        act.launch(ctx);
                    }
                    Err(e) => {
                        tracing::error!(job = %act.fired.job.id(), cause = %e, "could not start the background fork");
                        let name = human_name(&act.fired);
                        act.finish(
                            ForkOutcome::Failed,
                            Some(format!("{name} couldn't complete.")),
                            ctx,
                        );
                    }
                }),
        );
    }

    fn run(&mut self, launched: crate::brain::Launched, ctx: &mut Context<Self>) {
        let me = ctx.address();
        let mut events = launched.events;
        tokio::spawn(async move {
            while let Some(ev) = events.recv().await {
                me.do_send(Event(ev));
            }
        });
        let driver = Arc::new(launched.driver);
        self.driver = Some(Arc::clone(&driver));
        let msg = crate::brain::UserMessage::text(self.fired.prompt.clone());
        ctx.wait(
            async move { driver.send_user(msg).await }
                .into_actor(self)
                .map(|res, act, ctx| {
                    if let Err(e) = res {
                        tracing::error!(cause = %e, "could not send the job's prompt");
                        let name = human_name(&act.fired);
                        act.finish(
                            ForkOutcome::Failed,
                            Some(format!("{name} couldn't complete.")),
                            ctx,
                        );
                    }
                }),
        );
    }

    fn record_history(&self, session_id: &str) {
        let (kind, parent) = if self.isolated() {
            (EventKind::IsolatedBg, None)
        } else {
            (EventKind::BgFork, self.parent_session.clone())
        };
        self.peers.records.do_send(RecordSession {
            kind,
            session_id: session_id.to_owned(),
            parent,
        });
    }

    fn on_event(&mut self, event: BrainEvent, ctx: &mut Context<Self>) {
        match event {
            BrainEvent::Init { session_id, .. } if self.session_id.is_none() => {
                self.record_history(&session_id);
                self.session_id = Some(session_id);
            }
            BrainEvent::Result(r) => {
                let name = human_name(&self.fired);
                let notice = r.is_error.then(|| {
                    tracing::warn!(job = %self.fired.job.id(), errors = ?r.errors, "background job failed");
                    format!("{name} couldn't complete.")
                });
                tracing::info!(job = %self.fired.job.id(), pinged = self.pings_sent, refused = self.refusals, reported = self.reported, "background job finished");
                let outcome = if r.is_error {
                    ForkOutcome::Failed
                } else {
                    ForkOutcome::Completed
                };
                self.finish(outcome, notice, ctx);
            }
            BrainEvent::Exited(info) => {
                tracing::warn!(job = %self.fired.job.id(), code = ?info.code, stderr = ?info.stderr_tail, "background fork's cli exited mid-job");
                let name = human_name(&self.fired);
                self.finish(
                    ForkOutcome::Failed,
                    Some(format!("{name} couldn't complete.")),
                    ctx,
                );
            }
            _ => {}
        }
    }
}

/// An event of this fork's process.
#[derive(Debug, Message)]
#[rtype(result = "()")]
struct Event(BrainEvent);

impl Actor for BackgroundFork {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        tracing::info!(actor = "background_fork", job = %self.fired.job.id(), isolated = self.isolated(), "background fork started");
        let timeout = self.config.timeout;
        ctx.run_later(timeout, move |act, ctx| {
            let name = human_name(&act.fired);
            tracing::warn!(job = %act.fired.job.id(), "background job timed out");
            act.finish(
                ForkOutcome::TimedOut,
                Some(format!("{name} timed out after {}.", spoken(timeout))),
                ctx,
            );
        });
        self.launch(ctx);
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        let outcome = self.outcome.unwrap_or(ForkOutcome::Failed);
        tracing::info!(actor = "background_fork", job = %self.fired.job.id(), ?outcome, "background fork stopped");
        if let Some(done) = self.done.take() {
            // Whoever started the fork may have gone (a restart): nothing to tell then.
            let _ = done.send(outcome);
        }
    }
}

impl Handler<Event> for BackgroundFork {
    type Result = ();
    fn handle(&mut self, Event(ev): Event, ctx: &mut Self::Context) {
        if self.outcome.is_none() {
            self.on_event(ev, ctx);
        }
    }
}

/// The job's reporting mode.
pub(super) fn mode(fired: &BackgroundJob) -> UpdateMode {
    fired.job.settings().update_main_session
}

/// The chain position of a reminder job, if it is one link of a chain.
pub(super) fn chain(fired: &BackgroundJob) -> Option<(u32, u32)> {
    match &fired.job {
        Job::Reminder(r) if r.max_chain > 0 => Some((r.chain_depth, r.max_chain)),
        _ => None,
    }
}
