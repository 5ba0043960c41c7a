//! The conversation's slash commands (SPEC §12): `/clear`, `/compact [instructions]`, `/cost`,
//! `/model opus|sonnet|haiku`, `/thinking off|adaptive|8000|32000|64000`, `/interrupt`.
//! Surfaces parse their own syntax into [`Command`]; the reply is one short line.

use std::sync::Arc;

use actix::prelude::*;

use super::turn::{thousands, Turn, TurnKind};
use super::{MainSession, Outgoing};
use crate::brain::{Thinking, TurnResult};
use crate::jobs::ModelChoice;
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
    /// Switch the model.
    Model(String),
    /// Switch extended thinking.
    Thinking(String),
    /// Stop the answer in progress.
    Interrupt,
}

/// Parses a `/thinking` value.
pub fn parse_thinking(v: &str) -> Result<Thinking, String> {
    match v {
        "off" => Ok(Thinking::Disabled),
        "adaptive" => Ok(Thinking::Adaptive),
        "8000" | "32000" | "64000" => v
            .parse()
            .map(Thinking::Budget)
            .map_err(|_| "unreachable".to_owned()),
        _ => Err(format!(
            "unknown thinking mode {v:?} (off, adaptive, 8000, 32000 or 64000)"
        )),
    }
}

fn duration_words(d: std::time::Duration) -> String {
    let mins = d.as_secs() / 60;
    if mins >= 60 {
        format!("{}h {}m", mins / 60, mins % 60)
    } else {
        format!("{mins}m")
    }
}

impl MainSession {
    fn queue_command(&mut self, text: String, kind: TurnKind, ctx: &mut Context<Self>) {
        self.submit(
            Outgoing {
                text,
                images: Vec::new(),
                kind,
                resent: false,
            },
            ctx,
        );
    }

    /// Called when a `/compact` or `/clear` turn finished.
    pub(super) fn command_done(&mut self, turn: &Turn, result: &TurnResult) {
        match turn.kind {
            TurnKind::Compact => {
                let tokens = turn
                    .boundary
                    .as_ref()
                    .and_then(|b| b.pre_tokens)
                    .map(thousands)
                    .unwrap_or_else(|| "?".into());
                let line = format!(
                    "{} turns · {} · {tokens} tokens compacted",
                    self.turns_since_compact,
                    duration_words(self.session_started.elapsed())
                );
                self.turns_since_compact = 0;
                self.show(SurfaceEvent::Notice(line));
            }
            TurnKind::Clear => {
                tracing::info!(session_id = %result.session_id, "conversation cleared");
                self.turns_since_compact = 0;
                self.session_started = std::time::Instant::now();
                self.show(SurfaceEvent::Notice(
                    "-# conversation cleared — starting fresh.".into(),
                ));
            }
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

impl Handler<Command> for MainSession {
    type Result = ResponseActFuture<Self, String>;

    fn handle(&mut self, cmd: Command, ctx: &mut Self::Context) -> Self::Result {
        let reply = |s: String| -> ResponseActFuture<Self, String> { Box::pin(fut::ready(s)) };
        match cmd {
            Command::Clear => {
                self.queue_command("/clear".into(), TurnKind::Clear, ctx);
                reply("clearing the conversation...".into())
            }
            Command::Compact(instructions) => {
                let text = match instructions.filter(|i| !i.trim().is_empty()) {
                    Some(i) => format!("/compact {i}"),
                    None => "/compact".to_owned(),
                };
                self.queue_command(text, TurnKind::Compact, ctx);
                reply("compacting the conversation...".into())
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
            Command::Model(name) => {
                let choice = match name.parse::<ModelChoice>() {
                    Ok(c) => c,
                    Err(e) => return reply(e),
                };
                self.config.model = Some(choice.as_str().to_owned());
                let Some(live) = &self.live else {
                    return reply(format!("model set to {choice}."));
                };
                let driver = Arc::clone(&live.driver);
                Box::pin(
                    async move { driver.set_model(Some(choice.as_str().to_owned())).await }
                        .into_actor(self)
                        .map(move |res, _act, _ctx| match res {
                            Ok(()) => format!("model set to {choice}."),
                            Err(e) => {
                                tracing::warn!(cause = %e, "set_model failed");
                                format!("model set to {choice} (applies from the next start).")
                            }
                        }),
                )
            }
            Command::Thinking(v) => match parse_thinking(&v) {
                Err(e) => reply(e),
                Ok(t) => {
                    self.config.thinking = Some(t);
                    // Thinking is a start-up flag: restart the process when idle.
                    if !self.busy() {
                        self.live = None;
                    }
                    reply(format!("thinking set to {v}."))
                }
            },
        }
    }
}
