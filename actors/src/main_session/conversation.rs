//! Driving the conversation's turns: sending lines, interrupting, starting the process,
//! reacting to its results (its stream of events in `brain_events`). Split from the actor's definition
//! (`mod.rs`) to keep each file about one thing.

use std::sync::Arc;
use std::time::Instant;

use actix::prelude::*;

use super::fork_role::Role;
use super::host::SessionHost;
use super::job_turns::{self, JobTurnEnd, JobTurnOutcome};
use super::turn::{Outcome, Turn, TurnKind};
use super::{launch, tools_backend, Live, MainSession, Outgoing, ProcessEvent};
use crate::brain::{TurnResult, UserMessage};
use crate::sessions::records::{NoteSavedId, RecordSession};
use crate::sessions::{EventKind, IdChange};
use crate::surface::SurfaceEvent;

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
        self.note_activity();
        if self.live.is_none() {
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
        let Some(live) = &self.live else { return };
        for t in self.inflight.iter_mut() {
            t.interrupted = true;
        }
        let driver = Arc::clone(&live.driver);
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
        let Some(live) = &self.live else {
            self.waiting.push_front(out);
            self.ensure_launched(ctx);
            return;
        };
        let driver = Arc::clone(&live.driver);
        let message = UserMessage {
            text: out.text.clone(),
            images: out.images.clone(),
        };
        self.last_sign_of_life = Instant::now();
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
                            act.live = None;
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
            if self.live.is_some() {
                self.send(next, ctx);
            } else {
                self.waiting.push_front(next);
                self.ensure_launched(ctx);
            }
        }
    }

    pub(super) fn ensure_launched(&mut self, ctx: &mut Context<Self>) {
        if self.launching || self.live.is_some() {
            return;
        }
        self.launching = true;
        let fork_start = match &self.role {
            Role::Fork(state) => Some(launch::ForkStart {
                session: state.start.clone(),
                parent_context: state.parent_context,
            }),
            Role::Main => None,
        };
        let handlers = crate::brain::Handlers {
            host: Arc::new(SessionHost::conversation(
                self.config.data_dir.clone(),
                ctx.address(),
                self.surface.clone(),
                self.config.approvals.clone(),
            )),
            tools: tools_backend::server(self, ctx.address()),
        };
        let configured = self.policy.mode;
        let refused = crate::permissions::bypass_refused_as_root();
        let (mode, notice) = crate::permissions::root_rule::launch_mode(configured, refused);
        if let Some(notice) = notice {
            tracing::warn!("bypassPermissions refused as root; starting in dontAsk");
            self.policy.mode = mode;
            self.show(SurfaceEvent::Notice(notice));
        }
        // `tool-policy.yaml` as it is now: the built-ins it grants are offered from this start on.
        let granted = self
            .tool_policy
            .current()
            .main_allowed(&self.config.data_dir);
        let fut = launch::start(
            self.config.clone(),
            *self.config.runtime.values(),
            launch::Launch {
                mode,
                saved: self.session_id.clone(),
                fork_start,
                granted,
                cleared: std::mem::take(&mut self.cleared_restart),
            },
            handlers,
        );
        ctx.wait(fut.into_actor(self).map(|res, act, ctx| {
            act.launching = false;
            match res {
                Ok(started) => {
                    act.memory_at_launch = crate::memory::stamp(&act.config.data_dir);
                    if started.fresh_session && matches!(act.role, Role::Main) {
                        act.fresh_after_failed_resume = act.session_id.is_some();
                        act.session_id = Some(started.session_id.clone());
                    }
                    if let Some(note) = started.note {
                        act.show(SurfaceEvent::Notice(note));
                    }
                    act.generation += 1;
                    let generation = act.generation;
                    let me = ctx.address();
                    let mut events = started.launched.events;
                    tokio::spawn(async move {
                        while let Some(event) = events.recv().await {
                            me.do_send(ProcessEvent { generation, event });
                        }
                    });
                    act.live = Some(Live {
                        driver: Arc::new(started.launched.driver),
                        generation,
                    });
                    act.flush(ctx);
                    act.arm_idle_release(ctx);
                }
                Err(e) => {
                    tracing::error!(cause = %e, "could not start the claude cli");
                    act.show(SurfaceEvent::Error(format!(
                        "-# couldn't start the assistant: {e}"
                    )));
                    for out in act.waiting.drain(..) {
                        act.job_turns.answer(
                            out.job,
                            JobTurnEnd::bare(
                                JobTurnOutcome::Failed,
                                format!("could not start the claude cli: {e}"),
                            ),
                        );
                    }
                }
            }
        }));
    }

    pub(super) fn on_result(&mut self, result: TurnResult, ctx: &mut Context<Self>) {
        // The CLI merges lines sent during a busy turn into one turn: every turn the result
        // names is over, and the last of them carries what the user sees.
        let answered: Vec<usize> = self
            .inflight
            .iter()
            .enumerate()
            .filter(|(_, t)| result.user_message_uuids.contains(&t.uuid))
            .map(|(i, _)| i)
            .collect();
        let mut merged = Vec::new();
        let turn = if answered.is_empty() {
            self.inflight.pop_front()
        } else {
            let mut last: Option<Turn> = None;
            let mut snooze = None;
            for i in answered.into_iter().rev() {
                let t = self.inflight.remove(i);
                snooze = snooze.or_else(|| t.as_ref().and_then(|t| t.snooze.clone()));
                if last.is_none() {
                    last = t;
                } else {
                    merged.extend(t);
                }
            }
            // Lines merged into one turn: a reminder's snooze stays with the answer.
            last.map(|mut t| {
                t.snooze = snooze;
                t
            })
        };
        let Some(turn) = turn else {
            tracing::debug!("result with no turn in flight");
            return;
        };
        // The memory changed other than through the file tools (a shell command, a hand edit):
        // committed as the turn ends, off the actor; unchanged, nothing is committed.
        let data = self.config.data_dir.clone();
        tokio::task::spawn_blocking(move || {
            crate::memory::versions::commit(&data, "changed during a turn")
        });
        if !result.session_id.is_empty() && self.session_id.as_deref() != Some(&result.session_id) {
            tracing::info!(session_id = %result.session_id, "main session id changed");
            self.session_id = Some(result.session_id.clone());
            if matches!(self.role, Role::Fork(_)) {
                self.show(SurfaceEvent::InteractiveForkSession(
                    result.session_id.clone(),
                ));
            }
        }
        if matches!(self.role, Role::Main) {
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
                self.job_turns.answer(t.job, end);
            }
        }
        match outcome {
            Outcome::Reply(text) => {
                self.show(SurfaceEvent::Reply(text));
                if let Some(snooze) = turn.snooze.clone() {
                    self.show(SurfaceEvent::SnoozeButtons(snooze));
                }
                self.last_context = Some(turn.context_used(&result));
                if let Some(line) = turn.context_line(&result) {
                    self.show(SurfaceEvent::Notice(line));
                }
                if matches!(self.role, Role::Main) {
                    self.maybe_flush_at_threshold(&turn, &result, ctx);
                }
            }
            Outcome::Resend(text) => {
                tracing::info!("compaction swallowed the message; sending it again");
                self.waiting.push_front(Outgoing {
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
                    self.waiting.push_front(Outgoing {
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
        self.last_result = Some(result);
        self.flush(ctx);
        if self.inflight.is_empty() && self.waiting.is_empty() {
            self.maybe_end_fork(ctx);
            self.arm_idle_release(ctx);
        }
    }

    /// Saves the session id after a turn and records what the change means in the history.
    pub(super) fn persist_session_id(&mut self, kind: TurnKind) {
        let Some(id) = self.session_id.clone() else {
            return;
        };
        let change = match self.id_file.save(&id) {
            Ok(change) => change,
            Err(e) => {
                tracing::error!(cause = %e, "could not save the main session id");
                if kind == TurnKind::Clear {
                    // The CLI has cleared already; what is not true is that it lasts.
                    self.show(SurfaceEvent::Notice(format!(
                        "-# couldn't save {}: {} — the conversation is cleared for now, but a \
                         restart would bring the old one back.",
                        self.id_file.path().display(),
                        e.cause()
                    )));
                }
                return;
            }
        };
        let record = |kind, parent: Option<&String>| RecordSession {
            kind,
            session_id: id.clone(),
            parent: parent.cloned(),
        };
        match (&change, kind) {
            (IdChange::Replaced { previous }, TurnKind::Clear) => self
                .records
                .do_send(record(EventKind::Cleared, Some(previous))),
            (IdChange::Replaced { .. }, _) if self.fresh_after_failed_resume => {
                self.fresh_after_failed_resume = false;
                self.records.do_send(record(EventKind::Created, None));
            }
            _ => self.records.do_send(NoteSavedId {
                session_id: id.clone(),
                change,
            }),
        }
    }
}
