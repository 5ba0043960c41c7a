//! Interactive forks (SPEC §6): the same conversation machinery as the main session, on a
//! branch of it. A fork is a [`MainSession`] actor started with [`Role::Fork`]; the main session
//! routes the user's lines to it while it lives.
//!
//! Entry: `/fork [topic]`, the `enter_fork` tool (which interrupts the current turn), or a
//! reply to a background fork's message (resuming that fork's session). The fork opens with a
//! `[fork-started]` prompt, reads pending updates without consuming them (each once: a later
//! exchange carries only those new since the one before), and ends one of three
//! ways once the agent has finished responding: report (summary queued for the main session),
//! exit (discarded), save (its session becomes the main session; pending updates cleared). The
//! agent's save only asks the user, and only when it would lose nothing (`save_guard`).
//! Idle for `fork_idle_timeout` ([`super::fork_idle`]): a visible "fork idle for 10 minutes — checking in..." note and
//! a `[fork-timeout]` prompt; idle again: a stronger prompt to exit. The agent always decides; a
//! fork is never ended for idleness by the bot — but when the agent ends one that sat idle
//! through a nudge, the DM says so *(ours)*: "fork closed after 20 minutes idle.".

use std::time::{Duration, Instant};

use actix::prelude::*;

use super::save_guard::ForkBase;
use super::{ForkButton, MainSession};
use crate::agent::prompts::fork as fork_prompt;
use crate::agent::tools::Refusal;
use crate::base::state_file::NotSaved;
use crate::claude::brain::SessionStart;
use crate::conversation::surface::{ExitAction, SurfaceEvent};
use crate::records::pending_updates::{Clear, PendingUpdate};
use crate::records::sessions::records::RecordSession;
use crate::records::sessions::EventKind;

/// Which conversation an actor runs.
pub enum Role {
    /// The persistent conversation.
    Main,
    /// An interactive fork of it.
    Fork(ForkState),
}

/// Where this session stands among forks: whether it is the main conversation or a fork of it,
/// and, for the main one, the interactive fork it has open and what it looked like when that
/// fork started.
pub(super) struct Forks {
    /// Main conversation or interactive fork.
    pub(super) role: Role,
    /// The interactive fork the user is talking to (main session only).
    pub(super) open: Option<Addr<MainSession>>,
    /// What this (main) session looked like when that fork started: a save must find it so.
    pub(super) base: Option<ForkBase>,
    /// Lines this session has sent to its process (a fork's save checks that the main
    /// session received none since the fork started).
    pub(super) turns_sent: u64,
}

impl Forks {
    /// A session in `role`, with no fork open.
    pub(super) fn new(role: Role) -> Self {
        Self {
            role,
            open: None,
            base: None,
            turns_sent: 0,
        }
    }

    /// This is the main conversation.
    pub(super) fn is_main(&self) -> bool {
        matches!(self.role, Role::Main)
    }

    /// This is an interactive fork.
    pub(super) fn is_fork(&self) -> bool {
        matches!(self.role, Role::Fork(_))
    }

    /// The fork the user is talking to, while it lives (main session only).
    pub(super) fn open_fork(&self) -> Option<Addr<MainSession>> {
        self.open.clone().filter(|f| f.connected())
    }

    /// True while this (main) session has a fork the user is talking to.
    pub(super) fn in_fork(&self) -> bool {
        self.open.as_ref().is_some_and(|f| f.connected())
    }

    /// The open fork is gone: no fork, no base to save against.
    pub(super) fn closed(&mut self) {
        self.open = None;
        self.base = None;
    }
}

/// A fork's own state.
pub struct ForkState {
    /// The main session that started it.
    pub parent: Addr<MainSession>,
    /// How its process starts (a fork of the main session, or a resumed background fork).
    pub start: SessionStart,
    /// The `[fork-started]` prompt it opens with.
    pub intro: String,
    /// `fork_idle_timeout`.
    pub idle: Duration,
    /// How it will end, once the agent has finished responding.
    pub exit: Option<ExitAction>,
    /// When the user or the agent last did something.
    pub last_activity: Instant,
    /// Idle prompts sent so far (0, 1 = `[fork-timeout]`, 2 = the stronger one).
    pub nudges: u32,
    /// Resumed from a background fork's session: the main session has moved on, no save.
    pub resumed: bool,
    /// Lines the user has sent into the fork (exit tools wait for the first).
    pub user_turns: u32,
    /// The tokens of the conversation's last model call when the fork began (its model may
    /// have to change: a haiku fork of a larger context runs on sonnet).
    pub parent_context: Option<u64>,
    /// The pending updates its previous exchange carried: each is shown once (SPEC §18).
    pub shown_updates: Vec<PendingUpdate>,
}

impl ForkState {
    /// Of the updates queued now, those its earlier exchanges have not carried; remembers
    /// them all as shown.
    pub fn unseen_updates(&mut self, queued: Vec<PendingUpdate>) -> Vec<PendingUpdate> {
        let fresh = queued
            .iter()
            .filter(|u| !self.shown_updates.contains(u))
            .cloned()
            .collect();
        self.shown_updates = queued;
        fresh
    }
}

/// Start an interactive fork (from `/fork`, the `enter_fork` tool, or a reply to a background
/// message). Refused inside a fork ([`Refusal::AlreadyInFork`]) and while one is open
/// ([`Refusal::ForkAlreadyOpen`]).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), Refusal>")]
pub struct EnterFork {
    /// What it is about.
    pub topic: Option<String>,
    /// Minutes of idleness before the first nudge.
    pub idle_minutes: u32,
    /// Interrupt the current turn first (the tool does; `/fork` has no turn running).
    pub interrupt: bool,
    /// Resume this background session instead of branching from the main one, opening with
    /// this prompt (a button click or a reply on a background message).
    pub resume: Option<(String, String)>,
}

/// The user replied to a background fork's message: resume that session as an interactive fork
/// opening with the reply. Answers `false` (nothing started) when a fork is already running, so
/// the surface can add the reply as quoted context instead.
#[derive(Debug, Clone, Message)]
#[rtype(result = "bool")]
pub struct ResumeFromReply {
    /// The background fork's session.
    pub session: String,
    /// The user's reply, as the conversation would have received it.
    pub text: String,
    /// How long ago the replied-to message went out, in seconds, when known: the resumed
    /// fork is told how old it is.
    pub age_secs: Option<u64>,
}

impl Handler<ResumeFromReply> for MainSession {
    type Result = bool;
    fn handle(&mut self, msg: ResumeFromReply, ctx: &mut Self::Context) -> bool {
        if !self.forks.is_main() || self.forks.in_fork() {
            return false;
        }
        let idle_minutes = self.idle_minutes();
        self.start_fork(
            EnterFork {
                topic: None,
                idle_minutes,
                interrupt: true,
                resume: Some((
                    msg.session,
                    fork_prompt::fork_resumed_from_reply(&msg.text, msg.age_secs),
                )),
            },
            ctx,
        )
        .is_ok()
    }
}

/// Marks how the fork ends (sent by its tools or by the user's exit buttons).
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct MarkExit(pub ExitAction);

/// Drops a fork at once, without its exit (`/clear` inside it): its turn is interrupted, its
/// process closed, and nothing is sent back to the main session, which has already let go.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct Abandon;

/// A fork ended; sent to the main session.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct ForkEnded {
    /// How.
    pub action: ExitAction,
    /// The fork's session id, when known.
    pub session_id: Option<String>,
}

impl MainSession {
    /// Main session: one of the "Forked Session" buttons. Save and Exit end the fork now (or
    /// after its turn); Report asks the agent for the summary first.
    pub(super) fn press_fork_button(&mut self, button: ForkButton) -> String {
        let Some(fork) = self.forks.open_fork() else {
            return "not in a fork.".into();
        };
        fork.do_send(super::fork_idle::OwnerActed);
        match button {
            ForkButton::Save => fork.do_send(MarkExit(ExitAction::Save)),
            ForkButton::Exit => fork.do_send(MarkExit(ExitAction::Discard)),
            ForkButton::Report => fork.do_send(super::Say {
                text: fork_prompt::button_prompt(
                    "Report: call report_updates with a short summary of this fork for the main conversation.",
                ),
                images: Vec::new(),
            }),
        }
        String::new()
    }

    /// Main session: lets go of the fork the user is talking to, if any (`/clear` inside a
    /// fork), showing it as discarded so the next line reaches the main conversation; `true`
    /// when there was one.
    pub(super) fn abandon_fork(&mut self) -> bool {
        let Some(fork) = self.forks.open.take().filter(|f| f.connected()) else {
            return false;
        };
        self.forks.base = None;
        fork.do_send(Abandon);
        tracing::info!("fork discarded by /clear");
        self.show(SurfaceEvent::ForkEnded(ExitAction::Discard));
        true
    }

    /// Main session: starts a fork.
    pub(super) fn start_fork(
        &mut self,
        msg: EnterFork,
        ctx: &mut Context<Self>,
    ) -> Result<(), Refusal> {
        if !self.forks.is_main() {
            return Err(Refusal::AlreadyInFork);
        }
        if self.forks.in_fork() {
            return Err(Refusal::ForkAlreadyOpen);
        }
        if msg.interrupt && !self.turns.inflight.is_empty() {
            self.interrupt(ctx);
        }
        let user = self.config.user_name.clone();
        let main_id = self.saved.read_file();
        let resumed = msg.resume.is_some();
        let (start, intro) = match msg.resume {
            // A background session is branched too, so the original stays as it was.
            Some((session, intro)) => (SessionStart::Fork(session), intro),
            None => {
                let intro = match msg.topic.as_deref().filter(|t| !t.trim().is_empty()) {
                    Some(topic) => fork_prompt::fork_started_with_topic(&user, topic),
                    None => fork_prompt::fork_started_without_topic(&user),
                };
                // Only a session the CLI has written can be forked.
                let start = match main_id.clone() {
                    Some(main) => SessionStart::Fork(main),
                    None => SessionStart::NewWithId(uuid::Uuid::new_v4().to_string()),
                };
                (start, intro)
            }
        };
        let state = ForkState {
            parent: ctx.address(),
            start,
            intro,
            idle: Duration::from_secs(u64::from(msg.idle_minutes.max(1)) * 60),
            exit: None,
            last_activity: Instant::now(),
            nudges: 0,
            resumed,
            // A resumed fork opens with the user's reply or click.
            user_turns: u32::from(resumed),
            // A resumed background session's size is not known here.
            parent_context: if resumed {
                None
            } else {
                self.turns.last_context
            },
            shown_updates: Vec::new(),
        };
        let fork = MainSession::new_fork(self, state).start();
        self.forks.open = Some(fork);
        // The session the main process works in: the saved one, or the one its first turn
        // (still running) is about to save.
        let base_id = self.saved.id.clone().or(main_id);
        self.note_fork_base(base_id, ctx);
        self.show(SurfaceEvent::ForkStarted { topic: msg.topic });
        Ok(())
    }

    /// Fork: the turn finished; end the fork if the agent chose how.
    pub(super) fn maybe_end_fork(&mut self, ctx: &mut Context<Self>) {
        let Role::Fork(state) = &mut self.forks.role else {
            return;
        };
        state.last_activity = Instant::now();
        let Some(action) = state.exit.take() else {
            return;
        };
        // Nothing from the owner since an idle nudge: the fork ends for idleness.
        let idle_minutes = (state.idle.as_secs() / 60) as u32 * state.nudges;
        let parent = state.parent.clone();
        if idle_minutes > 0 {
            self.show(SurfaceEvent::Notice(
                super::fork_idle::fork_closed_idle_note(idle_minutes),
            ));
        }
        parent.do_send(ForkEnded {
            action,
            session_id: self.saved.id.clone(),
        });
        ctx.notify(super::Close);
        ctx.run_later(Duration::from_secs(6), |_act, ctx| ctx.stop());
    }

    /// Main session: a fork ended.
    pub(super) fn fork_ended(&mut self, ended: ForkEnded) {
        self.forks.closed();
        let shown = match ended.action {
            ExitAction::Save => match ended.session_id {
                Some(id) => match self.adopt_session(id) {
                    Ok(()) => ExitAction::Save,
                    Err(not_saved) => ExitAction::NotSaved(Box::new(not_saved)),
                },
                None => {
                    tracing::warn!("a saved fork had no session id; main session unchanged");
                    ExitAction::NothingToSave
                }
            },
            other => other,
        };
        self.show(SurfaceEvent::ForkEnded(shown));
    }

    /// Makes `id` the main session: saved, recorded as a swap, pending updates cleared, and the
    /// process restarted on it at the next message. Saved first: when the id cannot be
    /// written nothing else happens, so the main session in memory stays the one on disk.
    fn adopt_session(&mut self, id: String) -> Result<(), NotSaved> {
        let previous = self.saved.adopt(&id)?;
        self.records.do_send(RecordSession {
            kind: EventKind::Swapped,
            session_id: id.clone(),
            parent: previous,
        });
        self.pending.do_send(Clear);
        self.process.live = None;
        tracing::info!(session_id = %id, "fork saved as the main session");
        Ok(())
    }
}

impl Handler<EnterFork> for MainSession {
    type Result = Result<(), Refusal>;
    fn handle(&mut self, msg: EnterFork, ctx: &mut Self::Context) -> Self::Result {
        self.start_fork(msg, ctx)
    }
}

impl Handler<MarkExit> for MainSession {
    type Result = ();
    fn handle(&mut self, MarkExit(action): MarkExit, ctx: &mut Self::Context) {
        if let Role::Fork(state) = &mut self.forks.role {
            state.exit = Some(action);
            // Between turns (a button pressed while idle) the fork can end now.
            if !self.turns.busy() {
                self.maybe_end_fork(ctx);
            }
        } else if let Some(fork) = &self.forks.open {
            fork.do_send(MarkExit(action));
        }
    }
}

impl Handler<Abandon> for MainSession {
    type Result = ();
    fn handle(&mut self, _msg: Abandon, ctx: &mut Self::Context) {
        if !self.forks.is_fork() {
            return;
        }
        if !self.turns.inflight.is_empty() {
            self.interrupt(ctx);
        }
        ctx.notify(super::Close);
        ctx.run_later(Duration::from_secs(6), |_act, ctx| ctx.stop());
    }
}

impl Handler<ForkEnded> for MainSession {
    type Result = ();
    fn handle(&mut self, msg: ForkEnded, ctx: &mut Self::Context) {
        self.fork_ended(msg);
        self.arm_idle_release(ctx);
    }
}
