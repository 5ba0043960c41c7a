//! The Outbox actor: everything the bot posts in the owner's DM channel (SPEC §5, §12). The
//! conversation, forks and commands send it typed messages; it hands them, in order, to one
//! delivery task that owns the channel's outgoing traffic (creates, throttled edits, reactions).
//!
//! It also owns what that traffic leaves behind: the approval prompts waiting for a reaction
//! ([`AnswerApproval`] from the reaction handler, [`ExpireApproval`] after 60 s) and the record
//! of which messages background forks sent, `state/fork_messages.json` ([`LookupForkMessage`]
//! from the message handler, for replies that resume a fork), with which of those forks are still
//! running ([`UntilSettled`]: a reply resumes a fork's session once its process has exited and
//! its transcript holds what the owner saw), and *(ours, issue 37)* which messages carry
//! `agent:` buttons, `state/agent_buttons.json` ([`AgentButtonsPosted`]), greyed out on start
//! and every [`button_expiry::SWEEP`] once their 7 days are over. The delivery task reports what
//! it posted back to the actor.

use std::collections::HashMap;
use std::sync::Arc;

use actix::prelude::*;
use ollim_actors::agent::permissions::{ApprovalAnswer, ApprovalRequest};
use ollim_actors::base::clock::SharedClock;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::conversation::surface::SurfaceEvent;
use ollim_actors::records::sessions::{ForkLookup, ForkMessages, MainSessionFile};
use serenity::all::{ChannelId, Http, MessageId};
use tokio::sync::{mpsc, oneshot};

use super::approvals::{Closed, OpenApprovals};
use super::button_expiry::{self, ButtonMessages};
use super::delivery::{Delivery, Job};
use super::reauth::SignInLost;

/// The actor; its handlers queue work for the delivery task and keep what it posted.
pub struct Outbox {
    jobs: mpsc::UnboundedSender<Job>,
    /// Approval prompts waiting for a reaction.
    approvals: OpenApprovals,
    /// `state/fork_messages.json`: this actor is its one writer.
    fork_messages: ForkMessages,
    /// The main session's id, read as the parent of a recorded fork message.
    main_id: MainSessionFile,
    /// `state/agent_buttons.json`: this actor is its one writer.
    button_messages: ButtonMessages,
    /// When messages were posted and when their buttons expire.
    clock: SharedClock,
    /// Background sessions that posted since the start and whose fork still runs, with the
    /// replies waiting for it to end.
    running: HashMap<String, Vec<oneshot::Sender<()>>>,
    /// Told when a turn finds Claude Code signed out.
    reauth: Recipient<SignInLost>,
    /// The owner's lines sent to the conversation, for the shutdown drain.
    owner_lines: crate::drain::Sent,
    /// Answers posted so far.
    replies: u64,
}

/// Where the outbox posts and what it needs to record.
pub struct OutboxConfig {
    /// The REST client.
    pub http: Arc<Http>,
    /// The owner's DM channel.
    pub channel: ChannelId,
    /// The data directory (`state/fork_messages.json`, `state/sessions.json`).
    pub data_dir: DataDir,
    /// Told when a turn finds Claude Code signed out.
    pub reauth: Recipient<SignInLost>,
}

impl Outbox {
    /// Starts the actor and its delivery task.
    pub fn start(config: OutboxConfig) -> Addr<Outbox> {
        let (jobs, rx) = mpsc::unbounded_channel();
        let clock = ollim_actors::base::clock::SystemClock::shared();
        Outbox::create(move |ctx| {
            let delivery = Delivery::new(config.http, config.channel, ctx.address().downgrade());
            tokio::spawn(delivery.run(rx));
            Outbox {
                jobs,
                approvals: OpenApprovals::default(),
                fork_messages: ForkMessages::in_data_dir(&config.data_dir, clock.clone()),
                main_id: MainSessionFile::in_data_dir(&config.data_dir),
                button_messages: ButtonMessages::in_data_dir(&config.data_dir),
                clock,
                running: HashMap::new(),
                reauth: config.reauth,
                owner_lines: crate::drain::Sent::default(),
                replies: 0,
            }
        })
    }

    /// Has the delivery task grey out the `agent:` buttons whose 7 days are over.
    fn grey_expired_buttons(&mut self) {
        match self.button_messages.take_expired(self.clock.now()) {
            Ok(expired) => {
                for id in expired.into_iter().filter(|id| *id != 0) {
                    self.queue(Job::GreyAgentButtons(MessageId::new(id)));
                }
            }
            Err(e) => tracing::warn!(cause = %e, "could not read which messages carry buttons"),
        }
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

    fn started(&mut self, ctx: &mut Self::Context) {
        tracing::info!(actor = "outbox", "outbox started");
        self.grey_expired_buttons();
        ctx.run_interval(button_expiry::SWEEP, |act, _ctx| act.grey_expired_buttons());
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

/// A button click started a turn: "typing…" shows, as it does when a DM is taken up (the
/// answer in progress, if any, is left alone: the new turn interrupts it).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct Typing;

impl Handler<Typing> for Outbox {
    type Result = ();
    fn handle(&mut self, _msg: Typing, _ctx: &mut Self::Context) {
        self.queue(Job::Typing);
    }
}

/// A plain line from the bot itself (the shutdown notice); answered once it has been posted.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct Post(pub String);

impl Handler<SurfaceEvent> for Outbox {
    type Result = ();
    fn handle(&mut self, ev: SurfaceEvent, _ctx: &mut Self::Context) {
        if let SurfaceEvent::SignInLost = ev {
            self.reauth.do_send(SignInLost);
            return;
        }
        if let SurfaceEvent::Reply(_) = ev {
            self.replies += 1;
        }
        self.queue(Job::Event(ev));
    }
}

/// The owner's line on its way to the conversation (remembered for the shutdown drain).
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct OwnerLine(pub String);

impl Handler<OwnerLine> for Outbox {
    type Result = ();
    fn handle(&mut self, OwnerLine(line): OwnerLine, _ctx: &mut Self::Context) {
        self.owner_lines.note(&line, self.replies);
    }
}

/// Asks for the owner's lines no answer was posted after (at shutdown).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Vec<String>")]
pub struct Unanswered;

impl Handler<Unanswered> for Outbox {
    type Result = MessageResult<Unanswered>;
    fn handle(&mut self, _msg: Unanswered, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(
            self.owner_lines
                .unanswered(self.replies)
                .into_iter()
                .map(str::to_owned)
                .collect(),
        )
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

/// The delivery task posted an approval prompt as `message_id`; a reaction on it answers
/// `reply`.
#[derive(Message)]
#[rtype(result = "()")]
pub struct ApprovalPosted {
    /// The prompt's message.
    pub message_id: u64,
    /// How the call is shown.
    pub label: String,
    /// Where the answer goes.
    pub reply: oneshot::Sender<ApprovalAnswer>,
    /// Whether the turn that asked still waits.
    pub asker: ollim_actors::agent::permissions::Asker,
}

/// The owner reacted to `message_id` with `answer`; answered with how the prompt closed when
/// the message was an open prompt (the caller edits it to say what happened).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Option<Closed>")]
pub struct AnswerApproval {
    /// The reacted-to message.
    pub message_id: u64,
    /// What the reaction says.
    pub answer: ApprovalAnswer,
}

/// The prompt posted as `message_id` has had its 60 s; answered with its label when it was
/// still open (it is denied).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Option<String>")]
pub struct ExpireApproval {
    /// The prompt's message.
    pub message_id: u64,
}

/// The turn that asked the prompt posted as `message_id` may have ended; answered with its
/// label when it has and the prompt was still open (now closed: it is marked cancelled).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Option<String>")]
pub struct WithdrawApproval {
    /// The prompt's message.
    pub message_id: u64,
}

impl Handler<WithdrawApproval> for Outbox {
    type Result = Option<String>;
    fn handle(&mut self, msg: WithdrawApproval, _ctx: &mut Self::Context) -> Option<String> {
        self.approvals.withdraw_if_gone(msg.message_id)
    }
}

/// The delivery task posted `message_id` for the fork session `fork_session`.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct ForkMessagePosted {
    /// The message.
    pub message_id: u64,
    /// The fork session that sent it.
    pub fork_session: String,
    /// A background fork's (a reply waits for it to end); an interactive fork's is not.
    pub background: bool,
}

/// The delivery task saw a background fork end, after everything it posted.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct BackgroundSettled {
    /// The background session.
    pub fork_session: String,
}

/// The delivery task posted `message_id` with `agent:` buttons.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct AgentButtonsPosted {
    /// The message.
    pub message_id: u64,
}

impl Handler<AgentButtonsPosted> for Outbox {
    type Result = ();
    fn handle(&mut self, msg: AgentButtonsPosted, _ctx: &mut Self::Context) {
        if let Err(e) = self
            .button_messages
            .record(msg.message_id, self.clock.now())
        {
            tracing::warn!(cause = %e, "could not note a message's buttons; they grey out only when tapped");
        }
    }
}

/// Asks whether the background fork of `fork_session` still runs: `None` when it does not (or
/// not in this process's life), otherwise a receiver told when it ends.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Option<oneshot::Receiver<()>>")]
pub struct UntilSettled {
    /// The background session.
    pub fork_session: String,
}

/// Asks which background fork, if any, sent `message_id` (the owner replied to it).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "ForkLookup")]
pub struct LookupForkMessage {
    /// The replied-to message.
    pub message_id: u64,
}

impl Handler<ApprovalPosted> for Outbox {
    type Result = ();
    fn handle(&mut self, msg: ApprovalPosted, _ctx: &mut Self::Context) {
        self.approvals
            .open(msg.message_id, msg.label, msg.reply, msg.asker);
    }
}

impl Handler<AnswerApproval> for Outbox {
    type Result = Option<Closed>;
    fn handle(&mut self, msg: AnswerApproval, _ctx: &mut Self::Context) -> Option<Closed> {
        self.approvals.answer(msg.message_id, msg.answer)
    }
}

impl Handler<ExpireApproval> for Outbox {
    type Result = Option<String>;
    fn handle(&mut self, msg: ExpireApproval, _ctx: &mut Self::Context) -> Option<String> {
        self.approvals.expire(msg.message_id)
    }
}

impl Handler<ForkMessagePosted> for Outbox {
    type Result = ();
    fn handle(&mut self, msg: ForkMessagePosted, _ctx: &mut Self::Context) {
        if msg.background {
            self.running.entry(msg.fork_session.clone()).or_default();
        }
        let parent = self.main_id.load().unwrap_or_else(|e| {
            tracing::warn!(cause = %e, "could not read the main session id");
            None
        });
        if let Err(e) =
            self.fork_messages
                .record(&[msg.message_id], &msg.fork_session, parent.as_deref())
        {
            tracing::warn!(cause = %e, "could not record a fork message for replies");
        }
    }
}

impl Handler<LookupForkMessage> for Outbox {
    type Result = MessageResult<LookupForkMessage>;
    fn handle(&mut self, msg: LookupForkMessage, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(
            self.fork_messages
                .lookup(msg.message_id)
                .unwrap_or_else(|e| {
                    tracing::warn!(cause = %e, "could not read the background message records");
                    ForkLookup::Unknown
                }),
        )
    }
}

impl Handler<BackgroundSettled> for Outbox {
    type Result = ();
    fn handle(&mut self, msg: BackgroundSettled, _ctx: &mut Self::Context) {
        for waiting in self.running.remove(&msg.fork_session).unwrap_or_default() {
            let _ = waiting.send(());
        }
    }
}

impl Handler<UntilSettled> for Outbox {
    type Result = Option<oneshot::Receiver<()>>;
    fn handle(&mut self, msg: UntilSettled, _ctx: &mut Self::Context) -> Self::Result {
        let waiting = self.running.get_mut(&msg.fork_session)?;
        let (tx, rx) = oneshot::channel();
        waiting.push(tx);
        Some(rx)
    }
}
