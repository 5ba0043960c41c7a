//! The tap between the conversation and its surface: every [`SurfaceEvent`] goes on to the
//! surface (Discord or the console) unchanged, and a copy, as a [`ChatEvent`], to each
//! `ollim-bot chat` turn listening at the time.

use actix::prelude::*;
use tokio::sync::mpsc::UnboundedSender;

use super::ChatEvent;
use crate::conversation::surface::SurfaceEvent;

/// Forwards the conversation's events to the surface and to the chat turns listening.
pub struct SurfaceTap {
    surface: Recipient<SurfaceEvent>,
    listeners: Vec<UnboundedSender<ChatEvent>>,
}

impl SurfaceTap {
    /// A tap in front of `surface`.
    pub fn new(surface: Recipient<SurfaceEvent>) -> Self {
        Self {
            surface,
            listeners: Vec::new(),
        }
    }
}

impl Actor for SurfaceTap {
    type Context = Context<Self>;
}

/// Copies the events from now on to this sender, until it is closed.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Listen(pub UnboundedSender<ChatEvent>);

/// Answered once every event sent to the tap before it has been passed on.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct Sync;

impl Handler<SurfaceEvent> for SurfaceTap {
    type Result = ();
    fn handle(&mut self, ev: SurfaceEvent, _ctx: &mut Self::Context) {
        if let Some(copy) = chat_event(&ev) {
            self.listeners.retain(|l| l.send(copy.clone()).is_ok());
        }
        self.surface.do_send(ev);
    }
}

impl Handler<Listen> for SurfaceTap {
    type Result = ();
    fn handle(&mut self, Listen(sender): Listen, _ctx: &mut Self::Context) {
        self.listeners.retain(|l| !l.is_closed());
        self.listeners.push(sender);
    }
}

impl Handler<Sync> for SurfaceTap {
    type Result = ();
    fn handle(&mut self, _msg: Sync, _ctx: &mut Self::Context) {}
}

/// What `chat` shows of a conversation event (`None`: nothing, e.g. a status line).
pub fn chat_event(ev: &SurfaceEvent) -> Option<ChatEvent> {
    Some(match ev {
        SurfaceEvent::TextDelta(t) => ChatEvent::Text(t.clone()),
        SurfaceEvent::Reply(t) => ChatEvent::Reply(t.clone()),
        SurfaceEvent::ToolUse(label) => ChatEvent::Tool(label.clone()),
        SurfaceEvent::Denied { label, reason } => ChatEvent::Denied {
            label: label.clone(),
            reason: reason.clone(),
        },
        SurfaceEvent::ToolFailed(label) => {
            ChatEvent::Notice(crate::agent::permissions::label::failed_label(label))
        }
        SurfaceEvent::SubagentActivity(label) => ChatEvent::Tool(label.clone()),
        SurfaceEvent::Embed { embed, .. } => ChatEvent::Embed(embed.title.clone()),
        SurfaceEvent::Notice(t) | SurfaceEvent::Error(t) => ChatEvent::Notice(t.clone()),
        SurfaceEvent::Ping { text, .. } => ChatEvent::Notice(text.clone()),
        SurfaceEvent::UpdateQueued { job, waiting } => ChatEvent::Notice(
            crate::conversation::surface::update_queued_line(job, *waiting),
        ),
        SurfaceEvent::ForkStarted { topic } => ChatEvent::Notice(match topic {
            Some(t) => format!("── Forked Session: {t} ──"),
            None => "── Forked Session ──".to_owned(),
        }),
        SurfaceEvent::ForkEnded(_) => ChatEvent::Notice("── Fork Ended ──".to_owned()),
        SurfaceEvent::Status(_)
        | SurfaceEvent::SnoozeButtons(_)
        | SurfaceEvent::File { .. }
        | SurfaceEvent::InteractiveForkSession(_)
        | SurfaceEvent::SignInLost
        | SurfaceEvent::BackgroundEnded { .. } => return None,
    })
}
