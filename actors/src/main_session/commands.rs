//! The conversation's slash commands (SPEC §12): `/clear`, `/compact [instructions]`, `/cost`,
//! `/model opus|sonnet|haiku`, `/thinking off|adaptive|8000|32000|64000`, `/interrupt`,
//! `/config [key] [value]`. Surfaces parse their own syntax into [`Command`]; the reply is
//! short text. Model, thinking and permission mode live in the runtime config, so they survive
//! restarts.

use std::sync::Arc;

use actix::prelude::*;

use super::turn::{Turn, TurnKind};
use super::{MainSession, Outgoing};
use crate::brain::{PermissionMode, TurnResult};
use crate::permissions::modes;
use crate::runtime_config::Key;
use crate::sessions::records::LineageStart;
use crate::sessions::CompactReport;
use crate::surface::SurfaceEvent;

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
        self.submit(
            Outgoing {
                text,
                images: Vec::new(),
                kind,
                resent: false,
                job: None,
                snooze: None,
            },
            ctx,
        );
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
                self.rearm_flush(false);
                let turns = self.turns_since_compact;
                self.turns_since_compact = 0;
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
                            let waiting = std::mem::take(&mut act.compact_replies);
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
                self.turns_since_compact = 0;
                self.rearm_flush(true);
                self.show(SurfaceEvent::Notice(
                    "-# conversation cleared — starting fresh.".into(),
                ));
                self.reload_memory_after_clear(ctx);
            }
            TurnKind::Flush(reason) => self.flush_done(reason, turn, result),
            TurnKind::Message => {}
        }
    }

    fn cost_line(&self) -> String {
        match &self.last_result {
            None => "no turns yet in this run.".to_owned(),
            Some(r) => format!(
                "cost this run: ${:.4} · last turn: {} in / {} out tokens",
                r.total_cost_usd.unwrap_or(0.0),
                r.usage.input_tokens
                    + r.usage.cache_read_input_tokens
                    + r.usage.cache_creation_input_tokens,
                r.usage.output_tokens
            ),
        }
    }
}

impl MainSession {
    /// `fork_idle_timeout` in minutes.
    pub(super) fn idle_minutes(&self) -> u32 {
        u32::try_from(self.config.runtime.values().fork_idle_timeout_mins).unwrap_or(10)
    }

    /// `/permissions MODE`: this session's policy (a fork's own while the user is in one), and
    /// the CLI's mode to match. `bypassPermissions` as root without `IS_SANDBOX=1` is refused by
    /// the CLI: say so instead of failing silently.
    fn set_permissions(
        &mut self,
        mode: Option<String>,
        ctx: &mut Context<Self>,
    ) -> ResponseActFuture<Self, String> {
        if let Some(fork) = self.fork.clone().filter(|f| f.connected()) {
            return Box::pin(
                async move {
                    fork.send(Command::Permissions(mode))
                        .await
                        .unwrap_or_else(|_| "the fork has ended.".into())
                }
                .into_actor(self),
            );
        }
        let scope = if matches!(self.role, super::fork_role::Role::Fork(_)) {
            " (this fork only)"
        } else {
            ""
        };
        let Some(mode) = mode else {
            let current = self.policy.mode;
            let default = if current == self.config.runtime.values().permission_mode {
                " (default)"
            } else {
                ""
            };
            return Box::pin(fut::ready(format!(
                "permission mode: {}{default}{scope}",
                modes::choice_label(current)
            )));
        };
        let Some(parsed) = modes::parse(&mode) else {
            return Box::pin(fut::ready(format!(
                "unknown permission mode {mode:?} ({})",
                modes::listed()
            )));
        };
        if parsed == PermissionMode::BypassPermissions {
            if let Some(why) = crate::permissions::bypass_refused_as_root() {
                return Box::pin(fut::ready(why.to_owned()));
            }
        }
        self.policy.mode = parsed;
        let scope = if matches!(self.role, super::fork_role::Role::Fork(_)) {
            " (this fork only)"
        } else {
            ""
        };
        let done = format!("permission mode: {}{scope}", modes::choice_label(parsed));
        let _ = ctx;
        let Some(live) = &self.live else {
            return Box::pin(fut::ready(done));
        };
        let driver = Arc::clone(&live.driver);
        Box::pin(
            async move {
                match driver
                    .set_permission_mode(super::host::cli_mode(parsed))
                    .await
                {
                    Ok(()) => done,
                    Err(e) => format!("{done} — but the running session refused it: {e}"),
                }
            }
            .into_actor(self),
        )
    }

    /// `/model` and `/thinking`: with a value, set the main conversation's (refused inside a
    /// fork); without, show the one in force (the fork's inside a fork).
    fn main_setting(
        &mut self,
        what: &str,
        value: Option<String>,
        ctx: &mut Context<Self>,
    ) -> ResponseActFuture<Self, String> {
        let in_fork = self.in_fork() || matches!(self.role, super::fork_role::Role::Fork(_));
        match value.filter(|v| !v.trim().is_empty()) {
            Some(_) if in_fork => Box::pin(fut::ready(EXIT_FORK_FIRST.to_owned())),
            Some(v) => self.configure(format!("{what}.main"), v, ctx),
            None => {
                let key = format!("{what}.{}", if in_fork { "fork" } else { "main" });
                let line = self
                    .config
                    .runtime
                    .get(&key)
                    .unwrap_or_else(|e| e.to_string());
                Box::pin(fut::ready(line))
            }
        }
    }

    /// Sets a runtime config key and applies what concerns the running conversation: the model
    /// at once, the permission mode at once, thinking from the next process (restarted when idle).
    fn configure(
        &mut self,
        key: String,
        value: String,
        ctx: &mut Context<Self>,
    ) -> ResponseActFuture<Self, String> {
        let bypass = value.trim().eq_ignore_ascii_case("bypassPermissions");
        if bypass && Key::from_name(&key) == Some(Key::PermissionMode) {
            if let Some(why) = crate::permissions::bypass_refused_as_root() {
                return Box::pin(fut::ready(why.to_owned()));
            }
        }
        let before = *self.config.runtime.values();
        let confirmation = match self.config.runtime.set(&key, &value) {
            Ok(c) => c,
            Err(e) => return Box::pin(fut::ready(e.to_string())),
        };
        let after = *self.config.runtime.values();
        if after.thinking_main != before.thinking_main && !self.busy() {
            // Thinking is a start-up flag: the next message starts a process with it.
            self.live = None;
        }
        if after.main_idle_release_mins != before.main_idle_release_mins {
            // The idle timer counts again with the new setting (0: it never fires).
            self.arm_idle_release(ctx);
        }
        let Some(live) = &self.live else {
            return Box::pin(fut::ready(confirmation));
        };
        let driver = Arc::clone(&live.driver);
        Box::pin(
            async move {
                if after.model_main != before.model_main {
                    let model = after.model_main.map(|m| m.as_str().to_owned());
                    if let Err(e) = driver.set_model(model).await {
                        tracing::warn!(cause = %e, "set_model failed");
                    }
                }
                if after.permission_mode != before.permission_mode {
                    if let Err(e) = driver
                        .set_permission_mode(super::host::cli_mode(after.permission_mode))
                        .await
                    {
                        tracing::warn!(cause = %e, "set_permission_mode failed");
                        return format!("{confirmation} (the running session refused it: {e})");
                    }
                }
                confirmation
            }
            .into_actor(self),
        )
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
                self.compact_replies.push(tx);
                Box::pin(
                    async move { rx.await.unwrap_or_else(|_| COMPACT_STOPPED.to_owned()) }
                        .into_actor(self),
                )
            }
            Command::Cost => reply(self.cost_line()),
            Command::Interrupt => {
                if self.inflight.is_empty() {
                    return reply("nothing to interrupt.".into());
                }
                if self.inflight.iter().any(|t| t.compacting) {
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
                let answering = !self.inflight.is_empty();
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
