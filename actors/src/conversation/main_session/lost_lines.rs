//! Lines the CLI never took. A release that reports its state (`session_state_changed`, 2.1.330
//! and later; see `claude::brain::releases`) says when it is idle. Idle by its own account with
//! lines of ours in flight that no turn took, they would never be answered nor sent again: so
//! when that lasts [`GRACE`] — a line written just as the CLI went idle is read within
//! milliseconds, and the `running` or the take that follows ends the wait — the untaken lines
//! go again, once each, in order, and lines waiting behind them follow. A line the CLI leaves
//! untaken a second time is answered as failed and the owner is told. A release that never
//! reports its state (2.1.197) is taken to be idle after each result, until a turn shows: its
//! `init`, its stream or a replayed line (it replays only with the first whole message, after
//! the text streamed, which a slow answer makes seconds late).

use std::time::Duration;

use actix::prelude::*;

use super::conversation::Outgoing;
use super::job_turns::{JobTurnEnd, JobTurnOutcome};
use super::turn::Turn;
use super::MainSession;
use crate::conversation::surface::SurfaceEvent;

/// How long the CLI may sit idle with a line of ours untaken before it goes again.
pub(super) const GRACE: Duration = Duration::from_secs(3);

/// What the owner sees when a line was dropped twice.
pub(super) const DROPPED: &str = "-# the assistant did not take that message — send it again.";

impl MainSession {
    /// The CLI reported its state: any report ends a pending wait; `idle` starts one when lines
    /// of ours are untaken.
    pub(super) fn on_cli_state(&mut self, state: &str, ctx: &mut Context<Self>) {
        self.process.state_reported(state);
        if state == "idle" {
            self.watch_for_lost_lines(ctx);
        }
    }

    /// Starts the wait when the CLI is idle by its last report and a line in flight is untaken.
    pub(super) fn watch_for_lost_lines(&mut self, ctx: &mut Context<Self>) {
        if !self.process.reported_idle() || !self.turns.inflight.iter().any(|t| !t.taken) {
            return;
        }
        let epoch = self.process.state_epoch;
        let generation = self.process.generation;
        ctx.run_later(GRACE, move |act, ctx| {
            let still_idle = act.process.state_epoch == epoch
                && act.process.is_current(generation)
                && act.process.reported_idle();
            if still_idle {
                act.send_lost_lines_again(ctx);
            }
        });
    }

    fn send_lost_lines_again(&mut self, ctx: &mut Context<Self>) {
        let (lost, kept): (Vec<Turn>, Vec<Turn>) =
            self.turns.inflight.drain(..).partition(|t| !t.taken);
        self.turns.inflight = kept.into();
        for t in lost.into_iter().rev() {
            if t.resent {
                tracing::warn!("the claude cli left a line untaken twice; answered as failed");
                self.turns.jobs.answer(
                    t.job,
                    JobTurnEnd::bare(
                        JobTurnOutcome::Failed,
                        "the claude cli did not take the line".to_owned(),
                    ),
                );
                self.show(SurfaceEvent::Error(DROPPED.into()));
                continue;
            }
            tracing::warn!("the claude cli went idle without taking a line; sending it again");
            self.turns.waiting.push_front(Outgoing {
                text: t.sent_text,
                images: Vec::new(),
                kind: t.kind,
                resent: true,
                job: t.job,
                snooze: t.snooze,
            });
        }
        self.flush(ctx);
    }
}
