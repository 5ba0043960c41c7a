//! What the CLI tells its owner, as typed events (protocol reference §10): text deltas, thinking,
//! tool use, assistant messages, session init, compaction, conversation reset, turn results and
//! the process's exit. [`super::event_parser`] builds them from stdout frames.

use serde::Deserialize;
use serde_json::Value;

/// One thing the process reported.
#[derive(Debug, Clone, PartialEq)]
pub enum BrainEvent {
    /// `system/init`, at the start of every turn.
    Init {
        /// The session the turn runs in.
        session_id: String,
        /// The model in use.
        model: Option<String>,
        /// Tools available to the model (built-ins and `mcp__*`).
        tools: Vec<String>,
    },
    /// A piece of the main agent's answer, as it streams.
    TextDelta(String),
    /// The model began thinking.
    ThinkingStarted,
    /// The thinking block ended.
    ThinkingFinished,
    /// The main agent called a tool.
    ToolUse {
        /// The `tool_use` id.
        id: String,
        /// The tool (`Write`, `mcp__discord__ping_user`).
        name: String,
        /// Its arguments, for labels such as `Write(reminders/foo.md)`.
        input: Value,
    },
    /// A subagent the main agent started called a tool.
    SubagentToolUse {
        /// The main agent's `Agent` call that started the subagent.
        parent_tool_use_id: String,
        /// The tool (`Read`, `mcp__discord__ping_user`).
        name: String,
    },
    /// A tool result came back to the main agent.
    ToolResult {
        /// The `tool_use` id it answers.
        tool_use_id: String,
        /// True when the tool failed or was denied.
        is_error: bool,
    },
    /// One completed content block of the main agent's message (text blocks joined).
    AssistantMessage {
        /// The API message id (shared by the blocks of one message).
        message_id: Option<String>,
        /// The text blocks' text, joined with newlines (empty for tool calls).
        text: String,
        /// For the CLI's synthetic error message (`is_api_error_message`): its `error` kind
        /// (`authentication_failed`, `billing_error`, `rate_limit`, `unknown`, ...).
        api_error: Option<String>,
        /// The context the model call read (input tokens, cached or not), when reported.
        context_tokens: Option<u64>,
    },
    /// Compaction started (`status: compacting`).
    Compacting,
    /// Compaction ended (`status: null` with `compact_result`).
    CompactFinished {
        /// `success` or the failure text (`failed`).
        result: String,
        /// Why it failed (`compact_error`: `too_few_groups`, `exhausted`, ...), when it did.
        error: Option<String>,
    },
    /// The compaction boundary with its figures.
    CompactBoundary(CompactBoundary),
    /// `/clear` started a new conversation. With CLI 2.1.330 `new_conversation_id` is *not* the
    /// new session id: that one first appears in the next [`BrainEvent::Init`] and in the
    /// `/clear` turn's [`TurnResult::session_id`], which is what to persist.
    ConversationReset {
        /// The session that was cleared.
        old_session_id: Option<String>,
        /// The CLI's id for the new conversation.
        new_conversation_id: String,
    },
    /// `system/api_retry`: a model call failed and the CLI will try again.
    ApiRetry {
        /// This retry's number (from 1).
        attempt: u32,
        /// How many retries the CLI makes at most.
        max_retries: u32,
        /// The HTTP status of the failed call, when there was one.
        status: Option<u16>,
        /// The CLI's error kind (`rate_limit`, `authentication_failed`, ...).
        error: Option<String>,
    },
    /// `session_state_changed`: `running`, `requires_action` or `idle`.
    SessionState(String),
    /// The CLI took lines of ours into a turn. Releases say so differently (see
    /// [`super::event_parser`]): `uuids` are the lines' own uuids when it names them; `text` is
    /// a replayed line's text, which may be several of ours joined when it merged them.
    LinesTaken {
        /// The uuids it names.
        uuids: Vec<String>,
        /// The text of a replayed line.
        text: Option<String>,
    },
    /// The turn ended.
    Result(TurnResult),
    /// Any other frame, kept whole.
    Other(Value),
    /// The process is gone; always the last event.
    Exited(ExitInfo),
}

/// The figures of a `compact_boundary`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
pub struct CompactBoundary {
    /// `auto` or `manual`.
    #[serde(default)]
    pub trigger: String,
    /// Tokens before compaction ("Auto-compacting 150k tokens").
    #[serde(default)]
    pub pre_tokens: Option<u64>,
    /// Tokens after.
    #[serde(default)]
    pub post_tokens: Option<u64>,
    /// How long it took.
    #[serde(default)]
    pub duration_ms: Option<u64>,
}

/// Token usage of one turn.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
pub struct Usage {
    /// Input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens read from cache.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// Input tokens written to cache.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
}

/// The `result` frame that ends a turn. Check `is_error`, not only `subtype`.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct TurnResult {
    /// `success`, `error_during_execution`, `error_max_turns`, ...
    #[serde(default)]
    pub subtype: String,
    /// True when the turn failed (API errors come as `success` + `is_error`).
    #[serde(default)]
    pub is_error: bool,
    /// The session the turn ran in; persist it.
    #[serde(default)]
    pub session_id: String,
    /// The final text.
    #[serde(default)]
    pub result: Option<String>,
    /// This turn's usage.
    #[serde(default)]
    pub usage: Usage,
    /// Cost so far for the whole process.
    #[serde(default)]
    pub total_cost_usd: Option<f64>,
    /// Model calls in the turn (a Stop-hook continuation counts).
    #[serde(default)]
    pub num_turns: u32,
    /// `completed`, `aborted_streaming`, `aborted_tools`, `max_turns`, `api_error`, ...
    #[serde(default)]
    pub terminal_reason: Option<String>,
    /// The uuids of the user messages this turn answered.
    #[serde(default)]
    pub user_message_uuids: Vec<String>,
    /// Error texts, when any.
    #[serde(default)]
    pub errors: Vec<String>,
    /// Wall time of the turn.
    #[serde(default)]
    pub duration_ms: Option<u64>,
    /// The HTTP status of a failed model call (`terminal_reason: api_error`): 401, 402, 429...
    #[serde(default)]
    pub api_error_status: Option<u16>,
}

/// How the process ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExitInfo {
    /// The exit code, when it exited normally.
    pub code: Option<i32>,
    /// The signal that killed it, when one did.
    pub signal: Option<i32>,
    /// The last lines it wrote to stderr.
    pub stderr_tail: Vec<String>,
}

impl ExitInfo {
    /// True for exit code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}
