//! The background preamble: what a background fork is told before its task (SPEC §9, §7).
//!
//! Sections, in order, each ending with a blank line: ping instructions (or that pinging is
//! disabled), update instructions for the reporting mode, the busy line (busy and pings
//! allowed), *(ours)* the quiet-hours line (in quiet hours and pings allowed), budget and
//! forward schedule (pings allowed), tool restrictions (restricted
//! only), the user-proxy hint (only when the Task tool is available), and the Google status
//! line (always: whether Google is connected, so a task that uses it can skip those steps
//! quietly when it is not; the original's since 2026-03-20). The wording is ours; the budget
//! line and schedule lines are contracts.

use chrono_tz::Tz;

use crate::agent::prompts::forward::ForwardSchedule;
use crate::jobs::UpdateMode;

/// The ping budget as the preamble needs it (mapped from the PingBudget actor's snapshot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetFacts {
    /// Whole tokens available now.
    pub available: u32,
    /// Bucket capacity.
    pub capacity: u32,
    /// Minutes per refilled token.
    pub refill_minutes: u32,
    /// Minutes until the next token; `None` when the bucket is full.
    pub next_refill_in_minutes: Option<u32>,
}

impl From<&crate::records::ping_budget::BudgetSnapshot> for BudgetFacts {
    fn from(s: &crate::records::ping_budget::BudgetSnapshot) -> Self {
        BudgetFacts {
            available: s.whole_tokens,
            capacity: s.capacity,
            refill_minutes: s.refill_rate_minutes,
            next_refill_in_minutes: s.next_refill_in_minutes,
        }
    }
}

impl BudgetFacts {
    /// What to assume when the budget cannot be read: nothing to spend.
    pub fn empty() -> Self {
        BudgetFacts {
            available: 0,
            capacity: 0,
            refill_minutes: 90,
            next_refill_in_minutes: None,
        }
    }

    /// The status line: `budget: 3/5 (next refill in 42 min)`, or `budget: 5/5` when full.
    pub fn status_line(&self) -> String {
        crate::records::ping_budget::status_line(
            self.available,
            self.capacity,
            self.next_refill_in_minutes,
        )
    }
}

/// Whether Google is connected, as the preamble tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoogleStatus {
    /// A grant is there and usable (an expired access token that can be refreshed counts).
    Connected,
    /// Never set up, not authorised, revoked (the token file is then removed), or unreadable.
    NotConnected,
}

/// Everything the preamble depends on.
#[derive(Debug, Clone, Copy)]
pub struct PreambleInput<'a> {
    /// `allow-ping` of the job.
    pub allow_ping: bool,
    /// `update-main-session` of the job.
    pub update_mode: UpdateMode,
    /// The user is mid-conversation (the main session is busy).
    pub busy: bool,
    /// Quiet hours are in effect until this time (`8:00 AM`); `None` outside them.
    pub quiet_until: Option<&'a str>,
    /// The job's effective tool list; `None` when tools are not restricted.
    pub allowed_tools: Option<&'a [String]>,
    /// The ping budget now.
    pub budget: BudgetFacts,
    /// *(ours, SPEC §19)* `spend today: $1.20 of $10.00`, beside the budget line (`None`: no
    /// daily cap).
    pub spend: Option<&'a str>,
    /// Background jobs around now.
    pub schedule: &'a ForwardSchedule,
    /// The configured zone, for schedule times.
    pub tz: Tz,
    /// Whether Google is connected.
    pub google: GoogleStatus,
}

/// Builds the preamble; every section ends with a blank line.
pub fn build_preamble(input: &PreambleInput<'_>) -> String {
    let mut out = String::new();
    out.push_str(ping_section(input.allow_ping));
    out.push_str(update_section(input.update_mode, input.allow_ping));
    if input.busy && input.allow_ping {
        out.push_str(busy_section(input.update_mode));
    }
    if let (Some(until), true) = (input.quiet_until, input.allow_ping) {
        out.push_str(&quiet_section(until, input.update_mode));
    }
    if input.allow_ping {
        out.push_str(&budget_section(input));
    } else if let Some(spend) = input.spend {
        out.push_str(&format!("{spend}\n\n"));
    }
    if let Some(tools) = input.allowed_tools {
        out.push_str(&tools_section(tools));
    }
    if task_tool_available(input.allowed_tools) {
        out.push_str(PROXY_HINT);
    }
    out.push_str(google_section(input.google));
    out
}

fn google_section(google: GoogleStatus) -> &'static str {
    match google {
        GoogleStatus::Connected => "Google (Tasks, Calendar, Gmail): connected.\n\n",
        GoogleStatus::NotConnected => concat!(
            "Google (Tasks, Calendar, Gmail): not connected. Skip every step that needs ",
            "`ollim-bot tasks`, `ollim-bot cal` or `ollim-bot gmail` without trying them, and ",
            "do not ping or report about the missing connection; the user connects it with ",
            "/google-auth when they want to.\n\n",
        ),
    }
}

fn ping_section(allow_ping: bool) -> &'static str {
    if allow_ping {
        const TEXT: &str = concat!(
            "Whatever you write as plain text is thrown away; the user never sees it. ",
            "To reach the user, send a short plain message with `ping_user`, or structured ",
            "content with `discord_embed`.\n\n",
        );
        TEXT
    } else {
        const TEXT: &str = concat!(
            "Whatever you write as plain text is thrown away; the user never sees it. ",
            "For this task pinging is disabled: `ping_user` and `discord_embed` are not ",
            "available.\n\n",
        );
        TEXT
    }
}

fn update_section(mode: UpdateMode, allow_ping: bool) -> &'static str {
    match (mode, allow_ping) {
        (UpdateMode::Always, _) => concat!(
            "You run in a throwaway fork of the conversation: when you finish, it is discarded.\n",
            "Before finishing you MUST call `report_updates(message)` with a short account of ",
            "what happened, so the main session learns of it.\n\n",
        ),
        (UpdateMode::OnPing, _) => concat!(
            "You run in a throwaway fork of the conversation: when you finish, it is discarded.\n",
            "- Call `report_updates(message)` to tell the main session what happened, if it is ",
            "worth knowing.\n",
            "- If you send a ping or an embed, you MUST also call `report_updates`, so the main ",
            "session knows why you reached out.\n",
            "- If nothing useful came of this run, call neither.\n\n",
        ),
        (UpdateMode::Freely, _) => concat!(
            "You run in a throwaway fork of the conversation: when you finish, it is discarded.\n",
            "Calling `report_updates(message)` is up to you: use it when the main session would ",
            "benefit, or simply finish.\n",
            "If you pinged the user, do report, so the main session has the context for your ",
            "message.\n\n",
        ),
        (UpdateMode::Blocked, true) => concat!(
            "You run in a fork whose results never reach the main session: `report_updates` is ",
            "not available, and the main conversation will not know this task ran. You can still ",
            "ping the user directly when something is time-sensitive.\n\n",
        ),
        (UpdateMode::Blocked, false) => concat!(
            "You run in a fork whose results never reach the main session: `report_updates` is ",
            "not available. This task runs silently.\n\n",
        ),
    }
}

fn busy_section(mode: UpdateMode) -> &'static str {
    if mode == UpdateMode::Blocked {
        concat!(
            "The user is mid-conversation right now. Do NOT use `ping_user` or `discord_embed` ",
            "unless the matter is urgent enough for `critical=True`.\n\n",
        )
    } else {
        concat!(
            "The user is mid-conversation right now. Do NOT use `ping_user` or `discord_embed` ",
            "unless the matter is urgent enough for `critical=True`. Put your findings in ",
            "`report_updates` instead; the main session sees them once the conversation ",
            "pauses.\n\n",
        )
    }
}

fn quiet_section(until: &str, mode: UpdateMode) -> String {
    let instead = if mode == UpdateMode::Blocked {
        "Let this run stay silent"
    } else {
        "Put what you find in `report_updates`; the main session passes it on later"
    };
    format!(
        "Quiet hours are on until {until}: `ping_user` and `discord_embed` will be refused \
         unless `critical=True`. {instead}, and keep `critical=True` for what cannot wait until \
         {until}.\n\n"
    )
}

fn budget_section(input: &PreambleInput<'_>) -> String {
    let budget = &input.budget;
    let mut out = budget.status_line();
    out.push('\n');
    if let Some(spend) = input.spend {
        out.push_str(spend);
        out.push('\n');
    }
    out.push_str(&format!(
        "One token comes back every {} min, up to {}.\n",
        budget.refill_minutes, budget.capacity
    ));
    out.push_str(&input.schedule.render(input.tz, budget));
    out.push_str("Send at most 1 ping or embed in this background run.\n");
    if input.update_mode == UpdateMode::Blocked {
        out.push_str(concat!(
            "Before pinging, ask: would the user regret missing this? Let low-stakes check-ins ",
            "go; time-sensitive actions, accountability nudges and health routines deserve a ",
            "ping.\n",
        ));
    } else {
        out.push_str(concat!(
            "Before pinging, ask: would the user regret missing this? Summaries and low-stakes ",
            "check-ins belong in `report_updates`; time-sensitive actions, accountability nudges ",
            "and health routines deserve a ping. When the budget is low, keep pings for what the ",
            "user would regret missing.\n",
        ));
    }
    out.push_str(concat!(
        "`critical=True` skips the budget: keep it for things the user would be devastated ",
        "to miss.\n\n",
    ));
    out
}

fn tools_section(tools: &[String]) -> String {
    let mut out =
        String::from("TOOL RESTRICTIONS: only these tools are available for this task:\n");
    for tool in tools {
        out.push_str(&format!("  - {tool}\n"));
    }
    out.push('\n');
    out
}

const PROXY_HINT: &str = concat!(
    "When a choice depends on the user's preferences, ask the user-proxy subagent (via the Task ",
    "tool) about one concrete case. Its confidence: HIGH, act on it; MEDIUM, act on it and say ",
    "in `report_updates` what it found and what the user could clarify; LOW, take the safe ",
    "default (skip or postpone), or ping if the decision matters enough.\n\n",
);

/// Whether the Task tool (which spawns subagents) is usable: tools unrestricted, or `Task`
/// listed (the CLI's newer name `Agent` counts too).
pub fn task_tool_available(allowed_tools: Option<&[String]>) -> bool {
    match allowed_tools {
        None => true,
        Some(tools) => tools.iter().any(|t| {
            let name = t.split('(').next().unwrap_or(t);
            name == "Task" || name == "Agent"
        }),
    }
}

#[cfg(test)]
#[path = "preamble_tests.rs"]
mod tests;
