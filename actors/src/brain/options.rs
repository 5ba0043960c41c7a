//! What to spawn: the options of one CLI process and their translation into argv and environment
//! (protocol reference §3). Pure functions, so every flag is checked by unit tests without a process.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::host::HookRegistration;
use crate::cpu_priority::CpuPriority;

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
    /// ([`crate::child_env`]; never `CLAUDECODE`):
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
mod tests {
    use super::*;

    fn options() -> SpawnOptions {
        SpawnOptions::new("/bin/claude", "/data")
    }

    fn value_after<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
        let at = args.iter().position(|a| a == flag)?;
        args.get(at + 1).map(String::as_str)
    }

    #[test]
    fn always_speaks_stream_json_with_partial_messages_and_stdio_permissions() {
        let args = options().args();
        assert_eq!(value_after(&args, "--output-format"), Some("stream-json"));
        assert_eq!(value_after(&args, "--input-format"), Some("stream-json"));
        assert!(args.contains(&"--verbose".to_owned()));
        assert!(args.contains(&"--include-partial-messages".to_owned()));
        assert_eq!(
            value_after(&args, "--permission-prompt-tool"),
            Some("stdio")
        );
        let mcp: serde_json::Value =
            serde_json::from_str(value_after(&args, "--mcp-config").unwrap_or("null"))
                .unwrap_or_default();
        assert_eq!(
            mcp,
            serde_json::json!({"mcpServers":{"discord":{"type":"sdk","name":"discord"}}})
        );
    }

    #[test]
    fn the_spend_limits_are_flags_only_when_set() {
        let args = options().args();
        assert!(!args.contains(&"--max-budget-usd".to_owned()));
        assert!(!args.contains(&"--max-turns".to_owned()));
        let mut o = options();
        o.max_budget_usd = Some(0.75);
        o.max_turns = Some(40);
        let args = o.args();
        assert_eq!(value_after(&args, "--max-budget-usd"), Some("0.7500"));
        assert_eq!(value_after(&args, "--max-turns"), Some("40"));
    }

    #[test]
    fn an_http_mcp_server_joins_the_discord_server_in_the_mcp_config() {
        let mut opts = options();
        opts.http_mcp = vec![("docs".into(), "http://127.0.0.1:9/mcp".into())];
        let args = opts.args();
        let mcp: serde_json::Value =
            serde_json::from_str(value_after(&args, "--mcp-config").unwrap_or("null"))
                .unwrap_or_default();
        assert_eq!(
            mcp,
            serde_json::json!({"mcpServers":{
                "discord":{"type":"sdk","name":"discord"},
                "docs":{"type":"http","url":"http://127.0.0.1:9/mcp"}
            }})
        );
    }

    #[test]
    fn resume_and_session_id_use_the_equals_form() {
        let mut opts = options();
        opts.session = SessionStart::Resume("-odd-id".into());
        assert!(opts.args().contains(&"--resume=-odd-id".to_owned()));
        assert!(!opts.args().contains(&"--fork-session".to_owned()));
        opts.session = SessionStart::Fork("abc".into());
        let args = opts.args();
        assert!(args.contains(&"--resume=abc".to_owned()));
        assert!(args.contains(&"--fork-session".to_owned()));
        opts.session = SessionStart::NewWithId("u-1".into());
        assert!(opts.args().contains(&"--session-id=u-1".to_owned()));
    }

    #[test]
    fn tool_lists_are_one_comma_joined_value_and_absent_when_empty() {
        let mut opts = options();
        assert!(!opts.args().contains(&"--allowedTools".to_owned()));
        opts.allowed_tools = vec!["Read".into(), "Bash(ollim-bot help)".into()];
        opts.disallowed_tools = vec!["WebFetch".into()];
        let args = opts.args();
        assert_eq!(
            value_after(&args, "--allowedTools"),
            Some("Read,Bash(ollim-bot help)")
        );
        assert_eq!(value_after(&args, "--disallowedTools"), Some("WebFetch"));
        assert!(!args.contains(&"--tools".to_owned()));
    }

    #[test]
    fn built_in_tools_are_named_or_emptied_with_tools() {
        let mut opts = options();
        opts.tools = Some(vec!["Bash".into(), "Read".into()]);
        assert_eq!(value_after(&opts.args(), "--tools"), Some("Bash,Read"));
        opts.tools = Some(Vec::new());
        assert_eq!(value_after(&opts.args(), "--tools"), Some(""));
    }

    #[test]
    fn thinking_model_mode_prompt_and_sources_map_to_their_flags() {
        let mut opts = options();
        opts.thinking = Some(Thinking::Budget(8000));
        opts.model = Some("claude-sonnet-4-5".into());
        opts.permission_mode = Some(PermissionMode::DontAsk);
        opts.append_system_prompt = Some("be brief\nreally".into());
        opts.setting_sources = Some(vec!["user".into(), "project".into()]);
        let args = opts.args();
        assert_eq!(value_after(&args, "--max-thinking-tokens"), Some("8000"));
        assert_eq!(value_after(&args, "--model"), Some("claude-sonnet-4-5"));
        assert_eq!(value_after(&args, "--permission-mode"), Some("dontAsk"));
        assert_eq!(
            value_after(&args, "--append-system-prompt"),
            Some("be brief\nreally")
        );
        assert!(args.contains(&"--setting-sources=user,project".to_owned()));
        opts.thinking = Some(Thinking::Disabled);
        assert_eq!(value_after(&opts.args(), "--thinking"), Some("disabled"));
        opts.thinking = Some(Thinking::Adaptive);
        assert_eq!(value_after(&opts.args(), "--thinking"), Some("adaptive"));
    }

    #[test]
    fn environment_names_us_and_lets_the_caller_override() {
        let mut opts = options();
        opts.env
            .insert("ANTHROPIC_BASE_URL".into(), "http://x".into());
        opts.env
            .insert("CLAUDE_CODE_ENTRYPOINT".into(), "custom".into());
        let env = opts.env_overrides();
        assert_eq!(env.get("PWD").map(String::as_str), Some("/data"));
        assert_eq!(
            env.get("CLAUDE_CODE_SDK_READS_SESSION_STATE")
                .map(String::as_str),
            Some("1")
        );
        assert_eq!(
            env.get("ANTHROPIC_BASE_URL").map(String::as_str),
            Some("http://x")
        );
        assert_eq!(
            env.get("CLAUDE_CODE_ENTRYPOINT").map(String::as_str),
            Some("custom")
        );
        assert_eq!(
            options()
                .env_overrides()
                .get("CLAUDE_CODE_ENTRYPOINT")
                .map(String::as_str),
            Some(ENTRYPOINT)
        );
    }
}
