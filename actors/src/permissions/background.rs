//! The tools a background fork gets (SPEC §6 "Tool restrictions" and reporting modes).
//!
//! Every background fork can always talk back through the minimal set; a job's `allowed-tools`
//! and its skills' `allowed-tools` are added after it. `allow-ping: false` and
//! `update-main-session: blocked` take tools away through the CLI's disallowed list, which wins
//! over any allow rule. Validate declarations with [`super::validate`] before merging them.

use crate::jobs::UpdateMode;

/// Tools every background fork has, whatever the job declares: its only ways back to the user.
pub const MINIMAL_BG_TOOLS: [&str; 5] = [
    "mcp__discord__report_updates",
    "mcp__discord__ping_user",
    "mcp__discord__discord_embed",
    "mcp__discord__follow_up_chain",
    "Bash(ollim-bot help)",
];

/// The tools that reach the user directly; removed by `allow-ping: false`.
pub const PING_TOOLS: [&str; 2] = ["mcp__discord__ping_user", "mcp__discord__discord_embed"];

/// The tools that feed the main session; removed by `update-main-session: blocked`.
pub const REPORTING_TOOLS: [&str; 2] = [
    "mcp__discord__report_updates",
    "mcp__discord__follow_up_chain",
];

/// What the conversation (main session and interactive forks) may use without asking: the
/// bot's own CLI, markdown files in the data directory, the web, the `discord` tools, subagents
/// and skills. Anything else goes through the permission policy.
pub const MAIN_SESSION_TOOLS: [&str; 23] = [
    "Bash(ollim-bot tasks *)",
    "Bash(ollim-bot cal *)",
    "Bash(ollim-bot routine *)",
    "Bash(ollim-bot reminder *)",
    "Bash(ollim-bot gmail *)",
    "Bash(ollim-bot help)",
    "Bash(claude-history *)",
    "Read(**.md)",
    "Write(**.md)",
    "Edit(**.md)",
    "Glob(**.md)",
    "Grep(**.md)",
    "WebFetch",
    "WebSearch",
    "mcp__discord__discord_embed",
    "mcp__discord__ping_user",
    "mcp__discord__follow_up_chain",
    "mcp__discord__save_context",
    "mcp__discord__report_updates",
    "mcp__discord__enter_fork",
    "mcp__discord__exit_fork",
    "Task",
    "Skill",
];

/// The allow list for a background job: the minimal set, then the job's own tools, then its
/// skills' tools, each once, first occurrence kept. A job that declares nothing (`None`) and has
/// no skill tools gets the minimal set.
pub fn allowed_tools_for_job(job_tools: Option<&[String]>, skill_tools: &[String]) -> Vec<String> {
    let declared = job_tools.unwrap_or_default().iter().chain(skill_tools);
    let mut out: Vec<String> = MINIMAL_BG_TOOLS.iter().map(|t| t.to_string()).collect();
    for tool in declared {
        let tool = tool.trim();
        if !tool.is_empty() && !out.iter().any(|t| t == tool) {
            out.push(tool.to_owned());
        }
    }
    out
}

/// The disallowed list for a background job: the ping tools when pinging is off, the reporting
/// tools when reporting is blocked.
pub fn disallowed_tools_for_job(allow_ping: bool, update_mode: UpdateMode) -> Vec<String> {
    let mut out = Vec::new();
    if !allow_ping {
        out.extend(PING_TOOLS.iter().map(|t| t.to_string()));
    }
    if update_mode == UpdateMode::Blocked {
        out.extend(REPORTING_TOOLS.iter().map(|t| t.to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn no_declaration_means_the_minimal_set() {
        assert_eq!(allowed_tools_for_job(None, &[]), strings(&MINIMAL_BG_TOOLS));
        assert_eq!(
            allowed_tools_for_job(Some(&[]), &[]),
            strings(&MINIMAL_BG_TOOLS)
        );
    }

    #[test]
    fn minimal_set_comes_first_then_job_then_skills() {
        let job = strings(&["Read(**.md)", "WebSearch"]);
        let skills = strings(&["Bash(ollim-bot tasks *)"]);
        let got = allowed_tools_for_job(Some(&job), &skills);
        let mut want = strings(&MINIMAL_BG_TOOLS);
        want.extend(strings(&[
            "Read(**.md)",
            "WebSearch",
            "Bash(ollim-bot tasks *)",
        ]));
        assert_eq!(got, want);
    }

    #[test]
    fn duplicates_are_dropped_keeping_the_first_place() {
        let job = strings(&["WebSearch", "mcp__discord__ping_user", "WebSearch"]);
        let skills = strings(&["Bash(ollim-bot help)", "Read", "WebSearch"]);
        let got = allowed_tools_for_job(Some(&job), &skills);
        let mut want = strings(&MINIMAL_BG_TOOLS);
        want.extend(strings(&["WebSearch", "Read"]));
        assert_eq!(got, want);
    }

    #[test]
    fn skill_tools_apply_without_a_job_declaration() {
        let got = allowed_tools_for_job(None, &strings(&["Read"]));
        assert_eq!(got.last().map(String::as_str), Some("Read"));
        assert_eq!(got.len(), MINIMAL_BG_TOOLS.len() + 1);
    }

    #[test]
    fn disallowed_lists_follow_ping_and_update_mode() {
        assert!(disallowed_tools_for_job(true, UpdateMode::OnPing).is_empty());
        assert!(disallowed_tools_for_job(true, UpdateMode::Always).is_empty());
        assert!(disallowed_tools_for_job(true, UpdateMode::Freely).is_empty());
        assert_eq!(
            disallowed_tools_for_job(false, UpdateMode::OnPing),
            strings(&PING_TOOLS)
        );
        assert_eq!(
            disallowed_tools_for_job(true, UpdateMode::Blocked),
            strings(&REPORTING_TOOLS)
        );
        assert_eq!(
            disallowed_tools_for_job(false, UpdateMode::Blocked),
            strings(&[
                "mcp__discord__ping_user",
                "mcp__discord__discord_embed",
                "mcp__discord__report_updates",
                "mcp__discord__follow_up_chain",
            ])
        );
    }
}
