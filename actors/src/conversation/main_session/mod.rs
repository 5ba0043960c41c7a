//! The MainSession actor: the one persistent conversation (SPEC §5).
//!
//! It owns the main Claude session — the CLI process, the session id, the turns in flight — and
//! therefore the fact of being "busy". Surfaces send it [`Say`] (a user line) and
//! [`Command`] (slash commands); the job runner sends foreground jobs as [`FireJob`] and asks
//! [`IsBusy`] and [`ForkTimeout`]; background forks ask [`IsBusy`] before a ping. Everything the
//! user should see goes out as [`SurfaceEvent`]s.
//!
//! Turns: each message gets the timestamp header in the configured zone's abbreviation, with
//! pending updates popped from [`PendingUpdates`] and prepended. A new message while an answer
//! streams interrupts it (not while compacting: then it waits). The session id is saved after
//! every turn; a restart resumes it (`--resume`) and says "hey, i'm back…". If the CLI exits or
//! stops answering mid-turn the user gets a short error and the next message starts a fresh
//! process on the saved session.

mod brain_events;
mod clicks;
mod commands;
mod context_warning;
mod conversation;
pub mod failure;
pub mod fork_idle;
pub mod fork_role;
pub mod header;
pub mod host;
pub mod idle_release;
mod incoming;
mod job_turns;
mod launch;
mod lost_lines;
mod memory_flush;
mod memory_reload;
pub mod quiet;
pub mod quiet_hours;
mod save_guard;
mod saved_session;
mod session_config;
mod setting_commands;
mod tools_backend;
pub mod turn;
mod turn_end;
mod turn_usage;

use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use chrono::{DateTime, Utc};

pub use crate::conversation::surface::ExitAction;
pub use clicks::PressButton;
pub use commands::{Command, ForkButton, EXIT_FORK_FIRST};
pub use context_warning::window_of;
use conversation::Outgoing;
pub use fork_role::{EnterFork, ForkEnded, MarkExit, ResumeFromReply};
use fork_role::{ForkState, Role};
pub use idle_release::ProcessRunning;
pub use job_turns::{JobTurnEnd, JobTurnOutcome};
pub use quiet_hours::QuietHoursNow;
pub use session_config::MainSessionConfig;
use turn::TurnKind;

use crate::claude::brain::BrainEvent;
use crate::conversation::surface::SurfaceEvent;
use crate::jobs::Job;
use crate::records::pending_updates::PendingUpdates;
use crate::records::sessions::SessionRecords;

/// The greeting on the very first start.
pub const FIRST_GREETING: &str = "hi! i'm your assistant. tell me what's on your mind — tasks, \
reminders, plans — and i'll help you keep track. i can also check in on my own with routines \
and reminders.";
/// The line after a restart that resumed the conversation, naming the release that runs
/// (`hey, i'm back (ollim-bot v0.2.0). picking up where we left off.`).
pub fn resumed_greeting(release: &str) -> String {
    format!("hey, i'm back ({release}). picking up where we left off.")
}
/// Shown while pending updates are delivered.
pub const CATCHING_UP: &str = "-# catching up on background activity...";

/// A foreground job whose time has come, with its prompt built: the main session runs it as a
/// turn, like a line from the user, and answers when that turn has ended. Sent by the job
/// runner.
#[derive(Debug, Clone, Message)]
#[rtype(result = "JobTurnEnd")]
pub struct FireJob {
    /// The job as read from disk.
    pub job: Job,
    /// The complete prompt (tag, preamble for background jobs, skills, body).
    pub prompt: String,
    /// When it was due.
    pub due_at: DateTime<Utc>,
    /// When it fired.
    pub fired_at: DateTime<Utc>,
    /// Whether it carries the `[late: …]` marker.
    pub late: bool,
    /// The job file's path relative to the data directory.
    pub rel_path: String,
}

/// Asks whether the user is mid-turn (a turn in flight or waiting): background forks ask before
/// a non-critical ping, the job runner for the background preamble.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "bool")]
pub struct IsBusy;

/// Asks for the background forks' time limit as configured now (`bg_fork_timeout`, which
/// `/config` changes): the job runner asks when it starts one.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Duration")]
pub struct ForkTimeout;

/// A line from the user.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct Say {
    /// What they wrote.
    pub text: String,
    /// Attached images.
    pub images: Vec<crate::claude::brain::ImageBlock>,
}

/// An event of the process of generation `generation`.
#[derive(Debug, Message)]
#[rtype(result = "()")]
struct ProcessEvent {
    generation: u64,
    event: BrainEvent,
}

/// The actor.
pub struct MainSession {
    /// What it was started with.
    config: MainSessionConfig,
    /// Where everything the user should see goes.
    surface: Recipient<SurfaceEvent>,
    /// The background updates the next message carries.
    pending: Addr<PendingUpdates>,
    /// The session history and button prompts have their own owner; this session sends to it.
    records: Addr<SessionRecords>,
    /// The CLI process.
    process: launch::Process,
    /// The turns in flight, the lines waiting and what the turns so far left behind.
    turns: conversation::TurnLine,
    /// The session it works in, saved after every turn.
    saved: saved_session::SavedSession,
    /// Main conversation or interactive fork, and the fork it has open.
    forks: fork_role::Forks,
    /// This session's permission policy (a fork has its own) and `tool-policy.yaml`.
    permissions: host::Permissions,
    /// The flush before forgetting: whether the threshold flush is still due, when this
    /// session's messages were, the flush in flight.
    memory: memory_flush::FlushState,
}

impl MainSession {
    /// A main session showing its conversation on `surface`.
    pub fn new(
        config: MainSessionConfig,
        surface: Recipient<SurfaceEvent>,
        pending: Addr<PendingUpdates>,
        records: Addr<SessionRecords>,
    ) -> Self {
        let data_dir = config.data_dir.clone();
        let policy_mode = config.runtime.values().permission_mode;
        let saved = saved_session::SavedSession::load(&config.data_dir);
        let resumed = saved.id.is_some();
        Self {
            config,
            surface,
            pending,
            process: launch::Process::new(),
            saved,
            turns: conversation::TurnLine::default(),
            records,
            forks: fork_role::Forks::new(Role::Main),
            permissions: host::Permissions::new(policy_mode, &data_dir),
            memory: memory_flush::FlushState::new(resumed),
        }
    }
}

impl MainSession {
    /// An interactive fork of `main`, talking on the same surface.
    fn new_fork(main: &MainSession, state: ForkState) -> Self {
        let mut fork = MainSession::new(
            main.config.clone(),
            main.surface.clone(),
            main.pending.clone(),
            main.records.clone(),
        );
        fork.saved.id = None;
        fork.forks.role = Role::Fork(state);
        fork
    }
}

impl Actor for MainSession {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.run_interval(Duration::from_millis(500), |act, ctx| act.check_hung(ctx));
        if let Role::Fork(state) = &self.forks.role {
            tracing::info!(actor = "interactive_fork", "interactive fork started");
            let intro = state.intro.clone();
            ctx.run_interval(fork_idle::IDLE_CHECK, |act, ctx| act.idle_check(ctx));
            self.submit(Outgoing::own(intro, TurnKind::Message), ctx);
            return;
        }
        tracing::info!(
            actor = "main_session",
            resumed = self.saved.id.is_some(),
            "main session started"
        );
        let greeting = if self.saved.id.is_some() {
            resumed_greeting(&self.config.release)
        } else {
            FIRST_GREETING.to_owned()
        };
        self.show(SurfaceEvent::Notice(greeting));
        self.ensure_launched(ctx);
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        // A process still here was not closed with [`Close`]: dropping it kills it.
        self.process.live = None;
        tracing::info!(actor = "main_session", "main session stopped");
    }
}

impl Supervised for MainSession {
    fn restarting(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "main_session", "actor restarting");
        self.process.live = None;
        self.turns.inflight.clear();
        self.turns.jobs.drop_all();
    }
}

/// Ends the CLI process cleanly (stdin closed, a running turn finishes, then it exits; killed
/// after the grace period). Sent by the supervisor before the system stops.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct Close;

impl Handler<Close> for MainSession {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, _msg: Close, _ctx: &mut Self::Context) -> Self::Result {
        let live = self.process.live.take();
        self.turns.inflight.clear();
        self.turns.waiting.clear();
        self.turns.jobs.drop_all();
        Box::pin(async move {
            let Some(live) = live else { return };
            match Arc::try_unwrap(live.driver) {
                Ok(driver) => {
                    let exit = driver.shutdown().await;
                    tracing::info!(code = ?exit.code, "claude cli closed");
                }
                Err(_) => tracing::debug!("driver still in use; dropping it kills the process"),
            }
        })
    }
}

impl Handler<IsBusy> for MainSession {
    type Result = bool;
    fn handle(&mut self, _msg: IsBusy, _ctx: &mut Self::Context) -> bool {
        self.turns.busy()
    }
}

impl Handler<ForkTimeout> for MainSession {
    type Result = MessageResult<ForkTimeout>;
    fn handle(&mut self, _msg: ForkTimeout, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.config.runtime.values().bg_fork_timeout())
    }
}

impl Handler<ProcessEvent> for MainSession {
    type Result = ();
    fn handle(&mut self, msg: ProcessEvent, ctx: &mut Self::Context) {
        if !self.process.is_current(msg.generation) {
            return;
        }
        self.on_event(msg.event, ctx);
    }
}
