//! What a background fork does for each of its tool calls ([`ToolAction`], sent by its tool
//! backend): the budget path for pings and embeds — this fork's count, then whether the user is
//! mid-turn (the main session), then the ping budget, critical skipping all three (a file sent
//! with `send_file` takes the same path) — reports into pending updates, and chain follow-ups
//! written as reminder files. The handler is an
//! [`AtomicResponse`], so one call's steps complete before the next call is looked at.
//!
//! Before each thing the owner will see, the fork's run is marked in the run log and the mark
//! saved ([`RunTicket::mark`]): a ping before it goes out, a follow-up before its file is
//! written, a report before it is appended (and again once it is) — so a restart that cuts the
//! job off never re-runs what already reached the owner.

use actix::prelude::*;
use chrono::Duration;

use super::background::BackgroundFork;
use crate::jobs::{store, Job, JobId, Reminder};
use crate::main_session::IsBusy;
use crate::pending_updates::Append;
use crate::ping_budget::{PingDecision, RecordCritical, TryUse};
use crate::runs::RunMark;
use crate::surface::SurfaceEvent;
use crate::tools::{Embed, Peer, Refusal};

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
    /// `report_updates`.
    Report(String),
    /// `follow_up_chain`.
    FollowUp(u32),
    /// `send_file`, the file checked and read: it reaches the user like a ping.
    File(crate::tools::SentFile),
}

impl BackgroundFork {
    /// Delivers visible output (a ping or an embed) once the budget path allowed it.
    fn deliver(&mut self, event: SurfaceEvent) {
        self.output_sent = true;
        self.delivered = true;
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

    /// The budget path: this fork's count, then busy, then the budget. Critical skips all three.
    /// The handler's [`AtomicResponse`] keeps the fork's mailbox closed until this completes, so
    /// a second ping is decided only after the first one's count, busy and budget steps are done.
    fn gated(
        &mut self,
        event: SurfaceEvent,
        critical: bool,
    ) -> ResponseActFuture<Self, Result<(), Refusal>> {
        let marked = self.mark(RunMark::Pinged);
        if critical {
            self.peers.budget.do_send(RecordCritical);
            return Box::pin(marked.into_actor(self).map(move |(), act, _ctx| {
                act.deliver(event);
                Ok(())
            }));
        }
        if self.pings_sent >= 1 {
            return Box::pin(fut::ready(Err(Refusal::AlreadyPinged)));
        }
        let busy = self.peers.busy.clone();
        let budget = self.peers.budget.clone();
        Box::pin(
            async move {
                match busy.send(IsBusy).await {
                    Ok(true) => return Err(Refusal::UserBusy),
                    Ok(false) => {}
                    Err(_) => return Err(Refusal::ActorGone(Peer::MainSession)),
                }
                match budget.send(TryUse).await {
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
                    act.pings_sent += 1;
                    act.deliver(event);
                }
                res
            }),
        )
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
        };
        let data = &self.config.data_dir;
        let path = store::write(&data.reminders(), &next)
            .map_err(|e| Refusal::FollowUpNotScheduled(e.to_string()))?;
        data.commit(
            &path,
            &format!("add reminder {} (chain follow-up)", next.id),
        );
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
    /// Carries out one tool call.
    fn act(&mut self, action: ToolAction) -> ResponseActFuture<Self, Result<(), Refusal>> {
        match action {
            ToolAction::Ping { message, critical } => {
                let event = SurfaceEvent::Ping {
                    text: message,
                    fork_session: self.session_id.clone(),
                };
                self.gated(event, critical)
            }
            ToolAction::Embed { embed, critical } => {
                let records = self.peers.records.clone();
                let session = self.session_id.clone();
                Box::pin(
                    async move {
                        let ids = crate::buttons::custom_ids(&embed, &records, session.as_deref());
                        ids.await.map(|button_ids| (embed, button_ids))
                    }
                    .into_actor(self)
                    .then(move |built, act, _ctx| match built {
                        Ok((embed, button_ids)) => {
                            let event = SurfaceEvent::Embed {
                                embed,
                                button_ids,
                                fork_session: act.session_id.clone(),
                            };
                            act.gated(event, critical)
                        }
                        Err(refusal) => Box::pin(fut::ready(Err(refusal))),
                    }),
                )
            }
            ToolAction::Report(message) => {
                self.reported = true;
                self.output_sent = false;
                let pending = self.peers.pending.clone();
                let reporting = self.mark(RunMark::Reporting(message.clone()));
                let reported = self.mark(RunMark::Reported);
                Box::pin(
                    async move {
                        reporting.await;
                        pending
                            .send(Append { message })
                            .await
                            .map_err(|_| Refusal::ActorGone(Peer::PendingUpdates))?;
                        reported.await;
                        Ok(())
                    }
                    .into_actor(self),
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
                let event = SurfaceEvent::File {
                    file,
                    fork_session: self.session_id.clone(),
                };
                self.gated(event, false)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration as StdDuration;

    use actix::prelude::*;
    use chrono::TimeZone;
    use tokio::sync::oneshot;

    use super::super::background::{BackgroundConfig, BackgroundJob, BackgroundPeers};
    use super::*;
    use crate::brain::idle::IdleLauncher;
    use crate::clock::ManualClock;
    use crate::data_dir::DataDir;
    use crate::jobs::JobSettings;
    use crate::jobs::Routine;
    use crate::pending_updates::PendingUpdates;
    use crate::ping_budget::PingBudget;
    use crate::sessions::SessionRecords;

    /// Stands in for the main session: the first `IsBusy` says so to the test and answers
    /// `first` only once released; later ones answer "not busy" at once.
    struct Busy {
        first: bool,
        asked: Option<oneshot::Sender<()>>,
        release: Option<oneshot::Receiver<()>>,
    }

    impl Actor for Busy {
        type Context = Context<Self>;
    }

    impl Handler<IsBusy> for Busy {
        type Result = ResponseFuture<bool>;
        fn handle(&mut self, _msg: IsBusy, _ctx: &mut Self::Context) -> Self::Result {
            let (Some(asked), Some(release)) = (self.asked.take(), self.release.take()) else {
                return Box::pin(async { false });
            };
            let _ = asked.send(());
            let first = self.first;
            Box::pin(async move {
                let _ = release.await;
                first
            })
        }
    }

    /// Keeps the pings it is shown.
    #[derive(Default)]
    struct Screen(Vec<String>);

    impl Actor for Screen {
        type Context = Context<Self>;
    }

    impl Handler<SurfaceEvent> for Screen {
        type Result = ();
        fn handle(&mut self, ev: SurfaceEvent, _ctx: &mut Self::Context) {
            if let SurfaceEvent::Ping { text, .. } = ev {
                self.0.push(text);
            }
        }
    }

    #[derive(Message)]
    #[rtype(result = "Vec<String>")]
    struct Shown;

    impl Handler<Shown> for Screen {
        type Result = MessageResult<Shown>;
        fn handle(&mut self, _msg: Shown, _ctx: &mut Self::Context) -> Self::Result {
            MessageResult(self.0.clone())
        }
    }

    /// Two pings sent to one fork back to back, the first one's busy check answered `busy`
    /// only after both are in the fork's mailbox; the results of both and the pings shown.
    async fn two_pings(busy: bool) -> (Result<(), Refusal>, Result<(), Refusal>, Vec<String>) {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let tz = chrono_tz::America::New_York;
        let clock = ManualClock::new(chrono::Utc.with_ymd_and_hms(2026, 3, 2, 14, 0, 0).unwrap());
        let (asked_tx, asked) = oneshot::channel();
        let (release, release_rx) = oneshot::channel();
        let busy = Busy {
            first: busy,
            asked: Some(asked_tx),
            release: Some(release_rx),
        }
        .start();
        let screen = Screen::default().start();
        let config = BackgroundConfig {
            data_dir: data.clone(),
            tz,
            clock: clock.shared(),
            launcher: Arc::new(IdleLauncher),
            binary: "claude".into(),
            system_prompt: String::new(),
            timeout: StdDuration::from_secs(3600),
            cli_env: Default::default(),
        };
        let peers = BackgroundPeers {
            surface: screen.clone().recipient(),
            pending: PendingUpdates::in_data_dir(&data, clock.shared(), tz).start(),
            budget: PingBudget::in_data_dir(&data, clock.shared(), tz).start(),
            busy: busy.recipient(),
            records: SessionRecords::in_data_dir(&data, clock.shared(), tz).start(),
        };
        let job = BackgroundJob {
            job: Job::Routine(Routine {
                id: JobId("a1b2c3d4".into()),
                message: "check in".into(),
                cron: "0 9 * * *".into(),
                settings: JobSettings {
                    background: true,
                    ..JobSettings::default()
                },
                paused: false,
                catch_up: Default::default(),
            }),
            prompt: "[routine-bg:a1b2c3d4] check in".into(),
            rel_path: "routines/check-in.md".into(),
            run: None,
        };
        let (done, _ended) = oneshot::channel();
        let fork = BackgroundFork::new(config, peers, job, None, done).start();
        let ping = |text: &str| {
            fork.send(ToolAction::Ping {
                message: text.to_owned(),
                critical: false,
            })
        };
        let first = actix_rt::spawn(ping("[bg] one"));
        let second = actix_rt::spawn(ping("[bg] two"));
        asked.await.unwrap();
        release.send(()).unwrap();
        let first = first.await.unwrap().unwrap();
        let second = second.await.unwrap().unwrap();
        (first, second, screen.send(Shown).await.unwrap())
    }

    #[actix_rt::test]
    async fn a_ping_refused_as_busy_spends_nothing_so_the_next_one_is_decided_afresh() {
        let (first, second, shown) = two_pings(true).await;
        assert_eq!(first, Err(Refusal::UserBusy));
        assert_eq!(second, Ok(()));
        assert_eq!(shown, vec!["[bg] two".to_owned()]);
    }

    #[actix_rt::test]
    async fn a_ping_sent_while_the_first_is_being_decided_waits_and_is_then_refused() {
        let (first, second, shown) = two_pings(false).await;
        assert_eq!(first, Ok(()));
        assert_eq!(second, Err(Refusal::AlreadyPinged));
        assert_eq!(shown, vec!["[bg] one".to_owned()]);
    }
}
