//! The Outbox actor: everything the bot posts in the owner's DM channel (SPEC §5, §12). The
//! conversation, forks and commands send it typed messages; it hands them, in order, to one
//! delivery task that owns the channel's outgoing traffic (creates, throttled edits, reactions).

use std::sync::Arc;

use actix::prelude::*;
use ollim_actors::data_dir::DataDir;
use ollim_actors::permissions::{ApprovalAnswer, ApprovalRequest};
use ollim_actors::sessions::{ForkMessages, MainSessionFile};
use ollim_actors::surface::SurfaceEvent;
use serenity::all::{ChannelId, Http, MessageId};
use tokio::sync::{mpsc, oneshot};

use super::approvals::Approvals;
use super::delivery::{Delivery, Job};

/// The actor; its handlers only queue work for the delivery task.
pub struct Outbox {
    jobs: mpsc::UnboundedSender<Job>,
}

/// Where the outbox posts and what it needs to record.
pub struct OutboxConfig {
    /// The REST client.
    pub http: Arc<Http>,
    /// The owner's DM channel.
    pub channel: ChannelId,
    /// Open approval prompts (shared with the reaction handler).
    pub approvals: Approvals,
    /// The data directory (`state/fork_messages.json`, `state/sessions.json`).
    pub data_dir: DataDir,
}

impl Outbox {
    /// Starts the actor and its delivery task.
    pub fn start(config: OutboxConfig) -> Addr<Outbox> {
        let (jobs, rx) = mpsc::unbounded_channel();
        let clock = ollim_actors::clock::SystemClock::shared();
        let delivery = Delivery::new(
            config.http,
            config.channel,
            config.approvals,
            ForkMessages::in_data_dir(&config.data_dir, clock),
            MainSessionFile::in_data_dir(&config.data_dir),
        );
        tokio::spawn(delivery.run(rx));
        Outbox { jobs }.start()
    }

    fn queue(&self, job: Job) {
        if self.jobs.send(job).is_err() {
            tracing::warn!(
                actor = "outbox",
                "delivery task has ended; dropping a message"
            );
        }
    }
}

impl Actor for Outbox {
    type Context = Context<Self>;

    fn started(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "outbox", "outbox started");
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "outbox", "outbox stopped");
    }
}

/// A user message was taken up: the answer in progress (if any) is finished off, and the 👀 on
/// `ack` comes off once the next answer ends.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct BeginTurn {
    /// The user's message carrying the 👀.
    pub ack: Option<MessageId>,
}

/// A plain line from the bot itself (the shutdown notice); answered once it has been posted.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct Post(pub String);

impl Handler<SurfaceEvent> for Outbox {
    type Result = ();
    fn handle(&mut self, ev: SurfaceEvent, _ctx: &mut Self::Context) {
        self.queue(Job::Event(ev));
    }
}

impl Handler<BeginTurn> for Outbox {
    type Result = ();
    fn handle(&mut self, msg: BeginTurn, _ctx: &mut Self::Context) {
        self.queue(Job::BeginTurn { ack: msg.ack });
    }
}

impl Handler<Post> for Outbox {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, Post(text): Post, _ctx: &mut Self::Context) -> Self::Result {
        let (tx, rx) = oneshot::channel();
        self.queue(Job::Post(text, tx));
        Box::pin(async move {
            let _ = rx.await;
        })
    }
}

impl Handler<ApprovalRequest> for Outbox {
    type Result = ResponseFuture<ApprovalAnswer>;
    fn handle(&mut self, req: ApprovalRequest, _ctx: &mut Self::Context) -> Self::Result {
        let (tx, rx) = oneshot::channel();
        self.queue(Job::Approval(req, tx));
        Box::pin(async move { rx.await.unwrap_or(ApprovalAnswer::Deny) })
    }
}
