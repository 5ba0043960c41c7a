//! The delivery task behind the [`Outbox`](super::outbox::Outbox): posts in the DM channel in
//! the order things happened, streaming answers with throttled edits (SPEC §12): the first flush
//! about 0.2 s after the answer starts, then at most one edit per 0.5 s per message; a status
//! line (`-# *Thinking... (3s)*`, tool labels) that ticks every second and becomes the reply when
//! text arrives; tool labels kept in the reply as `-# *Write(x)*` lines, denied ones struck
//! through; "no response — try again." for an empty answer; *(ours)* snooze buttons on `[bg]`
//! pings and, once a reminder's answer is complete, on its last message.

use actix::WeakAddr;
use ollim_actors::agent::permissions::{ApprovalAnswer, ApprovalRequest};
use ollim_actors::base::redaction;
use ollim_actors::conversation::surface::SurfaceEvent;
use serenity::all::{
    ChannelId, CreateAttachment, CreateMessage, EditMessage, Http, MessageId, ReactionType,
};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::answer::{Answer, Label};
use super::outbox::{BackgroundSettled, Outbox};
use super::render;
use super::stream::Target;

mod approvals;
mod records;
mod status;

/// The acknowledgement reaction.
pub const ACK_EMOJI: &str = "\u{1F440}";

/// Work queued by the outbox.
pub enum Job {
    /// Something the conversation or a fork shows.
    Event(SurfaceEvent),
    /// Ask the owner; the answer goes back on the sender.
    Approval(ApprovalRequest, oneshot::Sender<ApprovalAnswer>),
    /// A user message was taken up.
    BeginTurn {
        /// The message carrying the 👀.
        ack: Option<MessageId>,
    },
    /// A plain line; the sender learns when it is out.
    Post(String, oneshot::Sender<()>),
    /// Show "typing…" (a button click started a turn).
    Typing,
    /// Grey out the `agent:` buttons of this message (their 7 days are over).
    GreyAgentButtons(MessageId),
}

/// The task's state.
pub struct Delivery {
    http: Arc<Http>,
    channel: ChannelId,
    /// Told what was posted (approval prompts, background forks' messages). Weak, so the outbox
    /// still stops when the last of its users lets go (which ends this task).
    outbox: WeakAddr<Outbox>,
    answer: Answer,
    acks: Vec<MessageId>,
    /// The last message of the answer finished last (snooze buttons go on it).
    last_answer: Option<MessageId>,
    /// The messages of the answer in progress (recorded for the interactive fork, if any,
    /// once it is finished).
    answer_messages: Vec<MessageId>,
    /// The session of the interactive fork whose messages are being recorded.
    interactive_fork: Option<String>,
}

impl Delivery {
    /// A task posting to `channel` for `outbox`.
    pub fn new(http: Arc<Http>, channel: ChannelId, outbox: WeakAddr<Outbox>) -> Self {
        Self {
            http,
            channel,
            outbox,
            answer: Answer::default(),
            acks: Vec::new(),
            last_answer: None,
            answer_messages: Vec::new(),
            interactive_fork: None,
        }
    }

    /// Runs until the outbox goes away.
    pub async fn run(mut self, mut jobs: mpsc::UnboundedReceiver<Job>) {
        loop {
            let wake = [self.answer.flush_due(), self.answer.tick_due()]
                .into_iter()
                .flatten()
                .min();
            tokio::select! {
                job = jobs.recv() => match job {
                    Some(job) => self.handle(job).await,
                    None => break,
                },
                () = sleep_until(wake), if wake.is_some() => self.on_timer().await,
            }
        }
        tracing::debug!("delivery task ended");
    }

    async fn on_timer(&mut self) {
        let now = Instant::now();
        if self.answer.flush_due().is_some_and(|t| t <= now) {
            self.flush().await;
        }
        if self.answer.tick_due().is_some_and(|t| t <= now) {
            if let Some(s) = &mut self.answer.status {
                s.last_edit = now;
                if let Some(id) = s.message {
                    let text = s.text(now);
                    self.edit(id, text).await;
                }
            }
        }
    }

    async fn handle(&mut self, job: Job) {
        match job {
            Job::Event(ev) => self.event(ev.redacted()).await,
            Job::Approval(mut req, reply) => {
                req.label = redaction::redact(&req.label).into_owned();
                self.ask(req, reply).await
            }
            Job::BeginTurn { ack } => {
                self.finish_answer().await;
                self.acks.extend(ack);
                self.typing().await;
            }
            Job::Typing => self.typing().await,
            Job::GreyAgentButtons(id) => self.grey_agent_buttons(id).await,
            Job::Post(text, done) => {
                self.finish_answer().await;
                self.post(CreateMessage::new().content(redaction::redact(&text)))
                    .await;
                let _ = done.send(());
            }
        }
    }

    async fn event(&mut self, ev: SurfaceEvent) {
        match ev {
            SurfaceEvent::Status(label) => self.status(label).await,
            SurfaceEvent::ToolUse(label) => {
                self.answer.labels.push(Label::Ran(label.clone()));
                self.status(label).await;
            }
            SurfaceEvent::SubagentActivity(label) => self.relabel(label).await,
            SurfaceEvent::Denied { label, reason } => {
                self.answer.started.get_or_insert_with(Instant::now);
                // The label the call showed becomes its struck-through line.
                match self
                    .answer
                    .labels
                    .iter_mut()
                    .rev()
                    .find(|l| **l == Label::Ran(label.clone()))
                {
                    Some(l) => *l = Label::Denied { label, reason },
                    None => self.answer.labels.push(Label::Denied { label, reason }),
                }
            }
            SurfaceEvent::ToolFailed(label) => {
                // The call's label turns into its error line; a call shown denied stays so.
                if let Some(l) = self
                    .answer
                    .labels
                    .iter_mut()
                    .rev()
                    .find(|l| **l == Label::Ran(label.clone()))
                {
                    *l = Label::Failed(label);
                }
            }
            SurfaceEvent::TextDelta(text) => self.text(&text).await,
            SurfaceEvent::Reply(text) => {
                // Streamed text is the answer; otherwise the reply (never empty: the
                // conversation sends "no response — try again." for an empty turn).
                if self.answer.stream.is_empty() {
                    self.text(&text).await;
                }
                self.finish_answer().await;
                self.drop_acks().await;
            }
            SurfaceEvent::Error(text) => {
                self.finish_answer().await;
                self.post(CreateMessage::new().content(text)).await;
                self.drop_acks().await;
            }
            SurfaceEvent::Notice(text) => {
                self.flush_now().await;
                self.post(render::notice(&text)).await;
            }
            SurfaceEvent::UpdateQueued { job, waiting } => {
                self.flush_now().await;
                self.post(render::update_queued(&job, waiting)).await;
            }
            SurfaceEvent::Ping {
                text,
                fork_session,
                snooze,
            } => {
                let id = self.post(render::ping(&text, snooze.as_deref())).await;
                self.record_background(id, fork_session.as_deref());
            }
            SurfaceEvent::SnoozeButtons(snooze) => self.snooze_buttons(&snooze).await,
            SurfaceEvent::Embed {
                embed,
                button_ids,
                fork_session,
            } => {
                let id = self.post(render::embed_message(&embed, &button_ids)).await;
                self.record_sender(id, fork_session.as_deref());
                let agent = button_ids.iter().any(|b| {
                    matches!(
                        ollim_actors::agent::tools::ButtonClick::parse(b),
                        Some(ollim_actors::agent::tools::ButtonClick::Agent { .. })
                    )
                });
                if let (Some(id), true) = (id, agent) {
                    self.record_agent_buttons(id);
                }
            }
            SurfaceEvent::File { file, fork_session } => {
                self.flush_now().await;
                let mut msg = CreateMessage::new().add_file(CreateAttachment::bytes(
                    file.bytes.0.to_vec(),
                    file.name.clone(),
                ));
                if let Some(caption) = &file.caption {
                    msg = msg.content(caption.clone());
                }
                match self.channel.send_message(&*self.http, msg).await {
                    Ok(m) => self.record_sender(Some(m.id), fork_session.as_deref()),
                    Err(e) => {
                        tracing::warn!(file = %file.path.display(), cause = %e, "could not send a file");
                        let text = format!("-# couldn't send the file {}: {e}", file.name);
                        self.post(CreateMessage::new().content(text)).await;
                    }
                }
            }
            // After every message the fork posted before it (and their records): in order.
            SurfaceEvent::BackgroundEnded { fork_session } => match self.outbox.upgrade() {
                Some(outbox) => outbox.do_send(BackgroundSettled { fork_session }),
                None => tracing::debug!("the outbox has stopped; a fork's end is not noted"),
            },
            SurfaceEvent::ForkStarted { topic } => {
                self.finish_answer().await;
                self.post(render::fork_started(topic.as_deref())).await;
            }
            SurfaceEvent::ForkEnded(action) => {
                self.finish_answer().await;
                let id = self
                    .post(CreateMessage::new().embed(render::fork_ended(&action)))
                    .await;
                // A reply to the closing embed resumes the fork too; then recording stops.
                if let Some(session) = self.interactive_fork.take() {
                    self.record(id, &session, false);
                }
            }
            SurfaceEvent::InteractiveForkSession(session) => {
                self.interactive_fork = Some(session);
            }
            // The outbox hands it to the sign-in (`reauth`); nothing to post.
            SurfaceEvent::SignInLost => {}
        }
    }

    async fn text(&mut self, text: &str) {
        self.answer.started.get_or_insert_with(Instant::now);
        if let Some(status) = self.answer.status.take() {
            match status.message {
                // Nothing of this part is on screen yet: the status line becomes the reply.
                Some(id) if self.answer.current.is_none() => {
                    self.answer.current = Some(id);
                    self.answer_messages.push(id);
                    self.answer.stream.adopt_current();
                    self.answer.last_flush = Some(status.last_edit);
                }
                Some(id) => self.delete(id).await,
                None => {}
            }
        }
        self.answer.take_labels();
        self.answer.stream.push(text);
    }

    /// Shows what is pending now, waiting out the edit interval if needed.
    async fn flush_now(&mut self) {
        if let Some(due) = self.answer.flush_due() {
            if self.answer.last_flush.is_some() {
                tokio::time::sleep_until(due).await;
            }
            self.flush().await;
        }
    }

    async fn flush(&mut self) {
        for piece in self.answer.stream.flush() {
            match (piece.target, self.answer.current) {
                // Whole messages again: a secret may have streamed in two pieces.
                (Target::Current, Some(id)) => self.edit(id, piece.text).await,
                _ => {
                    let text = redaction::redact(&piece.text).into_owned();
                    let created = self.post(CreateMessage::new().content(text)).await;
                    self.answer_messages.extend(created);
                    self.answer.current = created;
                }
            }
        }
        self.answer.last_flush = Some(Instant::now());
    }

    /// Ends the answer in progress: labels and text out, the status line gone.
    async fn finish_answer(&mut self) {
        if self.answer.started.is_none() {
            return;
        }
        if !self.answer.stream.is_empty() {
            self.answer.take_labels();
        }
        if let Some(status) = self.answer.status.take() {
            if let Some(id) = status.message {
                if self.answer.current.is_none() && self.answer.stream.is_stale() {
                    self.answer.current = Some(id);
                    self.answer_messages.push(id);
                    self.answer.stream.adopt_current();
                    self.answer.last_flush = Some(status.last_edit);
                } else {
                    self.delete(id).await;
                }
            }
        }
        self.flush_now().await;
        self.last_answer = self.answer.current;
        self.answer = Answer::default();
        let posted = std::mem::take(&mut self.answer_messages);
        if let Some(session) = &self.interactive_fork {
            for id in posted {
                self.record(Some(id), session, false);
            }
        }
    }

    /// Puts the snooze buttons on the answer just finished (on a message of their own when it
    /// cannot be found or edited).
    async fn snooze_buttons(&mut self, snooze: &str) {
        self.finish_answer().await;
        if let Some(id) = self.last_answer {
            let edit = EditMessage::new().components(vec![render::snooze_row(snooze)]);
            match self.channel.edit_message(&*self.http, id, edit).await {
                Ok(_) => return,
                Err(e) => {
                    tracing::warn!(cause = %e, message = %id, "could not put snooze buttons on the answer")
                }
            }
        }
        let msg = CreateMessage::new()
            .content("-# snooze this reminder:")
            .components(vec![render::snooze_row(snooze)]);
        self.post(msg).await;
    }

    async fn typing(&self) {
        if let Err(e) = self.channel.broadcast_typing(&*self.http).await {
            tracing::debug!(cause = %e, "typing indicator failed");
        }
    }

    async fn drop_acks(&mut self) {
        let eyes = ReactionType::Unicode(ACK_EMOJI.to_owned());
        for id in std::mem::take(&mut self.acks) {
            if let Err(e) = self.http.delete_reaction_me(self.channel, id, &eyes).await {
                tracing::debug!(cause = %e, "could not remove the acknowledgement");
            }
        }
    }

    async fn post(&self, msg: CreateMessage) -> Option<MessageId> {
        match self.channel.send_message(&*self.http, msg).await {
            Ok(m) => Some(m.id),
            Err(e) => {
                tracing::warn!(cause = %e, "could not post in the dm channel");
                None
            }
        }
    }

    async fn edit(&self, id: MessageId, text: String) {
        let edit = EditMessage::new().content(redaction::redact(&text));
        if let Err(e) = self.channel.edit_message(&*self.http, id, edit).await {
            tracing::warn!(cause = %e, message = %id, "could not edit a message");
        }
    }

    async fn delete(&self, id: MessageId) {
        if let Err(e) = self.channel.delete_message(&*self.http, id).await {
            tracing::debug!(cause = %e, message = %id, "could not delete the status line");
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}
