//! Driving the conversation's turns: sending lines, interrupting, starting the process (what
//! happens when a turn's result comes is in `turn_end`, its stream of events in
//! `brain_events`). Split from the actor's definition (`mod.rs`) to keep each file about one
//! thing.

use std::sync::Arc;
use std::time::Instant;

use actix::prelude::*;

use super::fork_role::Role;
use super::host::SessionHost;
use super::job_turns::{JobTurnEnd, JobTurnOutcome};
use super::turn::{Turn, TurnKind};
use super::{launch, tools_backend, Live, MainSession, Outgoing, ProcessEvent};
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
        let handlers = crate::claude::brain::Handlers {
            host: Arc::new(SessionHost::conversation(
                self.config.data_dir.clone(),
                ctx.address(),
                self.surface.clone(),
                self.config.approvals.clone(),
            )),
            tools: tools_backend::server(self, ctx.address()),
        };
        let configured = self.policy.mode;
        let refused = crate::agent::permissions::bypass_refused_as_root();
        let (mode, notice) = crate::agent::permissions::root_rule::launch_mode(configured, refused);
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
                    act.memory_at_launch = crate::agent::memory::stamp(&act.config.data_dir);
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
}
