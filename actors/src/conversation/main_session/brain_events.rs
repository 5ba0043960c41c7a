//! The conversation's CLI events as they stream in (text, thinking, tool calls, results,
//! the process ending) and noticing a CLI that stopped responding mid-turn. Split from
//! `conversation` (turns and results) to keep each file about one thing.

use actix::prelude::*;

use super::turn::{self, TurnKind};
use super::MainSession;
use crate::claude::brain::BrainEvent;
use crate::conversation::surface::SurfaceEvent;

impl MainSession {
    pub(super) fn on_event(&mut self, event: BrainEvent, ctx: &mut Context<Self>) {
        self.process.sign_of_life();
        if matches!(
            event,
            BrainEvent::Init { .. }
                | BrainEvent::TextDelta(_)
                | BrainEvent::ThinkingStarted
                | BrainEvent::ToolUse { .. }
                | BrainEvent::AssistantMessage { .. }
                | BrainEvent::Compacting
                | BrainEvent::LinesTaken { .. }
        ) {
            self.process.turn_running();
        }
        match event {
            BrainEvent::TextDelta(t) => {
                if let Some(turn) = self.turns.inflight.front_mut() {
                    turn.text.push_str(&t);
                    if turn.kind == TurnKind::Message && !turn.interrupted {
                        self.show(SurfaceEvent::TextDelta(t));
                    }
                }
            }
            // A `/compact` shows no status: its answer is one line when it is done.
            BrainEvent::ThinkingStarted
                if self
                    .turns
                    .inflight
                    .front()
                    .is_none_or(|t| t.kind == TurnKind::Message) =>
            {
                self.show(SurfaceEvent::Status("Thinking...".into()));
            }
            // The conversation keeps the CLI's default built-ins: a release with new ones shows.
            BrainEvent::Init { tools, model, .. } => {
                crate::agent::tools::note_init_tools(&tools);
                if let Some(turn) = self.turns.inflight.front_mut() {
                    turn.model = model;
                }
            }
            BrainEvent::ToolUse { id, name, input } => {
                let label = crate::agent::permissions::tool_label(
                    &name,
                    &input,
                    self.config.data_dir.root(),
                );
                let mut silent = false;
                if let Some(turn) = self.turns.inflight.front_mut() {
                    turn.tool_labels.push((id, label.clone()));
                    silent = matches!(turn.kind, TurnKind::Flush(_));
                }
                // A memory flush works unseen (its answer is a snapshot, not a reply).
                if !silent {
                    self.show(SurfaceEvent::ToolUse(label));
                }
            }
            BrainEvent::SubagentToolUse {
                parent_tool_use_id,
                name,
            } => {
                let agent = self.turns.inflight.front().and_then(|turn| {
                    turn.tool_labels
                        .iter()
                        .find(|(id, _)| *id == parent_tool_use_id)
                        .map(|(_, label)| label.clone())
                });
                if let Some(agent) = agent {
                    let tool = crate::agent::permissions::short_tool_name(&name);
                    self.show(SurfaceEvent::SubagentActivity(format!("{agent} · {tool}")));
                }
            }
            BrainEvent::ToolResult {
                tool_use_id,
                is_error: true,
            } => {
                let label = self.turns.inflight.front().and_then(|turn| {
                    turn.tool_labels
                        .iter()
                        .find(|(id, _)| *id == tool_use_id)
                        .map(|(_, label)| label.clone())
                });
                if let Some(label) = label {
                    self.show(SurfaceEvent::ToolFailed(label));
                }
            }
            // A `/compact` shows nothing while it runs: its command answers once, with the
            // report (no status line left ticking after it).
            BrainEvent::Compacting => {
                let mut automatic = true;
                if let Some(turn) = self.turns.inflight.front_mut() {
                    turn.compacting = true;
                    automatic = turn.kind != TurnKind::Compact;
                }
                if automatic {
                    self.show(SurfaceEvent::Status("Auto-compacting...".into()));
                }
            }
            BrainEvent::CompactBoundary(b) => {
                let automatic = self
                    .turns
                    .inflight
                    .front()
                    .is_none_or(|t| t.kind != TurnKind::Compact);
                if automatic {
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
                }
                if let Some(turn) = self.turns.inflight.front_mut() {
                    turn.on_boundary(b);
                }
                // The context is small again: a later crossing of `memory_flush_at` flushes.
                self.memory.rearm(false);
            }
            BrainEvent::CompactFinished { result, error } => {
                if result != "success" {
                    tracing::warn!(%result, error = ?error, "the cli's compaction failed");
                }
                if let Some(turn) = self.turns.inflight.front_mut() {
                    turn.compacting = false;
                    if result != "success" {
                        turn.compact_failed = Some(error.unwrap_or(result));
                    }
                }
            }
            BrainEvent::AssistantMessage {
                text,
                api_error,
                context_tokens,
                ..
            } => {
                if let Some(turn) = self.turns.inflight.front_mut() {
                    turn.on_assistant(&text);
                    if context_tokens.is_some() {
                        turn.context_tokens = context_tokens;
                    }
                    if api_error.is_some() {
                        turn.api_error = api_error;
                    }
                }
            }
            BrainEvent::ApiRetry {
                attempt,
                max_retries,
                status,
                error,
            } => self.show(SurfaceEvent::Status(super::failure::retry_status(
                attempt,
                max_retries,
                error.as_deref(),
                status,
            ))),
            BrainEvent::LinesTaken { uuids, text } => {
                self.turns.note_taken(&uuids, text.as_deref());
            }
            BrainEvent::SessionState(state) => self.on_cli_state(&state, ctx),
            BrainEvent::Result(result) => {
                self.process.turn_ended();
                self.on_result(result, ctx)
            }
            BrainEvent::Exited(info) => {
                tracing::warn!(code = ?info.code, signal = ?info.signal, stderr = ?info.stderr_tail, "claude cli exited");
                self.process.live = None;
                if !self.turns.inflight.is_empty() {
                    self.turns.end_in_flight("the claude cli exited mid-turn");
                    self.show(SurfaceEvent::Error(
                        "-# the assistant stopped unexpectedly — send that again.".into(),
                    ));
                }
                self.flush(ctx);
            }
            _ => {}
        }
    }

    pub(super) fn check_hung(&mut self, ctx: &mut Context<Self>) {
        if self.turns.inflight.is_empty() || !self.process.running() {
            return;
        }
        if !self.process.silent_for(self.config.hang_timeout) {
            return;
        }
        tracing::error!(
            timeout_s = self.config.hang_timeout.as_secs(),
            "claude cli stopped responding mid-turn; killing it"
        );
        // Dropping the last handle kills the process; its late events carry an old generation.
        self.process.live = None;
        self.turns
            .end_in_flight("the claude cli stopped responding");
        self.show(SurfaceEvent::Error(
            "-# the assistant stopped responding — send that again.".into(),
        ));
        self.flush(ctx);
    }
}
