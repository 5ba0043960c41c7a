//! Which fork sent what the delivery task posts (`state/fork_messages.json`, through the
//! outbox): a background fork's pings, embeds and files, and *(ours, as the original since
//! March)* the interactive fork's answers, embeds, files and its closing "Fork Ended" embed, so a
//! reply to any of them resumes that fork. *(ours, issue 37)* Also which messages carry
//! `agent:` buttons (`state/agent_buttons.json`, through the outbox), greyed out here once
//! their 7 days are over.

use serenity::all::{EditMessage, MessageId};

use super::super::outbox::{AgentButtonsPosted, ForkMessagePosted};
use super::super::render;
use super::Delivery;

impl Delivery {
    /// Records a background fork's message.
    pub(super) fn record_background(&self, id: Option<MessageId>, fork_session: Option<&str>) {
        if let Some(session) = fork_session {
            self.record(id, session, true);
        }
    }

    /// Records an embed or a file against the background fork that sent it, or else the
    /// interactive fork running now, if any.
    pub(super) fn record_sender(&self, id: Option<MessageId>, fork_session: Option<&str>) {
        match (fork_session, &self.interactive_fork) {
            (Some(session), _) => self.record(id, session, true),
            (None, Some(session)) => self.record(id, session, false),
            (None, None) => {}
        }
    }

    /// Tells the outbox that `id` carries `agent:` buttons (greyed out once they expire).
    pub(super) fn record_agent_buttons(&self, id: MessageId) {
        match self.outbox.upgrade() {
            Some(outbox) => outbox.do_send(AgentButtonsPosted {
                message_id: id.get(),
            }),
            None => tracing::warn!("the outbox has stopped; a message's buttons are not recorded"),
        }
    }

    /// Greys out the `agent:` buttons of `id` (their 7 days are over).
    pub(super) async fn grey_agent_buttons(&self, id: MessageId) {
        let message = match self.channel.message(&*self.http, id).await {
            Ok(message) => message,
            Err(e) => {
                tracing::debug!(cause = %e, message = %id, "could not read a message with expired buttons");
                return;
            }
        };
        let Some(rows) = render::with_agent_buttons_disabled(&message.components) else {
            return;
        };
        let edit = EditMessage::new().components(rows);
        match self.channel.edit_message(&*self.http, id, edit).await {
            Ok(_) => tracing::info!(message = %id, "greyed out expired agent buttons"),
            Err(e) => {
                tracing::debug!(cause = %e, message = %id, "could not grey out expired buttons")
            }
        }
    }

    pub(super) fn record(&self, id: Option<MessageId>, session: &str, background: bool) {
        let Some(id) = id else {
            return;
        };
        match self.outbox.upgrade() {
            Some(outbox) => outbox.do_send(ForkMessagePosted {
                message_id: id.get(),
                fork_session: session.to_owned(),
                background,
            }),
            None => tracing::warn!("the outbox has stopped; a fork message is not recorded"),
        }
    }
}
