//! The conversation's slash commands (SPEC §12): `/clear`, `/compact [instructions]`, `/cost`,
//! `/model opus|sonnet|haiku`, `/thinking off|adaptive|8000|32000|64000`, `/interrupt`,
//! `/config [key] [value]`. Surfaces parse their own syntax into [`Command`]; the reply is
//! short text. The commands that show or change a setting are in `setting_commands.rs`.

use actix::prelude::*;

use super::conversation::Outgoing;
use super::turn::{Turn, TurnKind};
use super::MainSession;
use crate::claude::brain::TurnResult;
use crate::conversation::surface::SurfaceEvent;
use crate::records::sessions::records::LineageStart;
use crate::records::sessions::CompactReport;

/// A slash command for the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Message)]
#[rtype(result = "String")]
pub enum Command {
    /// Drop the conversation and start fresh.
    Clear,
    /// Compact the conversation, with optional instructions.
    Compact(Option<String>),
    /// What this process has cost so far.
    Cost,
    /// Switch the model; `None` shows the one in force.
    Model(Option<String>),
    /// Switch extended thinking; `None` shows the setting in force.
    Thinking(Option<String>),
    /// Stop the answer in progress.
    Interrupt,
    /// Start an interactive fork, optionally about a topic.
    Fork(Option<String>),
    /// Switch the permission mode (inside a fork: that fork only); `None` shows the mode in
    /// force.
    Permissions(Option<String>),
    /// End the interactive fork the way a fork button does.
    EndFork(ForkButton),
    /// Show every setting, one setting, or set one.
    Config {
        /// The key (`model.main`, `bg_fork_timeout`, ...).
        key: Option<String>,
        /// The new value.
        value: Option<String>,
    },
}

/// The answer to `/model` or `/thinking` with a value while an interactive fork runs: they
/// change the main conversation, which the fork would not pick up.
pub const EXIT_FORK_FIRST: &str = "exit fork first.";
/// `/compact`'s answer when the CLI stopped before the compaction finished.
pub const COMPACT_STOPPED: &str = "-# the compaction did not finish — send /compact again.";

/// `/clear`'s answer inside a fork.
pub const LEFT_FORK_CLEARING: &str = "left the fork (discarded) — clearing the conversation...";

/// The three buttons of the "Forked Session" embed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForkButton {
    /// Save Context: the fork becomes the main session.
    Save,
    /// Report: the agent summarises the fork into pending updates, then it ends.
    Report,
    /// Exit Fork: discard it.
    Exit,
}

impl MainSession {
    pub(super) fn queue_command(&mut self, text: String, kind: TurnKind, ctx: &mut Context<Self>) {
        self.submit(Outgoing::own(text, kind), ctx);
    }

    /// Called when a `/compact` or `/clear` turn finished.
    pub(super) fn command_done(
        &mut self,
        turn: &Turn,
        result: &TurnResult,
        ctx: &mut Context<Self>,
    ) {
        match turn.kind {
            TurnKind::Compact => {
                self.memory.rearm(false);
                let turns = self.turns.since_compact;
                self.turns.since_compact = 0;
                let now = self.config.clock.now();
                let pre_tokens = turn.boundary.as_ref().and_then(|b| b.pre_tokens);
                let post_tokens = turn.boundary.as_ref().and_then(|b| b.post_tokens);
                let records = self.records.clone();
                // Waited for, so the report shows before anything that happens after it.
                ctx.wait(
                    async move { records.send(LineageStart).await }
                        .into_actor(self)
                        .map(move |start, act, _ctx| {
                            let start = match start {
                                Ok(Ok(start)) => start,
                                Ok(Err(e)) => {
                                    tracing::warn!(cause = %e, "could not read the session history");
                                    None
                                }
                                Err(e) => {
                                    tracing::error!(cause = %e, "the session records have stopped");
                                    None
                                }
                            };
                            let report = CompactReport::new(Some(turns), start, now, pre_tokens);
                            let line = report.answer(post_tokens);
                            let waiting = std::mem::take(&mut act.turns.compact_replies);
                            if waiting.is_empty() {
                                act.show(SurfaceEvent::Notice(line));
                            } else {
                                for reply in waiting {
                                    let _ = reply.send(line.clone());
                                }
                            }
                        }),
                );
            }
            TurnKind::Clear => {
                tracing::info!(session_id = %result.session_id, "conversation cleared");
                self.turns.since_compact = 0;
                self.memory.rearm(true);
                self.show(SurfaceEvent::Notice(
                    "-# conversation cleared — starting fresh.".into(),
                ));
                self.reload_memory_after_clear(ctx);
            }
            TurnKind::Flush(reason) => self.flush_done(reason, turn, result),
            TurnKind::Message => {}
        }
    }
}

/// `/fork`'s answer when nothing was running.
pub const FORK_ENTERED: &str = "entering fork.";
/// `/fork`'s answer while the main conversation was still answering.
pub const FORK_BESIDE_ANSWER: &str =
    "entering fork — the answer in progress finishes in the main conversation.";

impl Handler<Command> for MainSession {
    type Result = ResponseActFuture<Self, String>;

    fn handle(&mut self, cmd: Command, ctx: &mut Self::Context) -> Self::Result {
        let reply = |s: String| -> ResponseActFuture<Self, String> { Box::pin(fut::ready(s)) };
        match cmd {
            Command::Clear => {
                // Inside a fork the fork goes first: the next line must reach the cleared
                // conversation, not the old fork.
                let left_fork = self.abandon_fork();
                self.flush_then("/clear".into(), TurnKind::Clear, ctx);
                reply(if left_fork {
                    LEFT_FORK_CLEARING.to_owned()
                } else {
                    "clearing the conversation...".to_owned()
                })
            }
            Command::Compact(instructions) => {
                let text = match instructions.filter(|i| !i.trim().is_empty()) {
                    Some(i) => format!("/compact {i}"),
                    None => "/compact".to_owned(),
                };
                self.flush_then(text, TurnKind::Compact, ctx);
                // Answered once, when it is done: one line, nothing left "compacting...".
                let (tx, rx) = tokio::sync::oneshot::channel();
                self.turns.compact_replies.push(tx);
                Box::pin(
                    async move { rx.await.unwrap_or_else(|_| COMPACT_STOPPED.to_owned()) }
                        .into_actor(self),
                )
            }
            Command::Cost => reply(self.turns.cost_line()),
            Command::Interrupt => {
                if self.turns.inflight.is_empty() {
                    return reply("nothing to interrupt.".into());
                }
                if self.turns.inflight.iter().any(|t| t.compacting) {
                    return reply("compacting right now — it can't be interrupted.".into());
                }
                self.interrupt(ctx);
                reply("interrupted.".into())
            }
            Command::Model(name) => self.main_setting("model", name, ctx),
            Command::Thinking(v) => self.main_setting("thinking", v, ctx),
            Command::Fork(topic) => {
                let idle_minutes = self.idle_minutes();
                // `/fork` interrupts nothing: an answer in progress finishes where it began.
                let answering = !self.turns.inflight.is_empty();
                let started = self.start_fork(
                    super::EnterFork {
                        topic,
                        idle_minutes,
                        interrupt: false,
                        resume: None,
                    },
                    ctx,
                );
                reply(match started {
                    Ok(()) if answering => FORK_BESIDE_ANSWER.to_owned(),
                    Ok(()) => FORK_ENTERED.to_owned(),
                    Err(refusal) => refusal.to_string(),
                })
            }
            Command::Permissions(mode) => self.set_permissions(mode, ctx),
            Command::EndFork(button) => reply(self.press_fork_button(button)),
            Command::Config { key: None, .. } => reply(self.config.runtime.show_all()),
            Command::Config {
                key: Some(key),
                value: None,
            } => reply(
                self.config
                    .runtime
                    .get(&key)
                    .unwrap_or_else(|e| e.to_string()),
            ),
            Command::Config {
                key: Some(key),
                value: Some(value),
            } => self.configure(key, value, ctx),
        }
    }
}
