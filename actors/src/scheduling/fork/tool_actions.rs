//! What a background fork does for each of its tool calls ([`ToolAction`], sent by its tool
//! backend): the budget path for pings, embeds and files sent with `send_file` — this fork's
//! count, then *(ours)* quiet hours, then whether the user is mid-turn (the main session), then
//! the ping budget (which first refuses a ping or embed text this job sent in the last 24
//! hours), critical skipping them all — the snooze a ping's buttons press, reports into pending
//! updates, and chain follow-ups written as reminder files. The handler is an
//! [`AtomicResponse`], so one call's steps complete before the next call is looked at.
//!
//! Before each thing the owner will see, the fork's run is marked in the run log and the mark
//! saved ([`RunTicket::mark`]): a ping before it goes out, a follow-up before its file is
//! written, a report before it is appended (and again once it is) — so a restart that cuts the
//! job off never re-runs what already reached the owner.

use actix::prelude::*;
use chrono::Duration;

use super::background::{human_name, mode, BackgroundFork};
use crate::agent::tools::{Embed, Peer, Refusal};
use crate::conversation::main_session::{IsBusy, QuietHoursNow};
use crate::conversation::surface::SurfaceEvent;
use crate::jobs::{store, Job, JobId, Reminder, UpdateMode};
use crate::records::pending_updates::Append;
use crate::records::ping_budget::{NoteSent, PingDecision, RecordCritical, TrySend, TryUse};
use crate::records::runs::RunMark;
use crate::records::sessions::records::RegisterSnooze;

/// A tool call for the fork to carry out.
#[derive(Debug, Message)]
#[rtype(result = "Result<(), Refusal>")]
pub enum ToolAction {
    /// `ping_user`.
    Ping {
        /// The text.
        message: String,
        /// Skips the checks.
        critical: bool,
    },
    /// `discord_embed`.
    Embed {
        /// The embed.
        embed: Embed,
        /// Skips the checks.
        critical: bool,
    },
    /// `follow_up_chain`.
    FollowUp(u32),
    /// `send_file`, the file checked and read: it reaches the user like a ping.
    File(crate::agent::tools::SentFile),
}

impl BackgroundFork {
    /// Delivers visible output (a ping or an embed) once the budget path allowed it.
    fn deliver(&mut self, event: SurfaceEvent) {
        self.activity.unreported_output = true;
        self.activity.delivered = true;
        self.peers.surface.do_send(event);
    }

    /// Marks this fork's run (when it has one) and waits until the mark is saved.
    fn mark(&self, mark: RunMark) -> impl std::future::Future<Output = ()> + 'static {
        let ticket = self.fired.run.clone();
        async move {
            if let Some(ticket) = ticket {
                ticket.mark(mark).await;
            }
        }
    }

    /// The budget path for output whose words are `text` (`None` for a file, which is never
    /// held against an earlier one): this fork's count, then quiet hours (the main session),
    /// then busy (the main session), then the ping budget, which refuses a text this job sent
    /// in the last 24 hours before it spends a token. Critical skips them all and is recorded.
    /// Only output that passes marks the run as pinged, before it goes out. The handler's
    /// [`AtomicResponse`] keeps the fork's mailbox closed until this and the delivery complete,
    /// so a second ping is decided only after the first.
    fn checks(
        &mut self,
        text: Option<String>,
        critical: bool,
    ) -> ResponseActFuture<Self, Result<(), Refusal>> {
        let marked = self.mark(RunMark::Pinged);
        let job = self.fired.job.id().to_string();
        if critical {
            self.peers.budget.do_send(RecordCritical);
            if let Some(text) = text {
                self.peers.budget.do_send(NoteSent { job, text });
            }
            return Box::pin(marked.into_actor(self).map(|(), _act, _ctx| Ok(())));
        }
        if self.activity.pings_sent >= 1 {
            return Box::pin(fut::ready(Err(Refusal::AlreadyPinged)));
        }
        let quiet = self.peers.quiet.clone();
        let busy = self.peers.busy.clone();
        let budget = self.peers.budget.clone();
        Box::pin(
            async move {
                match quiet.send(QuietHoursNow).await {
                    Ok(now) => {
                        if let Some(until) = now.until_text() {
                            return Err(Refusal::QuietHours { until });
                        }
                    }
                    Err(_) => return Err(Refusal::ActorGone(Peer::MainSession)),
                }
                match busy.send(IsBusy).await {
                    Ok(true) => return Err(Refusal::UserBusy),
                    Ok(false) => {}
                    Err(_) => return Err(Refusal::ActorGone(Peer::MainSession)),
                }
                let decision = match text {
                    Some(text) => budget.send(TrySend { job, text }).await,
                    None => budget.send(TryUse).await,
                };
                match decision {
                    Ok(PingDecision::Allowed { .. }) => {}
                    Ok(PingDecision::Refused { reason }) => return Err(reason.into()),
                    Err(_) => return Err(Refusal::ActorGone(Peer::PingBudget)),
                }
                marked.await;
                Ok(())
            }
            .into_actor(self)
            .map(move |res, act, _ctx| {
                if res.is_ok() {
                    act.activity.pings_sent += 1;
                }
                res
            }),
        )
    }

    /// The snooze the ping's buttons press, stored through the session records; `None` (no
    /// buttons, logged) for webhook jobs or when it cannot be stored.
    fn register_snooze(&self) -> impl std::future::Future<Output = Option<String>> {
        let template = crate::records::snooze::template_for(
            &self.fired.job,
            self.config.clock.now(),
            self.config.tz,
        );
        let records = self.peers.records.clone();
        async move {
            let reminder = crate::records::snooze::stored_form(&template?);
            match records.send(RegisterSnooze { reminder }).await {
                Ok(Ok(id)) => Some(id),
                Ok(Err(e)) => {
                    tracing::error!(cause = %e, "could not store a ping's snooze; sent without buttons");
                    None
                }
                Err(_) => {
                    tracing::error!(
                        "the session records have stopped; ping sent without snooze buttons"
                    );
                    None
                }
            }
        }
    }

    /// Whether this fork's job may schedule a follow-up at all.
    fn may_follow_up(&self) -> Result<&Reminder, Refusal> {
        let Job::Reminder(current) = &self.fired.job else {
            return Err(Refusal::NoReminderContext);
        };
        if current.max_chain == 0 {
            return Err(Refusal::NoReminderContext);
        }
        if current.chain_depth >= current.max_chain {
            return Err(Refusal::ChainLimitReached);
        }
        Ok(current)
    }

    fn follow_up(&self, minutes: u32) -> Result<(), Refusal> {
        let current = self.may_follow_up()?;
        let at = (self.config.clock.now() + Duration::minutes(i64::from(minutes)))
            .with_timezone(&self.config.tz)
            .fixed_offset();
        let next = Reminder {
            id: JobId::random(),
            message: current.message.clone(),
            run_at: at,
            run_at_raw: crate::jobs::reminder::format_run_at(at),
            chain_depth: current.chain_depth + 1,
            max_chain: current.max_chain,
            chain_parent: Some(
                current
                    .chain_parent
                    .clone()
                    .unwrap_or_else(|| current.id.0.clone()),
            ),
            settings: current.settings.clone(),
            background_as_read: None,
        };
        let data = &self.config.data_dir;
        let path = store::write(&data.reminders(), &next)
            .map_err(|e| Refusal::FollowUpNotScheduled(e.to_string()))?;
        // git runs at background priority: never on the actors' thread, where the
        // conversation would wait for it.
        let (data, message) = (
            data.clone(),
            format!("add reminder {} (chain follow-up)", next.id),
        );
        std::thread::spawn(move || data.commit(&path, &message));
        tracing::info!(job = %current.id, next = %next.id, minutes, "chain follow-up scheduled");
        Ok(())
    }
}

impl Handler<ToolAction> for BackgroundFork {
    type Result = AtomicResponse<Self, Result<(), Refusal>>;

    fn handle(&mut self, action: ToolAction, _ctx: &mut Self::Context) -> Self::Result {
        AtomicResponse::new(self.act(action))
    }
}

impl BackgroundFork {
    /// Carries out one tool call; a refusal is counted and logged.
    fn act(&mut self, action: ToolAction) -> ResponseActFuture<Self, Result<(), Refusal>> {
        let done = self.carry_out(action);
        Box::pin(done.map(|res, act, _ctx| {
            if let Err(refusal) = &res {
                if !matches!(refusal, Refusal::ActorGone(_)) {
                    act.activity.refusals += 1;
                }
                tracing::info!(job = %act.fired.job.id(), reason = %refusal, "tool call refused");
            }
            res
        }))
    }

    fn carry_out(&mut self, action: ToolAction) -> ResponseActFuture<Self, Result<(), Refusal>> {
        match action {
            ToolAction::Ping { message, critical } => {
                Box::pin(self.checks(Some(message.clone()), critical).then(
                    move |res, act, _ctx| -> ResponseActFuture<Self, Result<(), Refusal>> {
                        if let Err(refusal) = res {
                            return Box::pin(fut::ready(Err(refusal)));
                        }
                        Box::pin(act.register_snooze().into_actor(act).map(
                            move |snooze, act, _ctx| {
                                let event = SurfaceEvent::Ping {
                                    text: message,
                                    fork_session: act.session_id.clone(),
                                    snooze,
                                };
                                act.deliver(event);
                                Ok(())
                            },
                        ))
                    },
                ))
            }
            ToolAction::Embed { embed, critical } => {
                let records = self.peers.records.clone();
                let session = self.session_id.clone();
                Box::pin(
                    async move {
                        let ids = crate::conversation::buttons::custom_ids(
                            &embed,
                            &records,
                            session.as_deref(),
                        );
                        ids.await.map(|button_ids| (embed, button_ids))
                    }
                    .into_actor(self)
                    .then(
                        move |built, act, _ctx| -> ResponseActFuture<Self, Result<(), Refusal>> {
                            match built {
                                Ok((embed, button_ids)) => {
                                    let text = embed.to_plain_text();
                                    Box::pin(act.checks(Some(text), critical).map(
                                        move |res, act, _ctx| {
                                            res.map(|()| {
                                                let event = SurfaceEvent::Embed {
                                                    embed,
                                                    button_ids,
                                                    fork_session: act.session_id.clone(),
                                                };
                                                act.deliver(event);
                                            })
                                        },
                                    ))
                                }
                                Err(refusal) => Box::pin(fut::ready(Err(refusal))),
                            }
                        },
                    ),
                )
            }
            ToolAction::FollowUp(minutes) => {
                if let Err(refusal) = self.may_follow_up() {
                    return Box::pin(fut::ready(Err(refusal)));
                }
                Box::pin(
                    self.mark(RunMark::FollowedUp)
                        .into_actor(self)
                        .map(move |(), act, _ctx| act.follow_up(minutes)),
                )
            }
            ToolAction::File(file) => {
                Box::pin(self.checks(None, file.critical).map(move |res, act, _ctx| {
                    res.map(|()| {
                        let event = SurfaceEvent::File {
                            file,
                            fork_session: act.session_id.clone(),
                        };
                        act.deliver(event);
                    })
                }))
            }
        }
    }
}

/// `report_updates` in a background fork: answered with why the update is held in memory
/// only, when its file could not be written (see [`crate::records::pending_updates::Queued`]).
#[derive(Debug, Message)]
#[rtype(result = "Result<Option<String>, Refusal>")]
pub struct Report(pub String);

impl Handler<Report> for BackgroundFork {
    type Result = AtomicResponse<Self, Result<Option<String>, Refusal>>;

    fn handle(&mut self, Report(message): Report, _ctx: &mut Self::Context) -> Self::Result {
        AtomicResponse::new(self.report(message))
    }
}

impl BackgroundFork {
    /// Queues the fork's report for the main session.
    fn report(
        &mut self,
        message: String,
    ) -> ResponseActFuture<Self, Result<Option<String>, Refusal>> {
        // The second hop (SPEC §20): words a fork passes on after reading outside text
        // reach the main session marked as such.
        let message = if self.read_outside_text() {
            crate::agent::outside_reads::marked(&message)
        } else {
            message
        };
        self.activity.reported = true;
        self.activity.unreported_output = false;
        let pending = self.peers.pending.clone();
        let reporting = self.mark(RunMark::Reporting(message.clone()));
        let reported = self.mark(RunMark::Reported);
        // *(ours)* An `always` job reports every run and pings rarely: the owner is
        // told an update waits, rather than finding out only when they next write.
        let announce = (mode(&self.fired) == UpdateMode::Always)
            .then(|| (self.peers.surface.clone(), human_name(&self.fired)));
        Box::pin(
            async move {
                reporting.await;
                let queued = pending
                    .send(Append { message })
                    .await
                    .map_err(|_| Refusal::ActorGone(Peer::PendingUpdates))?;
                reported.await;
                if let Some((surface, job)) = announce {
                    surface.do_send(SurfaceEvent::UpdateQueued {
                        job,
                        waiting: queued.len,
                    });
                }
                Ok(queued.unsaved)
            }
            .into_actor(self),
        )
    }
}

#[cfg(test)]
#[path = "tool_actions_tests.rs"]
mod tests;
