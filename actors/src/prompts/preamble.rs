//! The background preamble: what a background fork is told before its task (SPEC §9, §7).
//!
//! Sections, in order, each ending with a blank line: ping instructions (or that pinging is
//! disabled), update instructions for the reporting mode, the busy line (busy and pings
//! allowed), *(ours)* the quiet-hours line (in quiet hours and pings allowed), budget and
//! forward schedule (pings allowed), tool restrictions (restricted
//! only), and the user-proxy hint (only when the Task tool is available). The wording is ours;
//! the budget line and schedule lines are contracts.

use chrono_tz::Tz;

use crate::jobs::UpdateMode;
use crate::prompts::forward::ForwardSchedule;

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

impl From<&crate::ping_budget::BudgetSnapshot> for BudgetFacts {
    fn from(s: &crate::ping_budget::BudgetSnapshot) -> Self {
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
        crate::ping_budget::status_line(self.available, self.capacity, self.next_refill_in_minutes)
    }
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
    /// Background jobs around now.
    pub schedule: &'a ForwardSchedule,
    /// The configured zone, for schedule times.
    pub tz: Tz,
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
    }
    if let Some(tools) = input.allowed_tools {
        out.push_str(&tools_section(tools));
    }
    if task_tool_available(input.allowed_tools) {
        out.push_str(PROXY_HINT);
    }
    out
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

const PROXY_HINT: &str =
    "When a choice depends on the user's preferences, ask the user-proxy subagent (via the Task tool).\n\n";

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
mod tests {
    use super::*;
    use crate::prompts::forward::build_forward_schedule;
    use crate::prompts::test_jobs::*;

    const BUSY_MARK: &str = "The user is mid-conversation";
    const PROXY_MARK: &str = "user-proxy subagent";
    const TOOLS_MARK: &str = "TOOL RESTRICTIONS:";

    fn schedule() -> ForwardSchedule {
        build_forward_schedule(&[at(0, bg("me")), at(30, bg("next"))], Some("me"), now())
    }

    fn preamble(
        allow_ping: bool,
        update_mode: UpdateMode,
        busy: bool,
        tools: Option<&[String]>,
    ) -> String {
        build_preamble(&PreambleInput {
            allow_ping,
            update_mode,
            busy,
            quiet_until: None,
            allowed_tools: tools,
            budget: partial_budget(),
            schedule: &schedule(),
            tz: TZ,
        })
    }

    fn tools(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn status_line_shows_next_refill_unless_full() {
        assert_eq!(
            partial_budget().status_line(),
            "budget: 3/5 (next refill in 42 min)"
        );
        assert_eq!(full_budget().status_line(), "budget: 5/5");
    }

    #[test]
    fn ping_allowed_names_both_tools_and_shows_budget_and_schedule() {
        let text = preamble(true, UpdateMode::OnPing, false, None);
        assert!(text.contains("`ping_user`") && text.contains("`discord_embed`"));
        assert!(!text.contains("pinging is disabled"));
        assert!(text.contains("\nbudget: 3/5 (next refill in 42 min)\n"));
        assert!(text.contains("\nUpcoming bg tasks (next 12h):\n- 9:00 AM: Routine — "));
        assert!(text.contains("(routines/next-file.md)\n"));
        assert!(text.contains("`critical=True`"));
    }

    #[test]
    fn ping_disabled_says_so_and_has_no_budget_or_schedule() {
        let text = preamble(false, UpdateMode::OnPing, true, None);
        assert!(text.contains("pinging is disabled"));
        assert!(!text.contains("budget:"));
        assert!(!text.contains("Upcoming bg tasks"));
        assert!(!text.contains("No more bg tasks today."));
    }

    #[test]
    fn each_update_mode_has_its_own_instructions() {
        let always = preamble(true, UpdateMode::Always, false, None);
        assert!(always.contains("you MUST call `report_updates(message)`"));

        let on_ping = preamble(true, UpdateMode::OnPing, false, None);
        assert!(
            on_ping.contains("If you send a ping or an embed, you MUST also call `report_updates`")
        );
        assert!(on_ping.contains("call neither"));

        let freely = preamble(true, UpdateMode::Freely, false, None);
        assert!(freely.contains("Calling `report_updates(message)` is up to you"));

        let blocked_ping = preamble(true, UpdateMode::Blocked, false, None);
        assert!(blocked_ping.contains("`report_updates` is not available"));
        assert!(blocked_ping.contains("You can still ping the user directly"));

        let blocked_silent = preamble(false, UpdateMode::Blocked, false, None);
        assert!(blocked_silent.contains("`report_updates` is not available"));
        assert!(blocked_silent.contains("This task runs silently."));
        assert!(!blocked_silent.contains("still ping"));

        for report_free in [&always, &on_ping, &freely] {
            assert!(!report_free.contains("`report_updates` is not available"));
        }
        let all = [always, on_ping, freely, blocked_ping, blocked_silent];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn blocked_mode_does_not_steer_pings_to_report_updates() {
        let text = preamble(true, UpdateMode::Blocked, true, None);
        assert!(!text.contains("belong in `report_updates`"));
        assert!(!text.contains("findings in `report_updates`"));
        assert!(text.contains(BUSY_MARK));
    }

    #[test]
    fn busy_line_only_when_busy_and_pings_allowed() {
        assert!(preamble(true, UpdateMode::OnPing, true, None).contains(BUSY_MARK));
        assert!(!preamble(true, UpdateMode::OnPing, false, None).contains(BUSY_MARK));
        assert!(!preamble(false, UpdateMode::OnPing, true, None).contains(BUSY_MARK));
    }

    #[test]
    fn quiet_hours_line_says_until_when_only_in_quiet_hours_with_pings_allowed() {
        let build = |allow_ping, quiet_until| {
            build_preamble(&PreambleInput {
                allow_ping,
                update_mode: UpdateMode::OnPing,
                busy: true,
                quiet_until,
                allowed_tools: None,
                budget: partial_budget(),
                schedule: &schedule(),
                tz: TZ,
            })
        };
        let quiet = build(true, Some("8:00 AM"));
        assert!(
            quiet.contains("Quiet hours are on until 8:00 AM: `ping_user` and `discord_embed` will be refused unless `critical=True`."),
            "{quiet}"
        );
        let (busy, hours, budget) = (
            quiet.find(BUSY_MARK),
            quiet.find("Quiet hours are on"),
            quiet.find("budget: 3/5"),
        );
        assert!(busy < hours && hours < budget, "{quiet}");
        assert!(!build(true, None).contains("Quiet hours"));
        assert!(!build(false, Some("8:00 AM")).contains("Quiet hours"));
    }

    #[test]
    fn tool_restrictions_list_the_allowed_tools_only_when_restricted() {
        let allowed = tools(&["mcp__discord__ping_user", "Bash(ollim-bot help)"]);
        let text = preamble(true, UpdateMode::OnPing, false, Some(&allowed));
        assert!(text.contains(
            "TOOL RESTRICTIONS: only these tools are available for this task:\n  \
             - mcp__discord__ping_user\n  - Bash(ollim-bot help)\n\n"
        ));
        assert!(!preamble(true, UpdateMode::OnPing, false, None).contains(TOOLS_MARK));
    }

    #[test]
    fn user_proxy_hint_only_when_task_tool_available() {
        assert!(preamble(true, UpdateMode::OnPing, false, None).contains(PROXY_MARK));
        let without = tools(&["Read"]);
        let text = preamble(true, UpdateMode::OnPing, false, Some(&without));
        assert!(!text.contains(PROXY_MARK));
        let with = tools(&["Read", "Task"]);
        let text = preamble(true, UpdateMode::OnPing, false, Some(&with));
        assert!(text.contains(PROXY_MARK));
    }

    #[test]
    fn sections_come_in_spec_order_each_ending_with_a_blank_line() {
        let allowed = tools(&["Task"]);
        let text = preamble(true, UpdateMode::Always, true, Some(&allowed));
        let order = [
            "`discord_embed`",
            "you MUST call `report_updates(message)`",
            BUSY_MARK,
            "budget: 3/5",
            TOOLS_MARK,
            PROXY_MARK,
        ];
        let positions: Vec<usize> = order.iter().filter_map(|m| text.find(m)).collect();
        assert_eq!(positions.len(), order.len());
        assert!(positions.windows(2).all(|w| w[0] < w[1]));
        assert!(text.ends_with(".\n\n"));
        assert_eq!(text.matches("\n\n").count(), 6);
    }
}
