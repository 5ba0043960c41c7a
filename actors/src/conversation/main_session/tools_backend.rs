//! The `discord` tools of the main session and of interactive forks: embeds and files go
//! straight to the surface (no budget: the user started this conversation), `enter_fork` starts a fork, and a
//! fork's `report_updates` and `exit_fork` choose how it ends (once the user has said something
//! in it) while `save_context` asks the user to confirm a save (`save_guard`). Context checks
//! and refusals live in [`crate::agent::tools::DiscordTools`]; this is the part that acts.

use std::sync::Arc;

use actix::prelude::*;

use super::fork_role::{EnterFork, MarkExit, Role};
use super::save_guard::{AskToSave, MayExit};
use super::MainSession;
use crate::agent::tools::SentFile;
use crate::agent::tools::{
    DiscordTools, Embed, Peer, Refusal, SessionKind, ToolBackend, Workspace,
};
use crate::claude::brain::{BoxFuture, ToolHandler};
use crate::conversation::surface::{ExitAction, SurfaceEvent};
use crate::records::pending_updates::{Append, PendingUpdates};
use crate::records::sessions::SessionRecords;

/// The tool server for `session`, acting through `addr`.
pub fn server(session: &MainSession, addr: Addr<MainSession>) -> Arc<dyn ToolHandler> {
    let kind = match session.forks.role {
        Role::Main => SessionKind::Main,
        Role::Fork(_) => SessionKind::InteractiveFork,
    };
    let idle = u32::try_from(session.config.runtime.values().fork_idle_timeout_mins).unwrap_or(10);
    let backend = SessionBackend {
        session: addr,
        surface: session.surface.clone(),
        pending: session.pending.clone(),
        records: session.records.clone(),
    };
    let place = Workspace {
        data_dir: session.config.data_dir.clone(),
        tz: session.config.tz,
        clock: session.config.clock.clone(),
    };
    Arc::new(DiscordTools::new(kind, place, Arc::new(backend)).with_fork_idle_timeout(idle))
}

struct SessionBackend {
    session: Addr<MainSession>,
    surface: Recipient<SurfaceEvent>,
    pending: Addr<PendingUpdates>,
    records: Addr<SessionRecords>,
}

impl SessionBackend {
    /// Marks how the fork ends, once the user has said something in it.
    fn mark(&self, action: ExitAction) -> BoxFuture<'_, Result<(), Refusal>> {
        let session = self.session.clone();
        Box::pin(async move {
            self.may_exit().await?;
            session
                .send(MarkExit(action))
                .await
                .map_err(|_| Refusal::ActorGone(Peer::InteractiveFork))
        })
    }

    /// Refused until the user has said something in the fork (or an idle nudge came).
    async fn may_exit(&self) -> Result<(), Refusal> {
        self.session
            .send(MayExit)
            .await
            .map_err(|_| Refusal::ActorGone(Peer::InteractiveFork))?
    }
}

impl ToolBackend for SessionBackend {
    fn ping(&self, _message: String, _critical: bool) -> BoxFuture<'_, Result<(), Refusal>> {
        Box::pin(async { Err(Refusal::PingOutsideBackground) })
    }

    fn embed(&self, embed: Embed, _critical: bool) -> BoxFuture<'_, Result<(), Refusal>> {
        Box::pin(async move {
            let button_ids =
                crate::conversation::buttons::custom_ids(&embed, &self.records, None).await?;
            self.surface.do_send(SurfaceEvent::Embed {
                embed,
                button_ids,
                fork_session: None,
            });
            Ok(())
        })
    }

    fn report(&self, message: String) -> BoxFuture<'_, Result<Option<String>, Refusal>> {
        let pending = self.pending.clone();
        Box::pin(async move {
            self.may_exit().await?;
            let queued = pending
                .send(Append {
                    message: message.clone(),
                })
                .await
                .map_err(|_| Refusal::ActorGone(Peer::PendingUpdates))?;
            self.mark(ExitAction::Report(message)).await?;
            Ok(queued.unsaved)
        })
    }

    fn follow_up(&self, _minutes: u32) -> BoxFuture<'_, Result<(), Refusal>> {
        Box::pin(async { Err(Refusal::NoReminderContext) })
    }

    fn save_context(&self) -> BoxFuture<'_, Result<(), Refusal>> {
        let session = self.session.clone();
        Box::pin(async move {
            session
                .send(AskToSave)
                .await
                .map_err(|_| Refusal::ActorGone(Peer::InteractiveFork))?
        })
    }

    fn enter_fork(&self, topic: Option<String>, idle: u32) -> BoxFuture<'_, Result<(), Refusal>> {
        let session = self.session.clone();
        Box::pin(async move {
            session
                .send(EnterFork {
                    topic,
                    idle_minutes: idle,
                    interrupt: true,
                    resume: None,
                })
                .await
                .map_err(|_| Refusal::ActorGone(Peer::MainSession))?
        })
    }

    fn exit_fork(&self) -> BoxFuture<'_, Result<(), Refusal>> {
        self.mark(ExitAction::Discard)
    }

    fn send_file(&self, file: SentFile) -> BoxFuture<'_, Result<(), Refusal>> {
        self.surface.do_send(SurfaceEvent::File {
            file,
            fork_session: None,
        });
        Box::pin(async { Ok(()) })
    }
}
