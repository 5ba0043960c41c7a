//! What every Discord handler and slash command can reach: the actors' addresses, the outbox
//! (which owns the open approval prompts), and who the owner is. Handles only, no shared state.

use actix::Addr;
use ollim_actors::bot::supervisor::Handles;
use ollim_actors::conversation::main_session::MainSession;
use std::collections::HashSet;

use serenity::all::{MessageId, UserId};
use tokio::sync::mpsc;

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
    /// Everything posted in the DM channel goes through here; it answers approval reactions and
    /// which fork sent a message.
    pub outbox: Addr<Outbox>,
    /// Where `/restart` and `/update` ask the run loop to leave.
    pub leave: mpsc::UnboundedSender<Leave>,
    /// The owner's messages the sign-in used (not for the conversation).
    pub sign_in_messages: HashSet<MessageId>,
    /// Signs Claude Code in again when a turn finds it signed out; takes the owner's DMs then.
    pub reauth: Addr<super::reauth::Reauth>,
    /// The data directory (files the owner sends are kept in its `downloads/`).
    pub data_dir: ollim_actors::base::data_dir::DataDir,
    /// The configured zone (times in `/routines`).
    pub tz: chrono_tz::Tz,
    /// The owner's and the bot's names as the bot started (the setup prompt).
    pub names: ollim_actors::agent::system_prompt::Names,
    /// The dashboard's logins (`/dashboard`), when the dashboard runs.
    pub dashboard: Option<Addr<crate::dashboard::Logins>>,
}

/// The error type of commands and handlers: reported in the log with its context.
pub type Error = anyhow::Error;
/// poise's context for our commands.
pub type Ctx<'a> = poise::Context<'a, Data, Error>;
