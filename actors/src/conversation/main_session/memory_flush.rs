//! The conversation's flush before forgetting (SPEC §18), driven by the actor: the silent
//! `[memory-flush]` turn queued in front of `/clear` and `/compact`, and once when the context
//! passes `memory_flush_at`; its answer written as a session snapshot, never shown. The prompt
//! and the file are [`crate::agent::memory_flush`]'s.
//!
//! The command behind a flush waits in the queue until the flush's result (or its 120 s bound)
//! — sent together, the CLI could fold both into one turn. A flush that fails, is interrupted
//! or runs out of time is logged and the owner sees `-# couldn't save a snapshot`; the command
//! goes ahead either way.

use chrono::{DateTime, Utc};

use actix::prelude::*;

use super::conversation::Outgoing;
use super::turn::{Turn, TurnKind};
use super::MainSession;
use crate::agent::memory_flush::{self as flush, Reason, Snapshot};
use crate::claude::brain::TurnResult;
use crate::conversation::surface::SurfaceEvent;

/// What the conversation knows for its next flush.
#[derive(Debug, Clone)]
pub(super) struct FlushState {
    /// The threshold flush has not happened in this session yet.
    armed: bool,
    /// The session has had a message since it began (or was resumed with one).
    said: bool,
    /// The first and the last message of this session the bot saw.
    first_at: Option<DateTime<Utc>>,
    last_at: Option<DateTime<Utc>>,
    /// Counts flushes; the 120 s timer of an earlier one finds a newer count and does nothing.
    serial: u64,
    /// The serial of the flush in flight, if any; cleared by its result or its timeout.
    running: Option<u64>,
}

impl FlushState {
    /// A session resumed from `saved` has been spoken in; a new one has not.
    pub(super) fn new(resumed: bool) -> Self {
        Self {
            armed: true,
            said: resumed,
            first_at: None,
            last_at: None,
            serial: 0,
            running: None,
        }
    }

    /// A message of the conversation was sent at `now`.
    pub(super) fn note_message_sent(&mut self, now: DateTime<Utc>) {
        self.said = true;
        self.first_at.get_or_insert(now);
        self.last_at = Some(now);
    }

    /// The context was made small (a compaction) or new (a clear): the threshold flush may
    /// happen again, once.
    pub(super) fn rearm(&mut self, cleared: bool) {
        self.armed = true;
        if cleared {
            self.said = false;
            self.first_at = None;
            self.last_at = None;
        }
    }

    /// A flush starts: its serial, which its timer and its result look for.
    fn begin(&mut self) -> u64 {
        self.serial += 1;
        self.running = Some(self.serial);
        self.serial
    }

    /// The flush `serial` has run out of time: true when it was still running (it is not now).
    fn time_out(&mut self, serial: u64) -> bool {
        if self.running != Some(serial) {
            return false;
        }
        self.running = None;
        true
    }

    /// The flush in flight has ended: false when it had timed out already.
    fn finish(&mut self) -> bool {
        self.running.take().is_some()
    }
}

impl MainSession {
    /// Queues `command` (`/clear`, `/compact …`), with a flush in front of it when the
    /// conversation has something to save and flushing is on.
    pub(super) fn flush_then(&mut self, text: String, kind: TurnKind, ctx: &mut Context<Self>) {
        let reason = match kind {
            TurnKind::Clear => Reason::Clear,
            TurnKind::Compact => Reason::Compact,
            _ => return self.queue_command(text, kind, ctx),
        };
        if !self.start_flush(reason, ctx) {
            return self.queue_command(text, kind, ctx);
        }
        // Behind the flush: sent when its result arrives.
        self.turns.enqueue(Outgoing::own(text, kind));
    }

    /// After an answered turn: the one flush of this session when its context passed
    /// `memory_flush_at` of the model's window. Queued in front, sent when the turn's result
    /// has been dealt with.
    pub(super) fn maybe_flush_at_threshold(
        &mut self,
        turn: &Turn,
        result: &TurnResult,
        ctx: &mut Context<Self>,
    ) {
        if !self.memory.armed || turn.boundary.is_some() {
            return;
        }
        let pct = self.config.runtime.values().memory_flush_at_pct;
        let window = super::context_warning::window_of(turn.model.as_deref());
        if !flush::past_threshold(turn.context_used(result), window, pct) {
            return;
        }
        self.memory.armed = false;
        self.start_flush(Reason::Threshold, ctx);
    }

    /// Queues the flush turn for `reason` and starts its time limit; false when there is
    /// nothing to flush (off, a fork, a session nobody spoke in, a flush already coming).
    fn start_flush(&mut self, reason: Reason, ctx: &mut Context<Self>) -> bool {
        let on = self.config.runtime.values().memory_flush;
        if !on || !self.forks.is_main() || !self.memory.said || self.turns.flushing() {
            return false;
        }
        let serial = self.memory.begin();
        self.show(SurfaceEvent::Notice(flush::SAVING.into()));
        let out = Outgoing::own(
            flush::prompt(reason, &self.config.user_name),
            TurnKind::Flush(reason),
        );
        if !self.turns.busy() && self.process.running() {
            self.send(out, ctx);
        } else if reason == Reason::Threshold {
            // After the turn that crossed the line, ahead of what waits.
            self.turns.waiting.push_front(out);
        } else {
            self.submit(out, ctx);
        }
        ctx.run_later(flush::LIMIT, move |act, ctx| {
            act.flush_timed_out(serial, ctx)
        });
        true
    }

    /// The flush `serial` is still not answered after the limit: give up on it so the command
    /// behind it goes ahead.
    fn flush_timed_out(&mut self, serial: u64, ctx: &mut Context<Self>) {
        if !self.memory.time_out(serial) {
            return;
        }
        tracing::warn!(
            limit_s = flush::LIMIT.as_secs(),
            "the memory flush did not finish in time; going ahead without a snapshot"
        );
        self.show(SurfaceEvent::Notice(flush::NOT_SAVED.into()));
        let queued = self
            .turns
            .waiting
            .iter()
            .position(|w| matches!(w.kind, TurnKind::Flush(_)));
        if let Some(at) = queued {
            // Never sent (the process was starting): drop it, the rest goes on as usual.
            self.turns.waiting.remove(at);
            return;
        }
        if self
            .turns
            .inflight
            .iter()
            .any(|t| matches!(t.kind, TurnKind::Flush(_)))
        {
            // Its result (aborted) arrives and the queue moves on.
            self.interrupt(ctx);
        }
    }

    /// The flush turn ended: write its answer as a snapshot, or say it could not be saved.
    pub(super) fn flush_done(&mut self, reason: Reason, turn: &Turn, result: &TurnResult) {
        if !self.memory.finish() {
            // Timed out already, and said so.
            return;
        }
        let summary = if turn.text.trim().is_empty() {
            result.result.clone().unwrap_or_default()
        } else {
            turn.text.clone()
        };
        let failed = result.is_error || turn.interrupted || turn.api_error.is_some();
        if failed || summary.trim().is_empty() {
            tracing::warn!(
                reason = reason.as_str(),
                is_error = result.is_error,
                api_error = ?turn.api_error,
                terminal = ?result.terminal_reason,
                "the memory flush failed; no snapshot"
            );
            self.show(SurfaceEvent::Notice(flush::NOT_SAVED.into()));
            return;
        }
        let now = self.config.clock.now();
        let session = self.saved.id_of(&result.session_id);
        let snapshot = Snapshot {
            session: &session,
            reason,
            from: self.memory.first_at.unwrap_or(now),
            to: self.memory.last_at.unwrap_or(now),
            summary: &summary,
        };
        match snapshot.write(self.config.data_dir.root(), now, self.config.tz) {
            Ok(path) => tracing::info!(
                reason = reason.as_str(),
                file = %path.display(),
                "session snapshot written"
            ),
            Err(e) => {
                tracing::error!(cause = %e, "could not write the session snapshot");
                self.show(SurfaceEvent::Notice(flush::NOT_SAVED.into()));
            }
        }
    }
}
