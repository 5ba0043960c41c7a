//! The one table of which tool each kind of session is offered (SPEC §6, §10, §16), and what
//! follows from it for a CLI process: the built-ins named with `--tools`, the tools taken away
//! with `--disallowedTools`, the `discord` tools its server lists, a background job's effective
//! allow list, and the check of the tools a CLI release lists at start (`system/init`).
//!
//! The conversation (main session, interactive forks) is offered the built-ins an assistant
//! uses — files, Bash, search, the web, subagents, skills — and not the CLI's coding-agent
//! tools (worktrees, to-do lists, workflows, notebooks…), whose definitions would be sent and
//! paid for on every turn; `tool-policy.yaml`'s `main_session.additional_allowed` brings any of
//! them back from the next start of the conversation's process. The CLI's scheduling tools,
//! which live inside one process and vanish with it, are off everywhere (routines and reminders
//! are the bot's scheduling). It gets only the `discord` tools that can apply to it.
//! A background fork is offered only its effective set: its reply tools, the default background
//! set (or `tool-policy.yaml`'s), its job's `allowed-tools` and its skills', less what its
//! settings take away. The built-ins below are those of the pinned CLI (2.1.330): its default
//! set (with a host answering permission prompts, as ours does, it adds `AskUserQuestion` and
//! the plan-mode tools), plus `Glob`, `Grep` and the `Task*` list tools, which it offers only
//! when named.

use super::schema::{ToolName, SERVER_NAME};
use super::session_kind::{BackgroundRules, SessionKind};

pub use super::unclassified::{note_init_tools, unclassified};

/// A background fork's ways back to the user (SPEC §6): on every fork's allow list, whatever
/// the job declares or `tool-policy.yaml` says; `allow-ping` and `update-main-session` decide
/// which of them it is offered (the table below). *(ours)* `send_file` is one of them: a file
/// reaches the owner as a ping or an embed does, through the same checks.
pub const BG_REPLY_TOOLS: [&str; 5] = [
    "mcp__discord__report_updates",
    "mcp__discord__ping_user",
    "mcp__discord__discord_embed",
    "mcp__discord__follow_up_chain",
    "mcp__discord__send_file",
];

/// The original's default background tools (SPEC §17): the bot's help and task commands,
/// markdown files in the data directory, and the reminder tools. `tool-policy.yaml`'s
/// `bg_forks.override` replaces this set; everything else adds to it.
pub const DEFAULT_BG_TOOLS: [&str; 8] = [
    "Bash(ollim-bot help)",
    "Bash(ollim-bot tasks *)",
    "Read(./**.md)",
    "Glob(./**.md)",
    "Grep(./**.md)",
    "mcp__discord__add_reminder",
    "mcp__discord__list_reminders",
    "mcp__discord__cancel_reminder",
];

/// When one kind of session is offered a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Never: taken away with `--disallowedTools`.
    Never,
    /// Always.
    Always,
    /// When the allowed set names it: a background job's, or for the conversation
    /// `tool-policy.yaml`'s `main_session.additional_allowed`.
    WhenAllowed,
    /// Background: when the job may ping (`allow-ping`).
    WhenPinging,
    /// Background: when reporting is not `blocked`.
    WhenReporting,
    /// Background: on a chain reminder with checks left, reporting not `blocked`.
    WhenChainContinues,
}

/// A tool the table classifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// A CLI built-in, by the name `--tools` and `system/init` use.
    BuiltIn(&'static str),
    /// A tool of our `discord` server.
    Discord(ToolName),
}

/// One tool and what each kind of session is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The tool.
    pub tool: Tool,
    /// The main session.
    pub main: Offer,
    /// An interactive fork.
    pub interactive: Offer,
    /// A background fork.
    pub background: Offer,
}

/// A built-in an assistant uses: the conversation always has it, a job when it names it.
const fn assistant(name: &'static str) -> Row {
    Row {
        tool: Tool::BuiltIn(name),
        main: Offer::Always,
        interactive: Offer::Always,
        background: Offer::WhenAllowed,
    }
}

/// A built-in for coding agents (or the CLI's own apps): offered only where named.
const fn on_request(name: &'static str) -> Row {
    Row {
        tool: Tool::BuiltIn(name),
        main: Offer::WhenAllowed,
        interactive: Offer::WhenAllowed,
        background: Offer::WhenAllowed,
    }
}

const fn never(name: &'static str) -> Row {
    Row {
        tool: Tool::BuiltIn(name),
        main: Offer::Never,
        interactive: Offer::Never,
        background: Offer::Never,
    }
}

const fn discord(tool: ToolName, main: Offer, interactive: Offer, background: Offer) -> Row {
    Row {
        tool: Tool::Discord(tool),
        main,
        interactive,
        background,
    }
}

use Offer::{Always, Never, WhenAllowed, WhenChainContinues, WhenPinging, WhenReporting};

/// The table.
pub const TABLE: [Row; 46] = [
    // The CLI's built-ins an assistant uses.
    assistant("Task"),
    assistant("Bash"),
    assistant("Read"),
    assistant("Write"),
    assistant("Edit"),
    assistant("Glob"),
    assistant("Grep"),
    assistant("WebFetch"),
    assistant("WebSearch"),
    assistant("Skill"),
    // Listed by the CLI 2.1.330 only when it talks to Anthropic's API (not to the tests' mock):
    // the deferred-tool search, through which the model reaches the tools sent deferred.
    assistant("ToolSearch"),
    // The coding agent's: notebooks, worktrees, agent teams, background monitors, to-do lists,
    // workflows; and two tools of the CLI's own apps, seen at a real start.
    on_request("NotebookEdit"),
    on_request("EnterWorktree"),
    on_request("ExitWorktree"),
    on_request("ListAgents"),
    on_request("Monitor"),
    on_request("ReportFindings"),
    on_request("SendMessage"),
    on_request("TaskStop"),
    on_request("TaskCreate"),
    on_request("TaskGet"),
    on_request("TaskList"),
    on_request("TaskUpdate"),
    // 2.1.197's reader of a background task's output (later releases dropped it).
    on_request("TaskOutput"),
    on_request("Workflow"),
    on_request("Artifact"),
    on_request("DesignSync"),
    // The CLI's scheduling, which dies with its process: off everywhere.
    never("CronCreate"),
    never("CronDelete"),
    never("CronList"),
    never("ScheduleWakeup"),
    // Tools that need the CLI's own terminal UI, which the bot does not have: a question form,
    // and plan mode (left only by the user approving a plan there).
    never("AskUserQuestion"),
    never("EnterPlanMode"),
    never("ExitPlanMode"),
    // Our `discord` server.
    discord(ToolName::DiscordEmbed, Always, Always, WhenPinging),
    discord(ToolName::PingUser, Never, Never, WhenPinging),
    // No session tracks a foreground chain reminder, so the conversation cannot extend one.
    discord(ToolName::FollowUpChain, Never, Never, WhenChainContinues),
    discord(ToolName::SaveContext, Never, Always, Never),
    discord(ToolName::ReportUpdates, Never, Always, WhenReporting),
    discord(ToolName::EnterFork, Always, Never, Never),
    discord(ToolName::ExitFork, Never, Always, Never),
    discord(ToolName::AddReminder, Always, Always, WhenAllowed),
    discord(ToolName::ListReminders, Always, Always, WhenAllowed),
    discord(ToolName::CancelReminder, Always, Always, WhenAllowed),
    discord(ToolName::SendFile, Always, Always, WhenPinging),
    discord(ToolName::UpdateNames, Always, Always, Never),
];

/// Another name the CLI uses for a built-in (`Agent`, which the model sees, for `Task`).
fn canonical(name: &str) -> &str {
    match name {
        "Agent" => "Task",
        other => other,
    }
}

/// The row of a built-in, by either of its names.
pub(super) fn built_in_row(name: &str) -> Option<&'static Row> {
    let name = canonical(name);
    TABLE
        .iter()
        .find(|row| matches!(row.tool, Tool::BuiltIn(n) if n == name))
}

/// The row of a `discord` tool (every tool has one; a test keeps it so).
fn discord_row(tool: ToolName) -> Option<&'static Row> {
    TABLE.iter().find(|row| row.tool == Tool::Discord(tool))
}

/// The tool a pattern names: `Bash` of `Bash(ollim-bot help)`.
fn pattern_tool(pattern: &str) -> &str {
    let pattern = pattern.trim();
    pattern.split('(').next().unwrap_or(pattern).trim()
}

/// Whether an allow-list pattern names the `discord` tool `tool` (its full name, the whole
/// server `mcp__discord`, or a prefix ending in `*`).
fn names_discord_tool(pattern: &str, tool: ToolName) -> bool {
    let name = pattern_tool(pattern);
    let qualified = tool.qualified();
    name == qualified
        || name == format!("mcp__{SERVER_NAME}")
        || name
            .strip_suffix('*')
            .is_some_and(|prefix| prefix.starts_with("mcp__") && qualified.starts_with(prefix))
}

/// The `discord` tool a pattern names by its full name, when it names one.
fn discord_tool_of(pattern: &str) -> Option<ToolName> {
    let rest = pattern_tool(pattern).strip_prefix(&format!("mcp__{SERVER_NAME}__"))?;
    ToolName::parse(rest)
}

impl BackgroundRules {
    /// Whether the job's allowed set names `tool`.
    fn names(&self, tool: Tool) -> bool {
        self.allowed.iter().any(|p| match tool {
            Tool::Discord(t) => names_discord_tool(p, t),
            Tool::BuiltIn(name) => canonical(pattern_tool(p)) == canonical(name),
        })
    }

    /// Whether a job with these rules is offered a tool whose background offer is `offer`.
    fn granted(&self, offer: Offer, tool: Tool) -> bool {
        match offer {
            Never => false,
            Always => true,
            WhenAllowed => self.names(tool),
            WhenPinging => self.allow_ping,
            WhenReporting => !self.reporting_blocked(),
            WhenChainContinues => {
                !self.reporting_blocked() && self.chain.is_some_and(|c| c.can_follow_up())
            }
        }
    }
}

impl SessionKind {
    /// This kind's offer in `row`.
    fn offer(&self, row: &Row) -> Offer {
        match self {
            SessionKind::Main => row.main,
            SessionKind::InteractiveFork => row.interactive,
            SessionKind::Background(_) => row.background,
        }
    }

    /// Whether this session is offered `tool` without naming it: a built-in the table does not
    /// know (a newer CLI's) is offered, like a coding-agent one, only where named (see
    /// [`Self::built_in_tools`]).
    pub fn offers(&self, tool: Tool) -> bool {
        let row = match tool {
            Tool::Discord(t) => discord_row(t),
            Tool::BuiltIn(name) => built_in_row(name),
        };
        let offer = match row {
            Some(row) => self.offer(row),
            None if matches!(tool, Tool::Discord(_)) => Never,
            None => WhenAllowed,
        };
        match self {
            SessionKind::Background(rules) => rules.granted(offer, tool),
            _ => offer == Always,
        }
    }

    /// The `discord` tools this session's server lists, in the server's order.
    pub fn listed_tools(&self) -> Vec<ToolName> {
        ToolName::ALL
            .into_iter()
            .filter(|tool| self.offers(Tool::Discord(*tool)))
            .collect()
    }

    /// The built-ins for `--tools`. The conversation: the assistant's built-ins of the table,
    /// and those `granted` names (`tool-policy.yaml`'s `main_session.additional_allowed`, as
    /// validated) unless the table keeps them from everyone. A background fork: exactly the
    /// built-ins its effective set names (its share of the policy is in its rules already, so
    /// `granted` is not read).
    pub fn built_in_tools(&self, granted: &[String]) -> Vec<String> {
        let named: Vec<String> = match self {
            SessionKind::Background(_) => self.effective_allowed(),
            _ => TABLE
                .iter()
                .filter_map(|row| match row.tool {
                    Tool::BuiltIn(name) if self.offer(row) == Always => Some(name.to_owned()),
                    _ => None,
                })
                .chain(
                    granted
                        .iter()
                        .filter(|p| {
                            built_in_row(pattern_tool(p)).is_none_or(|row| self.offer(row) != Never)
                        })
                        .cloned(),
                )
                .collect(),
        };
        let mut out: Vec<String> = Vec::new();
        for pattern in named {
            let name = canonical(pattern_tool(&pattern));
            if name.starts_with("mcp__") || out.iter().any(|t| t == name) {
                continue;
            }
            out.push(name.to_owned());
        }
        out
    }

    /// `--disallowedTools`: the built-ins this kind is never offered (the CLI's scheduling),
    /// then the `discord` tools it is not offered; no allow rule brings these back.
    pub fn disallowed_tools(&self) -> Vec<String> {
        let never = TABLE.iter().filter_map(|row| match row.tool {
            Tool::BuiltIn(name) if self.offer(row) == Never => Some(name.to_owned()),
            _ => None,
        });
        let discord = ToolName::ALL
            .into_iter()
            .filter(|tool| !self.offers(Tool::Discord(*tool)))
            .map(ToolName::qualified);
        never.chain(discord).collect()
    }

    /// A background job's allow list as offered: its declared patterns without those naming a
    /// tool this fork is not offered (`ping_user` without `allow-ping`, the CLI's scheduling…).
    /// Empty for the conversation, whose allow list is the permission policy's.
    pub fn effective_allowed(&self) -> Vec<String> {
        let SessionKind::Background(rules) = self else {
            return Vec::new();
        };
        rules
            .allowed
            .iter()
            .filter(|pattern| {
                if let Some(tool) = discord_tool_of(pattern) {
                    return self.offers(Tool::Discord(tool));
                }
                let name = pattern_tool(pattern);
                name.starts_with("mcp__")
                    || built_in_row(name).is_none_or(|row| row.background != Never)
            })
            .cloned()
            .collect()
    }
}

#[cfg(test)]
#[path = "offer_tests.rs"]
mod tests;
