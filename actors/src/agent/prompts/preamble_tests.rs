use super::*;
use crate::agent::prompts::forward::build_forward_schedule;
use crate::agent::prompts::test_jobs::*;

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
        spend: None,
        schedule: &schedule(),
        tz: TZ,
        google: GoogleStatus::NotConnected,
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
    assert!(text.contains("\nUpcoming bg tasks (next 1h):\n- 9:00 AM: Routine — "));
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
    assert!(on_ping.contains("If you send a ping or an embed, you MUST also call `report_updates`"));
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
            spend: None,
            schedule: &schedule(),
            tz: TZ,
            google: GoogleStatus::NotConnected,
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
    // What to do with each of its confidence levels is said here, where the fork reads it.
    for level in [
        "HIGH, act on it",
        "MEDIUM, act on it",
        "LOW, take the safe default",
    ] {
        assert!(text.contains(level), "{level}: {text}");
    }
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
        "Google (Tasks, Calendar, Gmail):",
    ];
    let positions: Vec<usize> = order.iter().filter_map(|m| text.find(m)).collect();
    assert_eq!(positions.len(), order.len());
    assert!(positions.windows(2).all(|w| w[0] < w[1]));
    assert!(text.ends_with(".\n\n"));
    assert_eq!(text.matches("\n\n").count(), 7);
}

#[test]
fn google_status_line_says_whether_google_is_connected() {
    let build = |allow_ping, google| {
        build_preamble(&PreambleInput {
            allow_ping,
            update_mode: UpdateMode::OnPing,
            busy: false,
            quiet_until: None,
            allowed_tools: Some(&[]),
            budget: partial_budget(),
            spend: None,
            schedule: &schedule(),
            tz: TZ,
            google,
        })
    };
    for allow_ping in [true, false] {
        let off = build(allow_ping, GoogleStatus::NotConnected);
        assert!(
            off.ends_with(
                "Google (Tasks, Calendar, Gmail): not connected. Skip every step that needs \
                 `ollim-bot tasks`, `ollim-bot cal` or `ollim-bot gmail` without trying them, and \
                 do not ping or report about the missing connection; the user connects it with \
                 /google-auth when they want to.\n\n"
            ),
            "{off}"
        );
        let on = build(allow_ping, GoogleStatus::Connected);
        assert!(
            on.ends_with("Google (Tasks, Calendar, Gmail): connected.\n\n"),
            "{on}"
        );
    }
}

#[test]
fn the_spend_line_sits_beside_the_budget_and_is_left_out_without_a_cap() {
    let with = |allow_ping: bool, spend: Option<&str>| {
        build_preamble(&PreambleInput {
            allow_ping,
            update_mode: UpdateMode::OnPing,
            busy: false,
            quiet_until: None,
            allowed_tools: None,
            budget: partial_budget(),
            spend,
            schedule: &schedule(),
            tz: TZ,
            google: GoogleStatus::NotConnected,
        })
    };
    let line = "spend today: $1.20 of $10.00";
    let text = with(true, Some(line));
    assert!(
        text.contains("\nbudget: 3/5 (next refill in 42 min)\nspend today: $1.20 of $10.00\n"),
        "{text}"
    );
    // The forward schedule is unchanged by it.
    assert_eq!(text.replacen(&format!("{line}\n"), "", 1), with(true, None));
    assert!(!with(true, None).contains("spend today"));
    let quiet = with(false, Some(line));
    assert!(
        quiet.contains("\nspend today: $1.20 of $10.00\n\n"),
        "{quiet}"
    );
    assert!(!with(false, None).contains("spend today"));
}
