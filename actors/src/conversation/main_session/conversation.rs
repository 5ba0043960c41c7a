//! Driving the conversation's turns: sending lines, interrupting (starting the process is in
//! `launch`, what happens when a turn's result comes in `turn_end`, its stream of events in
//! `brain_events`). Split from the actor's definition (`mod.rs`) to keep each file about one
//! thing.

use actix::prelude::*;

use super::job_turns::{JobTurnEnd, JobTurnOutcome};
use super::turn::{Turn, TurnKind};
use super::{MainSession, Outgoing};
use crate::claude::brain::UserMessage;
use crate::conversation::surface::SurfaceEvent;

impl MainSession {
    pub(super) fn show(&self, event: SurfaceEvent) {
        self.surface.do_send(event);
    }

    pub(super) fn busy(&self) -> bool {
        !self.inflight.is_empty() || !self.waiting.is_empty()
    }

    /// Sends `out` or queues it (SPEC §5, §17). A foreground job's line never interrupts: it
    /// waits behind the turn in progress and the lines queued before it, so overdue jobs each
    /// get their whole turn in fire order. The owner's line interrupts the owner's own answer in
    /// progress (not a compaction, whose reply an interrupt would kill); during a job's turn it
    /// waits, ahead of the jobs still queued, and is answered right after that turn.
    pub(super) fn submit(&mut self, out: Outgoing, ctx: &mut Context<Self>) {
        self.process.note_activity();
        if !self.process.running() {
            self.enqueue(out);
            self.ensure_launched(ctx);
            return;
        }
        if self.inflight.is_empty() && self.waiting.is_empty() {
            self.send(out, ctx);
            return;
        }
        // A compaction or a memory flush is never interrupted: what comes waits for it.
        let compacting = self
            .inflight
            .iter()
            .any(|t| t.compacting || matches!(t.kind, TurnKind::Flush(_)));
        let job_running = self.inflight.iter().any(|t| t.job.is_some());
        let owner_waiting = self.waiting.iter().any(|w| w.job.is_none());
        if out.job.is_some() || compacting || job_running || owner_waiting {
            self.enqueue(out);
            return;
        }
        if !self.inflight.is_empty() {
            self.interrupt(ctx);
        }
        self.send(out, ctx);
    }

    /// Queues `out`: a job's line at the end, the owner's line after the owner's lines already
    /// waiting and before the jobs (a line re-sent after a compaction keeps its place in front).
    pub(super) fn enqueue(&mut self, out: Outgoing) {
        if out.job.is_some() {
            self.waiting.push_back(out);
            return;
        }
        let at = self
            .waiting
            .iter()
            .position(|w| w.job.is_some() && !w.resent)
            .unwrap_or(self.waiting.len());
        self.waiting.insert(at, out);
    }

    pub(super) fn interrupt(&mut self, ctx: &mut Context<Self>) {
        let Some(driver) = self.process.driver() else {
            return;
        };
        for t in self.inflight.iter_mut() {
            t.interrupted = true;
        }
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

    pub(super) fn send(&mut self, out: Outgoing, ctx: &mut Context<Self>) {
        let Some(driver) = self.process.driver() else {
            self.waiting.push_front(out);
            self.ensure_launched(ctx);
            return;
        };
        let message = UserMessage {
            text: out.text.clone(),
            images: out.images.clone(),
        };
        self.process.sign_of_life();
        ctx.wait(
            async move { driver.send_user(message).await }
                .into_actor(self)
                .map(move |res, act, ctx| match res {
                    Ok(uuid) => {
                        let mut turn = Turn::new(uuid, out.text, out.kind);
                        turn.resent = out.resent;
                        turn.job = out.job;
                        turn.snooze = out.snooze;
                        if out.kind == TurnKind::Message {
                            act.turns_since_compact += 1;
                            act.note_message_sent(act.config.clock.now());
                        }
                        act.inflight.push_back(turn);
                        act.turns_sent += 1;
                    }
                    Err(e) => {
                        tracing::error!(cause = %e, "sending to the cli failed");
                        act.job_turns.answer(
                            out.job,
                            JobTurnEnd::bare(
                                JobTurnOutcome::Failed,
                                format!("sending to the cli failed: {e}"),
                            ),
                        );
                        act.show(SurfaceEvent::Error(
                            "-# couldn't reach the assistant — try again.".into(),
                        ));
                        if e.is_process_gone() {
                            act.process.live = None;
                        }
                        act.flush(ctx);
                    }
                }),
        );
    }

    /// Sends the next waiting line when nothing is in flight.
    pub(super) fn flush(&mut self, ctx: &mut Context<Self>) {
        if !self.inflight.is_empty() {
            return;
        }
        if let Some(next) = self.waiting.pop_front() {
            if self.process.running() {
                self.send(next, ctx);
            } else {
                self.waiting.push_front(next);
                self.ensure_launched(ctx);
            }
        }
    }
}
