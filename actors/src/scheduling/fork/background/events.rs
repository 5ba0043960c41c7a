//! What a background fork does with its process's events: notes the session (and records it in
//! the history), the tools it ran and the context used, and ends the job when the result comes
//! (completed, failed, or stopped at one of its [`RunBounds`](super::RunBounds)) or the CLI
//! exits mid-job. Split from the actor's definition (`background/mod.rs`).

use actix::prelude::*;

use super::progress::Spent;
use super::{human_name, short_error, BackgroundFork, Ending};
use crate::claude::brain::BrainEvent;
use crate::records::sessions::records::RecordSession;
use crate::records::sessions::EventKind;

/// The result subtypes the CLI ends a turn with when one of [`RunBounds`](super::RunBounds) is
/// reached (CLI 2.1.330: `is_error` true, the process stays up; `tests/brain/limits.rs`).
const OVER_BUDGET_SUBTYPES: [&str; 2] = ["error_max_turns", "error_max_budget_usd"];

impl BackgroundFork {
    fn record_history(&self, session_id: &str) {
        let (kind, parent) = if self.persistent.is_some() {
            (EventKind::PersistentBg, None)
        } else if self.isolated() {
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
            BrainEvent::Init {
                session_id,
                tools,
                model,
            } if self.session_id.is_none() => {
                if let Some(p) = self.persistent.as_mut() {
                    p.on_model(model.as_deref());
                }
                crate::agent::tools::note_init_tools(&tools);
                self.record_history(&session_id);
                self.session_id = Some(session_id);
            }
            BrainEvent::ToolUse { .. } | BrainEvent::SubagentToolUse { .. } => {
                self.activity.tool_ran = true;
            }
            BrainEvent::Result(r) if self.persistent.as_ref().is_some_and(|p| p.compacting()) => {
                if let Some(p) = self.persistent.as_mut() {
                    p.compaction_over(&r);
                }
                self.send_prompt(ctx);
            }
            BrainEvent::AssistantMessage {
                context_tokens: Some(tokens),
                ..
            } => {
                if let Some(p) = self.persistent.as_mut() {
                    p.on_context(tokens);
                }
            }
            BrainEvent::Result(r) => {
                if let Some(p) = &self.persistent {
                    p.finish(&r, self.session_id.as_deref());
                }
                let spent = Spent {
                    cost_usd: r.total_cost_usd,
                    turns: r.num_turns,
                };
                let error = r.is_error.then(|| {
                    let detail = if r.errors.is_empty() {
                        r.result.clone().unwrap_or_else(|| r.subtype.clone())
                    } else {
                        r.errors.join("; ")
                    };
                    short_error(&detail)
                });
                let name = human_name(&self.fired);
                let over = OVER_BUDGET_SUBTYPES.contains(&r.subtype.as_str());
                let notice = error.as_deref().map(|error| {
                    tracing::warn!(job = %self.fired.job.id(), subtype = %r.subtype, errors = ?r.errors, "background job failed");
                    if over {
                        format!("{name} was stopped at its limit: {error}.")
                    } else {
                        format!("{name} couldn't complete.")
                    }
                });
                let so_far = &self.activity;
                tracing::info!(job = %self.fired.job.id(), pinged = so_far.pings_sent, refused = so_far.refusals, reported = so_far.reported, "background job finished");
                let ending = match error {
                    None => Ending::Completed { spent },
                    Some(error) if over => Ending::OverBudget { spent, error },
                    Some(error) => Ending::Failed {
                        spent: Some(spent),
                        error,
                        transient: crate::claude::brain::transient::cause_of(&r),
                    },
                };
                self.finish(ending, notice, ctx);
            }
            BrainEvent::Exited(info) => {
                tracing::warn!(job = %self.fired.job.id(), code = ?info.code, stderr = ?info.stderr_tail, "background fork's cli exited mid-job");
                let how = match (info.code, info.signal) {
                    (Some(code), _) => format!("exit code {code}"),
                    (None, Some(signal)) => format!("signal {signal}"),
                    _ => "no exit status".to_owned(),
                };
                let last = info
                    .stderr_tail
                    .last()
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default();
                let ending = Ending::Failed {
                    spent: None,
                    error: short_error(&format!("the claude cli exited mid-job ({how}){last}")),
                    // A CLI that dies after a tool ran is not tried again.
                    transient: (!self.activity.tool_ran)
                        .then(|| crate::claude::brain::transient::exited_early(&how)),
                };
                let name = human_name(&self.fired);
                self.finish(ending, Some(format!("{name} couldn't complete.")), ctx);
            }
            _ => {}
        }
    }
}

/// An event of this fork's process.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub(super) struct Event(pub(super) BrainEvent);

impl Handler<Event> for BackgroundFork {
    type Result = ();
    fn handle(&mut self, Event(ev): Event, ctx: &mut Self::Context) {
        if !self.state.has_ended() {
            self.on_event(ev, ctx);
        }
    }
}
