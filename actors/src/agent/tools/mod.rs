//! The in-process MCP server named `discord` (SPEC §10, §16): the agent's tools, as a handler the
//! brain serves (`brain::mcp::ToolHandler`) and a [`ToolBackend`] the session actors implement.
//!
//! [`DiscordTools`] owns what does not need an actor: which tools a session lists, the context
//! checks with their exact refusal sentences ([`Refusal`]), reading and validating arguments
//! (bad ones come back as error results), and building embeds (emoji-free titles, real
//! newlines, the `bg`/`fork` footer). Once a call passes, it asks the backend to act: send,
//! report, schedule, or mark the fork's exit. The backend makes the checks that need other
//! actors — the background fork's own ping count, the main session's busy state, the ping
//! budget, in that order (SPEC §7) — and answers `Err(`[`Refusal`]`)` to refuse; the model reads
//! its sentence verbatim as an ordinary result.
//!
//! Files: [`offer`] (the one table of which tool each kind of session is offered, built-ins
//! included, and the CLI flags that follow), [`session_kind`] (kinds, rules, footer), [`schema`]
//! (names, descriptions, JSON Schemas), [`arguments`] and [`embed_arguments`] (argument
//! reading), [`embed`] and [`button`] (what an embed is), [`replies`] (the sentences), and one
//! file per group of calls: `messaging.rs` (ping_user, discord_embed), `chain.rs`
//! (follow_up_chain), `fork_control.rs` (save_context, report_updates, enter_fork, exit_fork),
//! `reminders.rs` (add_reminder, list_reminders, cancel_reminder; files only, no actor),
//! `files.rs` (send_file), `names.rs` (update_names).

use std::sync::Arc;

use serde_json::Value;

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::claude::brain::mcp::{ToolCall, ToolHandler, ToolOutput, ToolSpec};
use crate::claude::brain::BoxFuture;

pub mod arguments;
pub mod button;
mod chain;
pub mod embed;
pub mod embed_arguments;
pub mod files;
mod fork_control;
mod messaging;
mod names;
pub mod offer;
mod reminders;
pub mod replies;
pub mod schema;
pub mod session_kind;
mod unclassified;

#[cfg(test)]
mod recording_backend;

pub use button::{Button, ButtonAction, ButtonClick, ButtonStyle};
pub use embed::{Embed, EmbedColor, EmbedField};
pub use files::{FileBytes, SentFile};
pub use offer::{note_init_tools, Tool, BG_REPLY_TOOLS, DEFAULT_BG_TOOLS};
pub use replies::{Confirmation, Peer, Refusal};
pub use schema::{ToolName, DEFAULT_FORK_IDLE_TIMEOUT_MINUTES, SERVER_NAME};
pub use session_kind::{BackgroundRules, ChainPosition, SessionKind};

/// Where the tools that work on files act: the data directory, the configured zone (reminder
/// times), the clock.
#[derive(Clone)]
pub struct Workspace {
    /// The data directory (the agent's working directory).
    pub data_dir: DataDir,
    /// The configured zone.
    pub tz: chrono_tz::Tz,
    /// The clock.
    pub clock: SharedClock,
}

/// What the session actor does for a tool once [`DiscordTools`] has checked the context and the
/// arguments. `Err(refusal)` is a refusal the model reads as an ordinary result (the original
/// did not flag them as errors) — e.g. [`Refusal::BudgetExhausted`], or
/// [`Refusal::ActorGone`] when an actor the call needed has stopped.
pub trait ToolBackend: Send + Sync + 'static {
    /// Background forks only: send `message` (already prefixed `[bg] `) to the user, after the
    /// fork's own checks unless `critical` (which then counts a critical bypass).
    fn ping(&self, message: String, critical: bool) -> BoxFuture<'_, Result<(), Refusal>>;
    /// Send `embed` (footer already set). Registers agent buttons' prompts as inquiries. A
    /// background fork makes the same checks as for a ping first.
    fn embed(&self, embed: Embed, critical: bool) -> BoxFuture<'_, Result<(), Refusal>>;
    /// Append `message` to the pending updates; an interactive fork also marks its exit as
    /// "report". `Ok(Some(why))`: queued, but its file could not be written (a full disk), so
    /// the update is held in memory only until it can be.
    fn report(&self, message: String) -> BoxFuture<'_, Result<Option<String>, Refusal>>;
    /// Schedule the chain's next reminder this many minutes ahead, inheriting every setting.
    fn follow_up(&self, minutes_from_now: u32) -> BoxFuture<'_, Result<(), Refusal>>;
    /// Interactive forks: check that a save is still safe and ask the user to confirm it (the
    /// fork is promoted only on their Confirm click).
    fn save_context(&self) -> BoxFuture<'_, Result<(), Refusal>>;
    /// Main session: ask for an interactive fork (interrupting the current turn).
    fn enter_fork(
        &self,
        topic: Option<String>,
        idle_timeout_minutes: u32,
    ) -> BoxFuture<'_, Result<(), Refusal>>;
    /// Interactive forks: mark the fork to be discarded after this turn.
    fn exit_fork(&self) -> BoxFuture<'_, Result<(), Refusal>>;
    /// Send `file` (already checked and read) to the user's DM. A background fork makes the
    /// same checks as for a ping first.
    fn send_file(&self, file: SentFile) -> BoxFuture<'_, Result<(), Refusal>>;
    /// Main session: the chain of the foreground chain reminder the current turn answers, if
    /// any (the session actor is the one that would know). No session tracks one yet, so the
    /// default answers `None` and `follow_up_chain` refuses in the main session.
    fn foreground_chain(&self) -> BoxFuture<'_, Option<ChainPosition>> {
        Box::pin(async { None })
    }
}

/// The `discord` server for one session.
pub struct DiscordTools {
    /// Where the calling model runs.
    kind: SessionKind,
    /// The session actor's side.
    backend: Arc<dyn ToolBackend>,
    /// Where the file tools act.
    place: Workspace,
    /// `enter_fork`'s idle timeout when the model gives none (runtime `fork_idle_timeout`).
    default_idle_timeout: u32,
}

impl DiscordTools {
    /// The server for a session of `kind`, acting through `backend` and on `place`.
    pub fn new(kind: SessionKind, place: Workspace, backend: Arc<dyn ToolBackend>) -> Self {
        Self {
            kind,
            backend,
            place,
            default_idle_timeout: DEFAULT_FORK_IDLE_TIMEOUT_MINUTES,
        }
    }

    /// Uses `minutes` as `enter_fork`'s default idle timeout (the runtime `fork_idle_timeout`).
    pub fn with_fork_idle_timeout(mut self, minutes: u32) -> Self {
        self.default_idle_timeout = minutes.max(1);
        self
    }

    /// The kind of session this serves.
    pub fn kind(&self) -> &SessionKind {
        &self.kind
    }

    /// The chain this session may extend: a background job's own, or (asked of the session)
    /// the main session's current foreground chain.
    async fn chain(&self) -> Option<ChainPosition> {
        match &self.kind {
            SessionKind::Background(rules) => rules.chain,
            SessionKind::Main => self.backend.foreground_chain().await,
            SessionKind::InteractiveFork => None,
        }
    }

    /// Runs one tool.
    async fn run(&self, tool: ToolName, arguments: &Value) -> ToolOutput {
        match tool {
            ToolName::DiscordEmbed => self.discord_embed(arguments).await,
            ToolName::PingUser => self.ping_user(arguments).await,
            ToolName::FollowUpChain => self.follow_up_chain(arguments).await,
            ToolName::SaveContext => self.save_context(arguments).await,
            ToolName::ReportUpdates => self.report_updates(arguments).await,
            ToolName::EnterFork => self.enter_fork(arguments).await,
            ToolName::ExitFork => self.exit_fork(arguments).await,
            ToolName::AddReminder => self.add_reminder(arguments).await,
            ToolName::ListReminders => self.list_reminders().await,
            ToolName::CancelReminder => self.cancel_reminder(arguments).await,
            ToolName::SendFile => self.send_file(arguments).await,
            ToolName::UpdateNames => self.update_names(arguments),
        }
    }
}

impl ToolHandler for DiscordTools {
    fn tools(&self) -> Vec<ToolSpec> {
        self.kind
            .listed_tools()
            .into_iter()
            .map(ToolName::spec)
            .collect()
    }

    fn call(&self, call: ToolCall) -> BoxFuture<'_, ToolOutput> {
        Box::pin(async move {
            match ToolName::parse(&call.name) {
                Some(tool) => self.run(tool, &call.arguments).await,
                None => ToolOutput::error(format!("unknown tool: {}", call.name)),
            }
        })
    }
}

/// A refusal the model reads as an ordinary result.
fn refuse(tool: ToolName, refusal: Refusal) -> ToolOutput {
    tracing::debug!(tool = tool.as_str(), reason = %refusal, "tool refused");
    ToolOutput::ok(refusal.text())
}

/// Arguments the tool cannot use: an error result naming the field.
fn bad_arguments(error: arguments::ArgumentError) -> ToolOutput {
    tracing::debug!(error = %error, "tool arguments refused");
    ToolOutput::error(error.to_string())
}

/// The backend's answer: the confirmation, or its refusal sentence verbatim.
fn settle(tool: ToolName, result: Result<(), Refusal>, done: Confirmation) -> ToolOutput {
    match result {
        Ok(()) => ToolOutput::ok(done.to_string()),
        Err(Refusal::ActorGone(peer)) => {
            tracing::error!(
                tool = tool.as_str(),
                ?peer,
                "tool call failed: an actor it needs has stopped"
            );
            ToolOutput::ok(Refusal::ActorGone(peer).text())
        }
        Err(reason) => {
            tracing::debug!(tool = tool.as_str(), reason = %reason, "backend refused");
            ToolOutput::ok(reason.text())
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::recording_backend::{call, Recording};
    use super::*;

    #[tokio::test]
    async fn tools_list_follows_the_session_kind() {
        let (tools, _) = Recording::tools(SessionKind::Background(BackgroundRules {
            allow_ping: false,
            ..BackgroundRules::default()
        }));
        let names: Vec<String> = tools.tools().into_iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                "report_updates",
                "add_reminder",
                "list_reminders",
                "cancel_reminder"
            ]
        );
    }

    #[tokio::test]
    async fn update_names_is_offered_to_the_conversation_and_its_forks_only() {
        let listed = |kind| {
            let (tools, _) = Recording::tools(kind);
            tools.tools().into_iter().any(|t| t.name == "update_names")
        };
        assert!(listed(SessionKind::Main));
        assert!(listed(SessionKind::InteractiveFork));
        assert!(!listed(SessionKind::Background(BackgroundRules::default())));
    }

    #[tokio::test]
    async fn unknown_tool_is_an_error_result() {
        let (tools, backend) = Recording::tools(SessionKind::Main);
        let output = call(&tools, "launch_rocket", json!({})).await;
        assert_eq!(output, ToolOutput::error("unknown tool: launch_rocket"));
        assert!(backend.calls().is_empty());
    }

    #[tokio::test]
    async fn served_through_the_mcp_answerer_a_refusal_is_not_an_error() {
        let (tools, _) = Recording::tools(SessionKind::InteractiveFork);
        let reply = crate::claude::brain::mcp::answer(
            SERVER_NAME,
            SERVER_NAME,
            &json!({"jsonrpc":"2.0","id":7,"method":"tools/call",
                    "params":{"name":"add_reminder","arguments":{"prompt":"stretch"}}}),
            &tools,
        )
        .await;
        assert_eq!(
            reply["mcp_response"]["result"],
            json!({"content":[{"type":"text","text":Refusal::ReminderTimeMissing.text()}],
                   "isError": false})
        );
    }

    #[tokio::test]
    async fn a_tool_the_session_is_not_offered_is_unknown_to_its_server() {
        let (tools, backend) = Recording::tools(SessionKind::Main);
        let reply = crate::claude::brain::mcp::answer(
            SERVER_NAME,
            SERVER_NAME,
            &json!({"jsonrpc":"2.0","id":7,"method":"tools/call",
                    "params":{"name":"exit_fork","arguments":{}}}),
            &tools,
        )
        .await;
        assert_eq!(reply["mcp_response"]["result"]["isError"], json!(true));
        assert!(backend.calls().is_empty());
    }
}
