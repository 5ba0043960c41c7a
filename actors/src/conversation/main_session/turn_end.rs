//! What the main session does when a turn's result comes: ends every turn the CLI merged into
//! it, records the session id and the usage, shows the reply (or sends the line again, or says
//! why the turn failed) and moves on to what waits. Split from `conversation.rs`, which sends
//! the turns.

use actix::prelude::*;

use super::conversation::Outgoing;
use super::job_turns;
use super::turn::{Outcome, Turn, TurnKind};
use super::MainSession;
use crate::claude::brain::TurnResult;
use crate::conversation::surface::SurfaceEvent;

impl MainSession {
    pub(super) fn on_result(&mut self, result: TurnResult, ctx: &mut Context<Self>) {
        // The CLI merges lines sent during a busy turn into one turn: every turn the result
        // names is over, and the last of them carries what the user sees.
        let Some((turn, merged)) = self.turns.take_answered(&result) else {
            tracing::debug!("result with no turn in flight");
            return;
        };
        // The memory changed other than through the file tools (a shell command, a hand edit):
        // committed as the turn ends, off the actor; unchanged, nothing is committed.
        let data = self.config.data_dir.clone();
        tokio::task::spawn_blocking(move || {
            crate::agent::memory::versions::commit(&data, "changed during a turn")
        });
        if self.saved.note_result_id(&result.session_id) {
            tracing::info!(session_id = %result.session_id, "main session id changed");
            if self.forks.is_fork() {
                self.show(SurfaceEvent::InteractiveForkSession(
                    result.session_id.clone(),
                ));
            }
        }
        if self.forks.is_main() {
            self.persist_session_id(turn.kind);
        }
        let outcome = turn.outcome(&result);
        let cost_usd = self.record_usage(&turn, &merged, &result);
        // Lines sent after an interrupt that the CLI folded into the aborted turn were never
        // answered (issue 28: nothing dropped): each goes again, once, in its order.
        let lost = |t: &Turn| {
            matches!(outcome, Outcome::Interrupted)
                && !t.interrupted
                && !t.resent
                && t.kind == TurnKind::Message
        };
        // Lines the CLI merged into this turn ended with it.
        for t in merged.iter().chain(std::iter::once(&turn)) {
            if lost(t) {
                continue;
            }
            if !matches!(outcome, Outcome::Resend(_)) || t.uuid != turn.uuid {
                let end = job_turns::end_of(&outcome, &result, cost_usd);
                self.turns.jobs.answer(t.job, end);
            }
        }
        match outcome {
            Outcome::Reply(text) => {
                self.show(SurfaceEvent::Reply(text));
                if let Some(snooze) = turn.snooze.clone() {
                    self.show(SurfaceEvent::SnoozeButtons(snooze));
                }
                self.turns.last_context = Some(turn.context_used(&result));
                if let Some(line) = turn.context_line(&result) {
                    self.show(SurfaceEvent::Notice(line));
                }
                if self.forks.is_main() {
                    self.maybe_flush_at_threshold(&turn, &result, ctx);
                }
            }
            Outcome::Resend(text) => {
                tracing::info!("compaction swallowed the message; sending it again");
                self.turns.waiting.push_front(Outgoing {
                    text,
                    images: Vec::new(),
                    kind: TurnKind::Message,
                    resent: true,
                    job: turn.job,
                    snooze: turn.snooze.clone(),
                });
            }
            Outcome::Interrupted => {
                // `merged` holds the earlier lines newest first; the front of the queue gets
                // them oldest first.
                let again: Vec<&Turn> = std::iter::once(&turn)
                    .chain(merged.iter())
                    .filter(|t| lost(t))
                    .collect();
                for t in again {
                    tracing::info!(
                        "a line sent after an interrupt was aborted with it; sending it again"
                    );
                    self.turns.waiting.push_front(Outgoing {
                        text: t.sent_text.clone(),
                        images: Vec::new(),
                        kind: TurnKind::Message,
                        resent: true,
                        job: t.job,
                        snooze: t.snooze.clone(),
                    });
                }
            }
            Outcome::Failed(failure) => {
                tracing::warn!(reason = %failure.detail, kind = ?failure.kind, "turn failed");
                self.show(SurfaceEvent::Error(failure.notice()));
                if failure.kind == super::failure::FailureKind::NotSignedIn {
                    self.show(SurfaceEvent::SignInLost);
                }
            }
            Outcome::CommandDone => self.command_done(&turn, &result, ctx),
        }
        self.turns.last_result = Some(result);
        self.flush(ctx);
        if !self.turns.busy() {
            self.maybe_end_fork(ctx);
            self.arm_idle_release(ctx);
        }
    }
}
