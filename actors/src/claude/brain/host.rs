//! The bot's side of the CLI's questions: permission prompts (`can_use_tool`) and hook callbacks
//! (`hook_callback`), protocol reference §7.1–7.2. SPEC §6 (the Stop hook that makes a background
//! fork report) and §11 (permissions) are decided by whoever implements [`Host`].

use serde_json::{json, Map, Value};

use super::BoxFuture;

/// Hook events the CLI can call back for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    /// Before a tool runs; can allow, deny or rewrite it.
    PreToolUse,
    /// After a tool ran.
    PostToolUse,
    /// When the agent is about to finish its turn; blocking makes it continue.
    Stop,
    /// When a user prompt is submitted.
    UserPromptSubmit,
    /// Before compaction.
    PreCompact,
}

impl HookEvent {
    /// The event's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::Stop => "Stop",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreCompact => "PreCompact",
        }
    }
}

/// One hook to register in the initialize request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRegistration {
    /// When it fires.
    pub event: HookEvent,
    /// Tool-name pattern (`"mcp__discord__.*"`, `"Write|Edit"`); `None` = every occurrence.
    pub matcher: Option<String>,
    /// Seconds the CLI waits for the answer before cancelling (CLI default 60).
    pub timeout_secs: Option<u32>,
}

impl HookRegistration {
    /// A hook on every occurrence of `event`.
    pub fn on(event: HookEvent) -> Self {
        Self {
            event,
            matcher: None,
            timeout_secs: None,
        }
    }

    /// A hook on tools matching `pattern`.
    pub fn on_tools(event: HookEvent, pattern: impl Into<String>) -> Self {
        Self {
            event,
            matcher: Some(pattern.into()),
            timeout_secs: None,
        }
    }
}

/// A hook callback from the CLI.
#[derive(Debug, Clone, PartialEq)]
pub struct HookCall {
    /// The event (from the registration the callback id belongs to).
    pub event: HookEvent,
    /// The callback id we invented (`hook_<n>`).
    pub callback_id: String,
    /// The hook input as the CLI sent it (`tool_name`, `tool_input`, `stop_hook_active`, ...).
    pub input: Value,
}

impl HookCall {
    /// `stop_hook_active` of a Stop input: true when this stop follows a continuation a Stop hook
    /// caused.
    pub fn stop_hook_active(&self) -> bool {
        self.input
            .get("stop_hook_active")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// `tool_name` of a tool hook input.
    pub fn tool_name(&self) -> Option<&str> {
        self.input.get("tool_name").and_then(Value::as_str)
    }

    /// The answer that expresses no opinion.
    pub fn no_opinion() -> Value {
        Value::Object(Map::new())
    }

    /// The Stop answer that makes the agent continue, with `reason` shown to the model.
    pub fn block(reason: impl Into<String>) -> Value {
        json!({"decision": "block", "reason": reason.into()})
    }

    /// The PreToolUse answer that lets the tool run without further permission checks (the
    /// owner has just allowed it).
    pub fn allow_tool(reason: impl Into<String>) -> Value {
        json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": reason.into(),
        }})
    }

    /// The PreToolUse answer that refuses the tool with `reason` (the model reads it).
    pub fn deny_tool(reason: impl Into<String>) -> Value {
        json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason.into(),
        }})
    }
}

/// A permission prompt from the CLI.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    /// The tool (`Bash`, `mcp__discord__ping_user`).
    pub tool_name: String,
    /// Its arguments.
    pub input: Value,
    /// The model's `tool_use` id, when sent.
    pub tool_use_id: Option<String>,
    /// The whole request as received, for fields not modelled here.
    pub raw: Value,
}

/// The answer to a permission prompt.
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionDecision {
    /// Run the tool with these arguments (echo the input when unchanged).
    Allow {
        /// The arguments to run with.
        updated_input: Value,
    },
    /// Do not run it; the model gets `message` as an error tool result and the turn goes on.
    Deny {
        /// What the model reads.
        message: String,
    },
}

impl PermissionDecision {
    /// The `response` object of the control response.
    pub fn to_response(&self) -> Value {
        match self {
            PermissionDecision::Allow { updated_input } => {
                json!({"behavior": "allow", "updatedInput": updated_input})
            }
            PermissionDecision::Deny { message } => json!({"behavior": "deny", "message": message}),
        }
    }
}

/// Answers the CLI's questions. Implementations forward to the owning actor; each call runs in
/// its own task, so a slow answer never blocks the process's other traffic, and a cancelled
/// request drops the future.
pub trait Host: Send + Sync + 'static {
    /// Decides a permission prompt. The default denies, as a background fork must.
    fn can_use_tool(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        Box::pin(async move {
            PermissionDecision::Deny {
                message: format!("{} is not allowed here", request.tool_name),
            }
        })
    }

    /// Answers a hook callback with the hook's JSON output. The default has no opinion (`{}`).
    fn hook(&self, call: HookCall) -> BoxFuture<'_, Value> {
        let _ = call;
        Box::pin(async { HookCall::no_opinion() })
    }
}

/// A host that denies every prompt and has no opinion on hooks.
#[derive(Debug, Default, Clone, Copy)]
pub struct DenyAll;

impl Host for DenyAll {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_echoes_input_as_updated_input() {
        let decision = PermissionDecision::Allow {
            updated_input: json!({"command": "ls"}),
        };
        assert_eq!(
            decision.to_response(),
            json!({"behavior":"allow","updatedInput":{"command":"ls"}})
        );
    }

    #[test]
    fn deny_carries_the_message_for_the_model() {
        let decision = PermissionDecision::Deny {
            message: "no".into(),
        };
        assert_eq!(
            decision.to_response(),
            json!({"behavior":"deny","message":"no"})
        );
    }

    #[test]
    fn stop_hook_active_reads_the_input_flag() {
        let call = |input| HookCall {
            event: HookEvent::Stop,
            callback_id: "hook_0".into(),
            input,
        };
        assert!(call(json!({"stop_hook_active": true})).stop_hook_active());
        assert!(!call(json!({"stop_hook_active": false})).stop_hook_active());
        assert!(!call(json!({})).stop_hook_active());
    }

    #[test]
    fn block_and_deny_tool_have_the_wire_shapes() {
        assert_eq!(
            HookCall::block("report first"),
            json!({"decision":"block","reason":"report first"})
        );
        assert_eq!(
            HookCall::deny_tool("state/ is off limits")["hookSpecificOutput"]["permissionDecision"],
            "deny"
        );
    }
}
