//! The brain: one Claude Code CLI process driven in SDK mode (stream-json over stdin/stdout).
//!
//! This module is the small interface the session actors use (SPEC §5 the conversation, §6 forks,
//! §10 agent tools, §14 system prompt); the wire protocol it speaks is described in
//! `reference/claude-code-protocol.md`. A caller describes the process with [`SpawnOptions`],
//! supplies a [`Host`] (permission prompts, hook callbacks) and a [`ToolHandler`] (the in-process
//! MCP server named `discord`), and gets back a [`Driver`] to talk to it plus a stream of typed
//! [`BrainEvent`]s. Session actors hold a `Box<dyn Driver>`, so their tests can swap the real
//! process for a fake; [`Launcher`] is the matching seam for starting one.
//!
//! Layout: [`options`] (what to spawn), [`locate`] (finding the binary), [`process`] (the child and
//! its tasks), [`control`] (request/response bookkeeping), [`host`] (callbacks into the bot),
//! [`mcp`] (JSON-RPC for the tool server), [`protocol`] (the lines we write), [`reader`] (stdout),
//! [`events`] (what the CLI reports, typed) and [`event_parser`] (frames to events).

pub mod auth;
pub mod cli_info;
pub mod control;
pub mod event_parser;
pub mod events;
pub mod host;
#[cfg(test)]
pub(crate) mod idle;
pub mod locate;
pub mod mcp;
pub mod options;
pub mod process;
pub mod protocol;
pub mod reader;
pub mod releases;
pub mod transient;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::mpsc;

pub use events::{BrainEvent, CompactBoundary, ExitInfo, TurnResult, Usage};
pub use host::{
    HookCall, HookEvent, HookRegistration, Host, PermissionDecision, PermissionRequest,
};
pub use mcp::{ToolCall, ToolHandler, ToolOutput, ToolSpec};
pub use options::{PermissionMode, SessionStart, SpawnOptions, Thinking};
pub use process::{ClaudeLauncher, ClaudeProcess};
pub use protocol::{ImageBlock, InitializeInfo, UserMessage};

/// A boxed, sendable future; the return type of the object-safe traits in this module.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The receiving end of a process's events. Unbounded on purpose: the reader must never stop
/// reading stdout while the owner awaits a control response, or both sides would wait forever.
pub type EventStream = mpsc::UnboundedReceiver<BrainEvent>;

/// Where the bot's side of the process lives: callbacks for permission prompts and hooks, and the
/// tools served as the SDK MCP server.
#[derive(Clone)]
pub struct Handlers {
    /// Answers `can_use_tool` and `hook_callback` requests.
    pub host: Arc<dyn Host>,
    /// Serves `tools/list` and `tools/call` for the MCP server named in [`SpawnOptions::mcp_server`].
    pub tools: Arc<dyn ToolHandler>,
}

/// A started, initialized CLI process as the session actors see it.
pub trait Driver: Send + Sync {
    /// Sends one user message; returns the uuid given to it (it comes back in
    /// [`TurnResult::user_message_uuids`]).
    fn send_user(&self, message: UserMessage) -> BoxFuture<'_, Result<String, Error>>;
    /// Asks the CLI to stop the running turn; a no-op when idle.
    fn interrupt(&self) -> BoxFuture<'_, Result<(), Error>>;
    /// Switches the model for later turns (`None` = the CLI's default).
    fn set_model(&self, model: Option<String>) -> BoxFuture<'_, Result<(), Error>>;
    /// Switches the permission mode for later tool calls.
    fn set_permission_mode(&self, mode: PermissionMode) -> BoxFuture<'_, Result<(), Error>>;
    /// Closes stdin, waits for the CLI to exit (it finishes a running turn first), kills it after
    /// the grace period.
    fn shutdown(self: Box<Self>) -> BoxFuture<'static, ExitInfo>;
}

/// A started process: its driver, its events, and what the initialize handshake reported.
pub struct Launched {
    /// Talks to the process.
    pub driver: Box<dyn Driver>,
    /// Everything the process reports, ending with [`BrainEvent::Exited`].
    pub events: EventStream,
    /// The initialize response.
    pub init: InitializeInfo,
}

/// Starts brains; the real one is [`ClaudeLauncher`], tests of session actors supply fakes.
pub trait Launcher: Send + Sync {
    /// Spawns a process with `options` and completes the initialize handshake (which registers
    /// the hooks and agents the options name).
    fn launch(
        &self,
        options: SpawnOptions,
        handlers: Handlers,
    ) -> BoxFuture<'_, Result<Launched, Error>>;
}

/// What can go wrong driving the CLI.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The sandbox is required and this machine cannot have it: the CLI was not started.
    #[error(transparent)]
    Sandbox(#[from] crate::claude::sandbox::Error),
    /// No CLI binary was found; the message says how to get one.
    #[error(
        "claude CLI not found ({searched}); install it with tools/install-claude.sh \
         (or `npm install -g @anthropic-ai/claude-code`) or point OLLIM_CLAUDE_BIN at the binary"
    )]
    BinaryNotFound {
        /// Where we looked.
        searched: String,
    },
    /// The process could not be started.
    #[error("spawning {binary}: {source}")]
    Spawn {
        /// The binary we tried to run.
        binary: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The CLI did not answer a control request in time.
    #[error("control request {subtype} ({request_id}) timed out")]
    ControlTimeout {
        /// The request's subtype.
        subtype: String,
        /// The request's id.
        request_id: String,
    },
    /// The CLI answered a control request with an error.
    #[error("control request {subtype} refused by the cli: {message}")]
    ControlRefused {
        /// The request's subtype.
        subtype: String,
        /// The CLI's error text.
        message: String,
        /// The CLI's error code, when it sent one (`invalid_mode`, `unsupported_request`, ...).
        code: Option<String>,
    },
    /// The process ended before the initialize handshake completed (bad `--resume` id, refused
    /// permission mode, ...); `detail` holds its last stderr lines.
    #[error("claude process {label} failed to start (exit code {code:?}): {detail}")]
    StartFailed {
        /// The process's label.
        label: String,
        /// Its exit code.
        code: Option<i32>,
        /// What it said on stderr.
        detail: String,
    },
    /// The process is gone (stdout closed) so the request can never be answered.
    #[error("claude process exited before answering {subtype}")]
    Exited {
        /// The request's subtype (or `user` for a user message).
        subtype: String,
    },
    /// A value could not be encoded as a stdin line.
    #[error("encoding a {what} line: {source}")]
    Encode {
        /// Which kind of line.
        what: &'static str,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
}

impl Error {
    /// True when the process is gone and a new one must be launched.
    pub fn is_process_gone(&self) -> bool {
        matches!(self, Error::Exited { .. } | Error::StartFailed { .. })
    }
}
