use super::*;
use crate::agent::tools::ChainPosition;
use crate::jobs::UpdateMode;
use ToolName::*;

/// The tools CLI 2.1.330 lists in `system/init` with no `--tools` and a host answering
/// permission prompts (captured from the binary).
const CLI_2_1_330_DEFAULT: [&str; 24] = [
    "Task",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "Bash",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Edit",
    "EnterWorktree",
    "ExitWorktree",
    "ListAgents",
    "Monitor",
    "NotebookEdit",
    "Read",
    "ReportFindings",
    "ScheduleWakeup",
    "SendMessage",
    "Skill",
    "TaskStop",
    "WebFetch",
    "WebSearch",
    "Workflow",
    "Write",
];

fn job(allow_ping: bool, update_mode: UpdateMode, chain: Option<(u32, u32)>) -> SessionKind {
    job_with(allow_ping, update_mode, chain, &[])
}

fn job_with(
    allow_ping: bool,
    update_mode: UpdateMode,
    chain: Option<(u32, u32)>,
    declared: &[&str],
) -> SessionKind {
    let mut allowed: Vec<String> = BG_REPLY_TOOLS
        .iter()
        .chain(DEFAULT_BG_TOOLS.iter())
        .map(|t| (*t).to_owned())
        .collect();
    allowed.extend(declared.iter().map(|t| (*t).to_owned()));
    SessionKind::Background(BackgroundRules {
        allow_ping,
        update_mode,
        chain: chain.map(|(depth, max)| ChainPosition { depth, max }),
        allowed,
    })
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn every_discord_tool_has_exactly_one_row_and_no_built_in_two() {
    for tool in ToolName::ALL {
        let rows = TABLE
            .iter()
            .filter(|r| r.tool == Tool::Discord(tool))
            .count();
        assert_eq!(rows, 1, "{tool:?}");
    }
    for row in TABLE {
        if let Tool::BuiltIn(name) = row.tool {
            let same = TABLE
                .iter()
                .filter(|r| r.tool == Tool::BuiltIn(name))
                .count();
            assert_eq!(same, 1, "{name}");
        }
    }
}

#[test]
fn the_conversation_lists_only_the_discord_tools_of_its_kind() {
    assert_eq!(
        SessionKind::Main.listed_tools(),
        [
            DiscordEmbed,
            EnterFork,
            AddReminder,
            ListReminders,
            CancelReminder,
            SendFile,
            UpdateNames
        ]
    );
    assert_eq!(
        SessionKind::InteractiveFork.listed_tools(),
        [
            DiscordEmbed,
            SaveContext,
            ReportUpdates,
            ExitFork,
            AddReminder,
            ListReminders,
            CancelReminder,
            SendFile,
            UpdateNames
        ]
    );
}

#[test]
fn a_default_background_job_lists_its_ways_back_and_the_reminder_tools() {
    assert_eq!(
        job(true, UpdateMode::OnPing, None).listed_tools(),
        [
            DiscordEmbed,
            PingUser,
            ReportUpdates,
            AddReminder,
            ListReminders,
            CancelReminder,
            SendFile
        ]
    );
}

#[test]
fn follow_up_is_listed_only_on_a_chain_with_checks_left() {
    let listed = |chain| {
        job(true, UpdateMode::Freely, Some(chain))
            .listed_tools()
            .contains(&FollowUpChain)
    };
    assert!(listed((0, 2)));
    assert!(listed((1, 2)));
    assert!(!listed((2, 2)));
    let blocked = job(true, UpdateMode::Blocked, Some((0, 3))).listed_tools();
    assert!(!blocked.contains(&FollowUpChain));
}

#[test]
fn no_ping_and_blocked_remove_their_tools() {
    let reminders = [AddReminder, ListReminders, CancelReminder];
    assert_eq!(
        job(false, UpdateMode::Always, Some((0, 1))).listed_tools()[..2],
        [FollowUpChain, ReportUpdates]
    );
    assert_eq!(
        job(true, UpdateMode::Blocked, Some((0, 3))).listed_tools()[..2],
        [DiscordEmbed, PingUser]
    );
    assert_eq!(
        job(false, UpdateMode::Blocked, None).listed_tools(),
        reminders
    );
}

#[test]
fn interactive_fork_tools_never_reach_a_background_job_even_when_named() {
    let kind = job_with(
        true,
        UpdateMode::OnPing,
        None,
        &[
            "mcp__discord__enter_fork",
            "mcp__discord__save_context",
            "mcp__discord__exit_fork",
        ],
    );
    let listed = kind.listed_tools();
    assert!(!listed.contains(&EnterFork) && !listed.contains(&SaveContext));
    assert!(!listed.contains(&ExitFork));
    assert!(kind
        .effective_allowed()
        .iter()
        .all(|t| !t.contains("fork") && !t.contains("save_context")));
    let disallowed = kind.disallowed_tools();
    for tool in [EnterFork, SaveContext, ExitFork] {
        assert!(disallowed.contains(&tool.qualified()), "{tool:?}");
    }
}

#[test]
fn files_reach_a_background_job_that_may_ping_and_reminder_tools_only_when_allowed() {
    // A way back like `discord_embed`: offered without being named.
    let plain = job(true, UpdateMode::OnPing, None);
    assert!(plain.listed_tools().contains(&AddReminder));
    assert!(plain.listed_tools().contains(&SendFile));
    assert!(plain
        .effective_allowed()
        .contains(&"mcp__discord__send_file".to_owned()));
    // A set without the default reminder tools (tool-policy.yaml's override) is not offered them.
    let replaced = SessionKind::Background(BackgroundRules {
        allowed: strings(&BG_REPLY_TOOLS),
        ..BackgroundRules::default()
    });
    assert!(!replaced.listed_tools().contains(&AddReminder));
    let silent = job_with(
        false,
        UpdateMode::OnPing,
        None,
        &["mcp__discord__send_file"],
    );
    assert!(!silent.listed_tools().contains(&SendFile));
    assert!(!silent
        .effective_allowed()
        .contains(&"mcp__discord__send_file".to_owned()));
    let server_wide = job_with(true, UpdateMode::OnPing, None, &["mcp__discord__*"]);
    assert!(server_wide.listed_tools().contains(&ListReminders));
}

#[test]
fn a_background_job_gets_the_built_ins_its_set_names() {
    let kind = job(true, UpdateMode::OnPing, None);
    assert_eq!(
        kind.built_in_tools(&[]),
        strings(&["Bash", "Read", "Glob", "Grep"])
    );
    let kind = job_with(true, UpdateMode::OnPing, None, &["Read", "WebSearch"]);
    assert_eq!(
        kind.built_in_tools(&[]),
        strings(&["Bash", "Read", "Glob", "Grep", "WebSearch"])
    );
    // The conversation's grants are not a job's.
    assert_eq!(
        kind.built_in_tools(&strings(&["Workflow"])),
        strings(&["Bash", "Read", "Glob", "Grep", "WebSearch"])
    );
    let kind = job_with(
        true,
        UpdateMode::OnPing,
        None,
        &["Agent", "CronCreate", "mcp__docs", "WebFetch(domain:x.org)"],
    );
    assert_eq!(
        kind.built_in_tools(&[]),
        strings(&["Bash", "Read", "Glob", "Grep", "Task", "WebFetch"])
    );
    assert!(!kind.effective_allowed().contains(&"CronCreate".to_owned()));
    assert!(kind.effective_allowed().contains(&"mcp__docs".to_owned()));
}

#[test]
fn the_conversation_is_offered_the_assistants_built_ins_and_never_the_clis_scheduling() {
    for kind in [
        SessionKind::Main,
        SessionKind::InteractiveFork,
        job(true, UpdateMode::OnPing, None),
    ] {
        let disallowed = kind.disallowed_tools();
        for cron in [
            "CronCreate",
            "CronDelete",
            "CronList",
            "ScheduleWakeup",
            "AskUserQuestion",
            "EnterPlanMode",
            "ExitPlanMode",
        ] {
            assert!(disallowed.contains(&cron.to_owned()), "{kind:?}: {cron}");
            assert!(!kind.offers(Tool::BuiltIn(cron)));
        }
    }
    let assistant = strings(&[
        "Task",
        "Bash",
        "Read",
        "Write",
        "Edit",
        "Glob",
        "Grep",
        "WebFetch",
        "WebSearch",
        "Skill",
        "ToolSearch",
    ]);
    for kind in [SessionKind::Main, SessionKind::InteractiveFork] {
        assert_eq!(kind.built_in_tools(&[]), assistant, "{kind:?}");
        for coding in ["Workflow", "TaskCreate", "EnterWorktree", "NotebookEdit"] {
            assert!(!kind.offers(Tool::BuiltIn(coding)), "{kind:?}: {coding}");
            assert!(!kind.disallowed_tools().contains(&coding.to_owned()));
        }
    }
    let main = SessionKind::Main.disallowed_tools();
    for tool in [
        PingUser,
        SaveContext,
        ReportUpdates,
        ExitFork,
        FollowUpChain,
    ] {
        assert!(main.contains(&tool.qualified()), "{tool:?}");
    }
    assert!(!main.contains(&EnterFork.qualified()));
    let fork = SessionKind::InteractiveFork.disallowed_tools();
    assert!(fork.contains(&EnterFork.qualified()));
    assert!(!fork.contains(&ExitFork.qualified()));
}

#[test]
fn the_effective_set_is_the_declared_set_less_what_the_settings_take() {
    let mut on_ping = strings(&[
        "mcp__discord__report_updates",
        "mcp__discord__ping_user",
        "mcp__discord__discord_embed",
        "mcp__discord__send_file",
    ]);
    on_ping.extend(strings(&DEFAULT_BG_TOOLS));
    assert_eq!(
        job(true, UpdateMode::OnPing, None).effective_allowed(),
        on_ping
    );
    assert_eq!(
        job(false, UpdateMode::Blocked, Some((0, 2))).effective_allowed(),
        strings(&DEFAULT_BG_TOOLS)
    );
    let mut all = strings(&BG_REPLY_TOOLS);
    all.extend(strings(&DEFAULT_BG_TOOLS));
    assert_eq!(
        job(true, UpdateMode::Freely, Some((0, 2))).effective_allowed(),
        all
    );
    assert!(SessionKind::Main.effective_allowed().is_empty());
}

#[test]
fn the_pinned_cli_lists_nothing_the_table_does_not_classify() {
    let mut init = strings(&CLI_2_1_330_DEFAULT);
    init.extend(ToolName::ALL.map(ToolName::qualified));
    init.push("mcp__github__search".to_owned());
    assert!(unclassified(&init).is_empty(), "{:?}", unclassified(&init));
    let newer = strings(&["Read", "Teleport", "mcp__discord__launch_rocket"]);
    assert_eq!(
        unclassified(&newer),
        strings(&["Teleport", "mcp__discord__launch_rocket"])
    );
}

#[test]
fn a_built_in_off_the_assistants_list_is_offered_where_named() {
    // The tool policy's grants bring coding-agent and unknown built-ins to the conversation,
    // never the ones the table keeps from everyone; a rule on a tool counts as naming it.
    let granted = strings(&[
        "Workflow",
        "Bash(git status)",
        "TaskCreate(*)",
        "Teleport",
        "CronCreate",
        "AskUserQuestion",
        "mcp__docs",
        "Agent",
    ]);
    let mut want = SessionKind::Main.built_in_tools(&[]);
    want.extend(strings(&["Workflow", "TaskCreate", "Teleport"]));
    assert_eq!(SessionKind::Main.built_in_tools(&granted), want);
    assert_eq!(SessionKind::InteractiveFork.built_in_tools(&granted), want);
    assert!(!SessionKind::Main.offers(Tool::BuiltIn("Teleport")));
    assert!(!job(true, UpdateMode::OnPing, None).offers(Tool::BuiltIn("Teleport")));
    let named = job_with(true, UpdateMode::OnPing, None, &["Teleport(somewhere)"]);
    assert!(named.offers(Tool::BuiltIn("Teleport")));
    assert_eq!(
        named.built_in_tools(&[]),
        strings(&["Bash", "Read", "Glob", "Grep", "Teleport"])
    );
}
