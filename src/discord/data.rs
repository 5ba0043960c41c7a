//! What every Discord handler and slash command can reach: the actors' addresses, the outbox,
//! the open approval prompts, and who the owner is.

use actix::Addr;
use ollim_actors::data_dir::DataDir;
use ollim_actors::main_session::MainSession;
use ollim_actors::supervisor::Handles;
use std::collections::HashSet;

use serenity::all::{MessageId, UserId};
use tokio::sync::mpsc;

use super::approvals::Approvals;
use super::outbox::Outbox;

/// How the bot should leave, asked for by a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leave {
    /// Stop, then run the binary again (`/restart`, `/update`).
    Restart(String),
}

/// poise's user data.
pub struct Data {
    /// The application's owner: the only user served.
    pub owner: UserId,
    /// The actors.
    pub handles: Handles,
    /// The conversation.
    pub main: Addr<MainSession>,
    /// Everything posted in the DM channel goes through here.
    pub outbox: Addr<Outbox>,
    /// Approval prompts waiting for a reaction.
    pub approvals: Approvals,
    /// The data directory.
    pub data_dir: DataDir,
    /// Where `/restart` and `/update` ask the run loop to leave.
    pub leave: mpsc::UnboundedSender<Leave>,
    /// The owner's messages the sign-in used (not for the conversation).
    pub sign_in_messages: HashSet<MessageId>,
}

/// The error type of commands and handlers: reported in the log with its context.
pub type Error = anyhow::Error;
/// poise's context for our commands.
pub type Ctx<'a> = poise::Context<'a, Data, Error>;
