//! The MainSession actor: the one persistent conversation (SPEC §5).
//!
//! It owns the main Claude session — the CLI process, the session id, the turns in flight — and
//! therefore the fact of being "busy". Surfaces send it [`Say`] (a user line) and
//! [`Command`] (slash commands); the scheduler sends foreground jobs as [`FireJob`] and asks
//! [`IsBusy`]. Everything the user should see goes out as [`SurfaceEvent`]s.
//!
//! Turns: each message gets the timestamp header in the configured zone's abbreviation, with
//! pending updates popped from [`PendingUpdates`] and prepended. A new message while an answer
//! streams interrupts it (not while compacting: then it waits). The session id is saved after
//! every turn; a restart resumes it (`--resume`) and says "hey, i'm back…". If the CLI exits or
//! stops answering mid-turn the user gets a short error and the next message starts a fresh
//! process on the saved session.

mod commands;
pub mod header;
pub mod host;
mod launch;
pub mod turn;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use chrono_tz::Tz;

pub use commands::Command;
use turn::{Outcome, Turn, TurnKind};

use crate::brain::{BrainEvent, Driver, Launcher, TurnResult, UserMessage};
use crate::clock::SharedClock;
use crate::data_dir::DataDir;
use crate::pending_updates::{PendingUpdates, Pop};
use crate::runtime_config::ConfigStore;
use crate::scheduler::{FireJob, IsBusy};
use crate::sessions::{EventKind, IdChange, MainSessionFile, SessionHistory};
use crate::surface::SurfaceEvent;

/// The greeting on the very first start.
pub const FIRST_GREETING: &str = "hi! i'm your assistant. tell me what's on your mind — tasks, \
reminders, plans — and i'll help you keep track. i can also check in on my own with routines \
and reminders.";
/// The line after a restart that resumed the conversation.
pub const RESUMED_GREETING: &str = "hey, i'm back. picking up where we left off.";
/// Shown while pending updates are delivered.
pub const CATCHING_UP: &str = "-# catching up on background activity...";

/// What the main session needs.
#[derive(Clone)]
pub struct MainSessionConfig {
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
    /// The runtime configuration (`state/config.json`): model, thinking and permission mode
    /// of the conversation; `/config` changes it.
    pub runtime: ConfigStore,
    /// A turn with no sign of life for this long is treated as a hung CLI.
    pub hang_timeout: Duration,
}

/// A line from the user.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct Say {
    /// What they wrote.
    pub text: String,
    /// Attached images.
    pub images: Vec<crate::brain::ImageBlock>,
}

/// An event of the process of generation `generation`.
#[derive(Debug, Message)]
#[rtype(result = "()")]
struct ProcessEvent {
    generation: u64,
    event: BrainEvent,
}

/// A line ready to send.
#[derive(Debug, Clone)]
struct Outgoing {
    text: String,
    images: Vec<crate::brain::ImageBlock>,
    kind: TurnKind,
    resent: bool,
}

struct Live {
    driver: Arc<Box<dyn Driver>>,
    generation: u64,
}

/// The actor.
pub struct MainSession {
    config: MainSessionConfig,
    surface: Recipient<SurfaceEvent>,
    pending: Addr<PendingUpdates>,
    live: Option<Live>,
    launching: bool,
    generation: u64,
    session_id: Option<String>,
    inflight: VecDeque<Turn>,
    waiting: VecDeque<Outgoing>,
    last_sign_of_life: Instant,
    last_result: Option<TurnResult>,
    turns_since_compact: u32,
    id_file: MainSessionFile,
    history: SessionHistory,
    /// The process runs a session created because the saved one could not be resumed.
    fresh_after_failed_resume: bool,
}

impl MainSession {
    /// A main session showing its conversation on `surface`.
    pub fn new(
        config: MainSessionConfig,
        surface: Recipient<SurfaceEvent>,
        pending: Addr<PendingUpdates>,
    ) -> Self {
        let id_file = MainSessionFile::in_data_dir(&config.data_dir);
        let history =
            SessionHistory::in_data_dir(&config.data_dir, config.clock.clone(), config.tz);
        let session_id = id_file.load().unwrap_or_else(|e| {
            tracing::error!(cause = %e, "could not read the saved session id; starting fresh");
            None
        });
        Self {
            config,
            surface,
            pending,
            live: None,
            launching: false,
            generation: 0,
            session_id,
            inflight: VecDeque::new(),
            waiting: VecDeque::new(),
            last_sign_of_life: Instant::now(),
            last_result: None,
            turns_since_compact: 0,
            id_file,
            history,
            fresh_after_failed_resume: false,
        }
    }

    fn show(&self, event: SurfaceEvent) {
        self.surface.do_send(event);
    }

    fn busy(&self) -> bool {
        !self.inflight.is_empty() || !self.waiting.is_empty()
    }

    /// Queues or sends `out`, interrupting an answer in progress.
    fn submit(&mut self, out: Outgoing, ctx: &mut Context<Self>) {
        if self.live.is_none() {
            self.waiting.push_back(out);
            self.ensure_launched(ctx);
            return;
        }
        if self.inflight.iter().any(|t| t.compacting) || !self.waiting.is_empty() {
            // An interrupt now would kill the post-compaction reply: wait for the result.
            self.waiting.push_back(out);
            return;
        }
        if !self.inflight.is_empty() {
            self.interrupt(ctx);
        }
        self.send(out, ctx);
    }

    fn interrupt(&mut self, ctx: &mut Context<Self>) {
        let Some(live) = &self.live else { return };
        for t in self.inflight.iter_mut() {
            t.interrupted = true;
        }
        let driver = Arc::clone(&live.driver);
        ctx.wait(
            async move { driver.interrupt().await }
                .into_actor(self)
                .map(|res, _act, _ctx| {
                    if let Err(e) = res {
                        tracing::warn!(cause = %e, "interrupt failed");
                    }
                }),
        );
    }

    fn send(&mut self, out: Outgoing, ctx: &mut Context<Self>) {
        let Some(live) = &self.live else {
            self.waiting.push_front(out);
            self.ensure_launched(ctx);
            return;
        };
        let driver = Arc::clone(&live.driver);
        let message = UserMessage {
            text: out.text.clone(),
            images: out.images.clone(),
        };
        self.last_sign_of_life = Instant::now();
        ctx.wait(
            async move { driver.send_user(message).await }
                .into_actor(self)
                .map(move |res, act, ctx| match res {
                    Ok(uuid) => {
                        let mut turn = Turn::new(uuid, out.text, out.kind);
                        turn.resent = out.resent;
                        if out.kind == TurnKind::Message {
                            act.turns_since_compact += 1;
                        }
                        act.inflight.push_back(turn);
                    }
                    Err(e) => {
                        tracing::error!(cause = %e, "sending to the cli failed");
                        act.show(SurfaceEvent::Error(
                            "-# couldn't reach the assistant — try again.".into(),
                        ));
                        if e.is_process_gone() {
                            act.live = None;
                        }
                        act.flush(ctx);
                    }
                }),
        );
    }

    /// Sends the next waiting line when nothing is in flight.
    fn flush(&mut self, ctx: &mut Context<Self>) {
        if !self.inflight.is_empty() {
            return;
        }
        if let Some(next) = self.waiting.pop_front() {
            if self.live.is_some() {
                self.send(next, ctx);
            } else {
                self.waiting.push_front(next);
                self.ensure_launched(ctx);
            }
        }
    }

    fn ensure_launched(&mut self, ctx: &mut Context<Self>) {
        if self.launching || self.live.is_some() {
            return;
        }
        self.launching = true;
        let fut = launch::start(
            self.config.clone(),
            *self.config.runtime.values(),
            self.session_id.clone(),
        );
        ctx.wait(fut.into_actor(self).map(|res, act, ctx| {
            act.launching = false;
            match res {
                Ok(started) => {
                    if started.fresh_session {
                        act.fresh_after_failed_resume = act.session_id.is_some();
                        act.session_id = Some(started.session_id.clone());
                    }
                    if let Some(note) = started.note {
                        act.show(SurfaceEvent::Notice(note));
                    }
                    act.generation += 1;
                    let generation = act.generation;
                    let me = ctx.address();
                    let mut events = started.launched.events;
                    tokio::spawn(async move {
                        while let Some(event) = events.recv().await {
                            me.do_send(ProcessEvent { generation, event });
                        }
                    });
                    act.live = Some(Live {
                        driver: Arc::new(started.launched.driver),
                        generation,
                    });
                    act.flush(ctx);
                }
                Err(e) => {
                    tracing::error!(cause = %e, "could not start the claude cli");
                    act.show(SurfaceEvent::Error(format!(
                        "-# couldn't start the assistant: {e}"
                    )));
                    act.waiting.clear();
                }
            }
        }));
    }

    fn on_result(&mut self, result: TurnResult, ctx: &mut Context<Self>) {
        let idx = self
            .inflight
            .iter()
            .position(|t| result.user_message_uuids.contains(&t.uuid))
            .unwrap_or(0);
        let Some(turn) = self.inflight.remove(idx) else {
            tracing::debug!("result with no turn in flight");
            return;
        };
        if !result.session_id.is_empty() && self.session_id.as_deref() != Some(&result.session_id) {
            tracing::info!(session_id = %result.session_id, "main session id changed");
            self.session_id = Some(result.session_id.clone());
        }
        self.persist_session_id(turn.kind);
        match turn.outcome(&result) {
            Outcome::Reply(text) => self.show(SurfaceEvent::Reply(text)),
            Outcome::Resend(text) => {
                tracing::info!("compaction swallowed the message; sending it again");
                self.waiting.push_front(Outgoing {
                    text,
                    images: Vec::new(),
                    kind: TurnKind::Message,
                    resent: true,
                });
            }
            Outcome::Interrupted => {}
            Outcome::Failed(why) => {
                tracing::warn!(reason = %why, "turn failed");
                self.show(SurfaceEvent::Error(
                    "-# something went wrong answering that — try again.".into(),
                ));
            }
            Outcome::CommandDone => self.command_done(&turn, &result),
        }
        self.last_result = Some(result);
        self.flush(ctx);
    }

    /// Saves the session id after a turn and records what the change means in the history.
    fn persist_session_id(&mut self, kind: TurnKind) {
        let Some(id) = self.session_id.clone() else {
            return;
        };
        let change = match self.id_file.save(&id) {
            Ok(change) => change,
            Err(e) => {
                tracing::error!(cause = %e, "could not save the main session id");
                return;
            }
        };
        let logged = match (&change, kind) {
            (IdChange::Replaced { previous }, TurnKind::Clear) => self
                .history
                .append(EventKind::Cleared, &id, Some(previous))
                .map(drop),
            (IdChange::Replaced { .. }, _) if self.fresh_after_failed_resume => {
                self.fresh_after_failed_resume = false;
                self.history.append(EventKind::Created, &id, None).map(drop)
            }
            _ => self.history.note_saved(&id, &change),
        };
        if let Err(e) = logged {
            tracing::warn!(cause = %e, "could not write the session history");
        }
    }

    fn on_event(&mut self, event: BrainEvent, ctx: &mut Context<Self>) {
        self.last_sign_of_life = Instant::now();
        match event {
            BrainEvent::TextDelta(t) => {
                if let Some(turn) = self.inflight.front_mut() {
                    turn.text.push_str(&t);
                    if turn.kind == TurnKind::Message && !turn.interrupted {
                        self.show(SurfaceEvent::TextDelta(t));
                    }
                }
            }
            BrainEvent::ThinkingStarted => self.show(SurfaceEvent::Status("Thinking...".into())),
            BrainEvent::ToolUse { name, input, .. } => {
                self.show(SurfaceEvent::Status(header::tool_label(&name, &input)));
            }
            BrainEvent::Compacting => {
                if let Some(turn) = self.inflight.front_mut() {
                    turn.compacting = true;
                }
                self.show(SurfaceEvent::Status("Auto-compacting...".into()));
            }
            BrainEvent::CompactBoundary(b) => {
                self.show(SurfaceEvent::Status(format!(
                    "Auto-compacting {} tokens",
                    b.pre_tokens
                        .map(turn::thousands)
                        .unwrap_or_else(|| "?".into())
                )));
                self.show(SurfaceEvent::Notice(format!(
                    "-# {}",
                    turn::compacted_notice(&b)
                )));
                if let Some(turn) = self.inflight.front_mut() {
                    turn.on_boundary(b);
                }
            }
            BrainEvent::CompactFinished { .. } => {
                if let Some(turn) = self.inflight.front_mut() {
                    turn.compacting = false;
                }
            }
            BrainEvent::AssistantMessage { text, .. } => {
                if let Some(turn) = self.inflight.front_mut() {
                    turn.on_assistant(&text);
                }
            }
            BrainEvent::Result(result) => self.on_result(result, ctx),
            BrainEvent::Exited(info) => {
                tracing::warn!(code = ?info.code, signal = ?info.signal, stderr = ?info.stderr_tail, "claude cli exited");
                self.live = None;
                if !self.inflight.is_empty() {
                    self.inflight.clear();
                    self.show(SurfaceEvent::Error(
                        "-# the assistant stopped unexpectedly — send that again.".into(),
                    ));
                }
                self.flush(ctx);
            }
            _ => {}
        }
    }

    fn check_hung(&mut self, ctx: &mut Context<Self>) {
        if self.inflight.is_empty() || self.live.is_none() {
            return;
        }
        if self.last_sign_of_life.elapsed() < self.config.hang_timeout {
            return;
        }
        tracing::error!(
            timeout_s = self.config.hang_timeout.as_secs(),
            "claude cli stopped responding mid-turn; killing it"
        );
        // Dropping the last handle kills the process; its late events carry an old generation.
        self.live = None;
        self.inflight.clear();
        self.show(SurfaceEvent::Error(
            "-# the assistant stopped responding — send that again.".into(),
        ));
        self.flush(ctx);
    }
}

impl Actor for MainSession {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        tracing::info!(
            actor = "main_session",
            resumed = self.session_id.is_some(),
            "main session started"
        );
        let greeting = if self.session_id.is_some() {
            RESUMED_GREETING
        } else {
            FIRST_GREETING
        };
        self.show(SurfaceEvent::Notice(greeting.to_owned()));
        ctx.run_interval(Duration::from_millis(500), |act, ctx| act.check_hung(ctx));
        self.ensure_launched(ctx);
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        // A process still here was not closed with [`Close`]: dropping it kills it.
        self.live = None;
        tracing::info!(actor = "main_session", "main session stopped");
    }
}

impl Supervised for MainSession {
    fn restarting(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "main_session", "actor restarting");
        self.live = None;
        self.inflight.clear();
    }
}

impl Handler<Say> for MainSession {
    type Result = ();
    fn handle(&mut self, msg: Say, ctx: &mut Self::Context) {
        let pending = self.pending.clone();
        let now = self.config.clock.now();
        let tz = self.config.tz;
        ctx.wait(
            async move { pending.send(Pop).await.unwrap_or_default() }
                .into_actor(self)
                .map(move |updates, act, ctx| {
                    if !updates.is_empty() {
                        act.show(SurfaceEvent::Notice(CATCHING_UP.into()));
                    }
                    let text = header::compose(now, tz, &updates, &msg.text);
                    act.submit(
                        Outgoing {
                            text,
                            images: msg.images,
                            kind: TurnKind::Message,
                            resent: false,
                        },
                        ctx,
                    );
                }),
        );
    }
}

impl Handler<FireJob> for MainSession {
    type Result = ();
    fn handle(&mut self, msg: FireJob, ctx: &mut Self::Context) {
        if msg.job.settings().background {
            tracing::warn!(job = %msg.job.id(), "background job fired but background forks are not available yet");
            self.show(SurfaceEvent::Notice(format!(
                "-# background job {} fired; background forks are not available in this build",
                msg.job.id()
            )));
            return;
        }
        self.handle(
            Say {
                text: msg.prompt,
                images: Vec::new(),
            },
            ctx,
        );
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
        let live = self.live.take();
        self.inflight.clear();
        self.waiting.clear();
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
        self.busy()
    }
}

impl Handler<ProcessEvent> for MainSession {
    type Result = ();
    fn handle(&mut self, msg: ProcessEvent, ctx: &mut Self::Context) {
        if self.live.as_ref().map(|l| l.generation) != Some(msg.generation) {
            return;
        }
        self.on_event(msg.event, ctx);
    }
}
