//! What to spawn: the options of one CLI process and their translation into argv and environment
//! (protocol reference §3). Pure functions, so every flag is checked by unit tests without a process.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::host::HookRegistration;
use crate::base::cpu_priority::CpuPriority;

/// How long a control request waits for its answer unless told otherwise.
pub const DEFAULT_CONTROL_TIMEOUT: Duration = Duration::from_secs(60);

/// The entry point the CLI reports in its request headers for us.
pub const ENTRYPOINT: &str = "sdk-rust";

/// Which session the process works in.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SessionStart {
    /// A new session whose id the CLI picks (first seen in `system/init`).
    #[default]
    New,
    /// A new session with an id we chose (`--session-id=<uuid>`).
    NewWithId(String),
    /// Continue an existing session in place (`--resume=<id>`).
    Resume(String),
    /// Branch from an existing session into a new one (`--resume=<id> --fork-session`).
    Fork(String),
}

/// Extended thinking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thinking {
    /// `--thinking disabled`.
    Disabled,
    /// `--thinking adaptive`.
    Adaptive,
    /// `--max-thinking-tokens N`.
    Budget(u32),
}

/// The CLI's permission modes (SPEC §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionMode {
    /// Ask the host (`can_use_tool`) for anything not allowed.
    Default,
    /// File edits are allowed without asking.
    AcceptEdits,
    /// Planning only.
    Plan,
    /// Everything allowed (refused by the CLI as root unless `IS_SANDBOX=1`).
    BypassPermissions,
    /// Anything not allowed is denied without asking.
    DontAsk,
}

impl PermissionMode {
    /// The name the CLI uses.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::DontAsk => "dontAsk",
        }
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything needed to start one CLI process.
#[derive(Debug, Clone)]
pub struct SpawnOptions {
    /// The `claude` executable (see [`super::locate`]).
    pub binary: PathBuf,
    /// Working directory of the child (the bot's data directory).
    pub cwd: PathBuf,
    /// Text appended to the `claude_code` preset prompt.
    pub append_system_prompt: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// Thinking flags.
    pub thinking: Option<Thinking>,
    /// `--permission-mode`.
    pub permission_mode: Option<PermissionMode>,
    /// `--tools`: the built-in tools offered (comma-joined; an empty list offers none);
    /// `None` = flag left out, the CLI's default set.
    pub tools: Option<Vec<String>>,
    /// `--allowedTools` (comma-joined into one value); empty = flag left out.
    pub allowed_tools: Vec<String>,
    /// `--disallowedTools`; empty = flag left out.
    pub disallowed_tools: Vec<String>,
    /// Session to start, resume or fork.
    pub session: SessionStart,
    /// `--setting-sources=a,b` when given.
    pub setting_sources: Option<Vec<String>>,
    /// Name of the in-process MCP server (`discord`).
    pub mcp_server: String,
    /// Extra environment for the child, applied after the defaults.
    pub env: BTreeMap<String, String>,
    /// How long an outbound control request waits for its answer.
    pub control_timeout: Duration,
    /// How long [`super::Driver::shutdown`] waits after closing stdin before killing.
    pub shutdown_grace: Duration,
    /// A short name for logs (`main`, `fork`, a job name).
    pub label: String,
    /// Hook callbacks registered in the initialize request.
    pub hooks: Vec<HookRegistration>,
    /// Programmatic subagents for the initialize request (name → definition).
    pub agents: Option<Value>,
    /// The child's CPU priority. Background forks start at [`CpuPriority::Background`] so
    /// that, on a small machine, the conversation's own process wins the CPU while several
    /// of them start at once.
    pub priority: CpuPriority,
    /// Remote MCP servers reached over HTTP, as (name, URL): the docs server.
    pub http_mcp: Vec<(String, String)>,
    /// `--max-budget-usd`: the CLI ends the turn once its cost passes this (SPEC §19).
    pub max_budget_usd: Option<f64>,
    /// `--max-turns`: the CLI ends the turn after this many model calls (SPEC §19).
    pub max_turns: Option<u32>,
    /// The OS sandbox for its commands (SPEC §20): the setting and the generated rules, handed
    /// over as `--settings` when the machine can sandbox ([`crate::claude::sandbox`]).
    pub sandbox: Option<crate::claude::sandbox::Sandboxing>,
}

impl SpawnOptions {
    /// Options with the defaults: new session, server `discord`, 60 s control timeout, 5 s grace.
    pub fn new(binary: impl Into<PathBuf>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            binary: binary.into(),
            cwd: cwd.into(),
            append_system_prompt: None,
            model: None,
            thinking: None,
            permission_mode: None,
            tools: None,
            allowed_tools: Vec::new(),
            disallowed_tools: Vec::new(),
            session: SessionStart::New,
            setting_sources: None,
            mcp_server: "discord".to_owned(),
            env: BTreeMap::new(),
            control_timeout: DEFAULT_CONTROL_TIMEOUT,
            shutdown_grace: Duration::from_secs(5),
            label: "brain".to_owned(),
            hooks: Vec::new(),
            priority: CpuPriority::Conversation,
            agents: None,
            http_mcp: Vec::new(),
            max_budget_usd: None,
            max_turns: None,
            sandbox: None,
        }
    }

    /// The argv after the binary; each value is its own element, nothing goes through a shell.
    pub fn args(&self) -> Vec<String> {
        let mut args: Vec<String> = ["--output-format", "stream-json", "--verbose"]
            .map(String::from)
            .to_vec();
        let mut flag = |name: &str, value: &str| {
            args.push(name.to_owned());
            args.push(value.to_owned());
        };
        if let Some(text) = &self.append_system_prompt {
            flag("--append-system-prompt", text);
        }
        if let Some(tools) = &self.tools {
            flag("--tools", &tools.join(","));
        }
        if !self.allowed_tools.is_empty() {
            flag("--allowedTools", &self.allowed_tools.join(","));
        }
        if !self.disallowed_tools.is_empty() {
            flag("--disallowedTools", &self.disallowed_tools.join(","));
        }
        if let Some(model) = &self.model {
            flag("--model", model);
        }
        flag("--permission-prompt-tool", "stdio");
        if let Some(mode) = self.permission_mode {
            flag("--permission-mode", mode.as_str());
        }
        let mut servers = serde_json::Map::new();
        servers.insert(
            self.mcp_server.clone(),
            serde_json::json!({ "type": "sdk", "name": self.mcp_server }),
        );
        for (name, url) in &self.http_mcp {
            servers.insert(
                name.clone(),
                serde_json::json!({ "type": "http", "url": url }),
            );
        }
        let mcp = serde_json::json!({ "mcpServers": servers });
        flag("--mcp-config", &mcp.to_string());
        match self.thinking {
            Some(Thinking::Disabled) => flag("--thinking", "disabled"),
            Some(Thinking::Adaptive) => flag("--thinking", "adaptive"),
            Some(Thinking::Budget(tokens)) => flag("--max-thinking-tokens", &tokens.to_string()),
            None => {}
        }
        if let Some(usd) = self.max_budget_usd {
            flag("--max-budget-usd", &format!("{usd:.4}"));
        }
        if let Some(turns) = self.max_turns {
            flag("--max-turns", &turns.to_string());
        }
        args.push("--include-partial-messages".to_owned());
        // Which lines each turn took in, on releases whose results do not name them.
        args.push("--replay-user-messages".to_owned());
        match &self.session {
            SessionStart::New => {}
            SessionStart::NewWithId(id) => args.push(format!("--session-id={id}")),
            SessionStart::Resume(id) => args.push(format!("--resume={id}")),
            SessionStart::Fork(id) => {
                args.push(format!("--resume={id}"));
                args.push("--fork-session".to_owned());
            }
        }
        if let Some(sources) = &self.setting_sources {
            args.push(format!("--setting-sources={}", sources.join(",")));
        }
        args.push("--input-format".to_owned());
        args.push("stream-json".to_owned());
        args
    }

    /// The variables set on top of the allow-listed part of the bot's environment
    /// ([`crate::base::child_env`]; never `CLAUDECODE`):
    /// entry point, session-state frames, background tasks off, `PWD`, then the caller's extras.
    ///
    /// Background tasks are off because the CLI 2.1.330 starts subagents (and, when asked,
    /// shell commands) in the background by default and hands their result back only as a
    /// later notification: a background fork ends with its turn and would never see it, and a
    /// job bound to a subagent would report before the subagent answered.
    pub fn env_overrides(&self) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        env.insert("CLAUDE_CODE_ENTRYPOINT".to_owned(), ENTRYPOINT.to_owned());
        env.insert(
            "CLAUDE_CODE_DISABLE_BACKGROUND_TASKS".to_owned(),
            "1".to_owned(),
        );
        env.insert(
            "CLAUDE_CODE_SDK_READS_SESSION_STATE".to_owned(),
            "1".to_owned(),
        );
        env.insert("PWD".to_owned(), self.cwd.display().to_string());
        env.extend(self.env.clone());
        env
    }
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
