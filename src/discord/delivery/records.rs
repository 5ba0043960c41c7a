//! Which fork sent what the delivery task posts (`state/fork_messages.json`, through the
//! outbox): a background fork's pings, embeds and files, and *(ours, as the original since
//! March)* the interactive fork's answers, embeds, files and its closing "Fork Ended" embed, so a
//! reply to any of them resumes that fork.

use serenity::all::MessageId;

use super::super::outbox::ForkMessagePosted;
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
