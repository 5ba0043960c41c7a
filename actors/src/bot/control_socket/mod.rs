//! The control socket *(ours, SPEC §16)*: how `ollim-bot routine run ID`, a separate process,
//! reaches the bot that is running on the same data directory.
//!
//! The bot listens on a Unix socket, `state/bot.sock` (mode 0600, in the directory the agent may
//! not write to). A command connects, writes one JSON line ([`Request`]) and reads one JSON line
//! back ([`Response`]). Why a socket and not a request file the scheduler watches: the command
//! gets its answer — started, queued behind N jobs, no such routine — at once, and "no bot is
//! running" is simply a connection nobody accepts (a socket file left by a crash refuses
//! connections too), with no file to clean up after a command that gave up. The socket is
//! removed when the bot stops; one left by a crash is replaced at the next start (the instance
//! lock says no other bot owns it).

mod chat_tap;
mod client;
mod server;

use serde::{Deserialize, Serialize};

pub use chat_tap::{chat_event, Listen, SurfaceTap, Sync};
pub use client::{chat, connect, request, ClientError};
pub use server::{serve, ChatRoute, ControlServer};

/// The socket's name inside `state/`.
pub const FILE_NAME: &str = "bot.sock";

/// Longest request line accepted.
pub const MAX_REQUEST_BYTES: usize = 4096;

/// What a command asks the bot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    /// Run the routine with this id now.
    RunRoutine(String),
    /// *(`ollim-bot chat`)* Say this line in the conversation; the answer is the turn's
    /// [`ChatEvent`]s, one [`ChatLine::Event`] a line, then [`ChatLine::Done`].
    Chat(String),
    /// *(the agent's `tasks delete` / `cal delete`, SPEC §20)* Ask the owner whether to delete
    /// this; answered at once with "asked" (or why not): the deletion happens only when the
    /// owner clicks Delete.
    AskDelete {
        /// What to delete.
        target: crate::google::confirm::DeleteTarget,
        /// The asking session's kind (`OLLIM_AGENT_SESSION`): a background one is refused.
        session: String,
    },
    /// *(`ollim-bot dashboard`, SPEC §21)* A one-time login link for the dashboard.
    DashboardLink,
}

/// Asks the dashboard (a surface in the binary, beside the bot) for a one-time login link;
/// answered with the link, or why there is none.
#[derive(Debug, Clone, Copy, actix::Message)]
#[rtype(result = "Result<String, String>")]
pub struct DashboardLink;

/// What `ollim-bot chat` shows of the conversation (SPEC §17): the answer's text as it streams,
/// tool labels, embed titles and the bot's own lines. Buttons and files are not shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatEvent {
    /// A piece of the answer.
    Text(String),
    /// The whole answer, when nothing of it streamed.
    Reply(String),
    /// A tool the agent called, as its label.
    Tool(String),
    /// A tool call that was denied: its label and why.
    Denied {
        /// The call's label.
        label: String,
        /// Why ([`crate::agent::permissions::reasons`]).
        #[serde(default)]
        reason: String,
    },
    /// An embed's title.
    Embed(String),
    /// A line from the bot (a notice, an error, a background ping).
    Notice(String),
}

/// One line of the bot's answer to [`Request::Chat`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatLine {
    /// Something the conversation showed.
    Event(ChatEvent),
    /// The turn has ended (or could not start): the last line.
    Done(Response),
}

/// The bot's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    /// It did what was asked.
    pub ok: bool,
    /// One line for the person who asked.
    pub message: String,
}
