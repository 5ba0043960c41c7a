//! The tools a background fork gets (SPEC §6 "Tool restrictions" and reporting modes).
//!
//! Every background fork can always talk back through the minimal set; a job's `allowed-tools`
//! and its skills' `allowed-tools` are added after it. What `allow-ping: false` and
//! `update-main-session: blocked` take away, and which tools each kind of session is offered at
//! all, is the table in [`crate::tools::offer`]. Validate declarations with [`super::validate`]
//! before merging them.

use crate::tools::SessionKind;

pub use crate::tools::MINIMAL_BG_TOOLS;

/// What the conversation (main session and interactive forks) may use without asking: the
/// bot's own CLI, markdown files in the data directory, the web, subagents and skills; the
/// `discord` tools of its kind are added by [`conversation_tools`]. Anything else goes through
/// the permission policy.
pub const MAIN_SESSION_TOOLS: [&str; 16] = [
    "Bash(ollim-bot tasks *)",
    "Bash(ollim-bot cal *)",
    "Bash(ollim-bot routine *)",
    "Bash(ollim-bot reminder *)",
    "Bash(ollim-bot gmail *)",
    "Bash(ollim-bot help)",
    "Bash(ollim-bot history *)",
    "Read(**.md)",
    "Write(**.md)",
    "Edit(**.md)",
    "Glob(**.md)",
    "Grep(**.md)",
    "WebFetch",
    "WebSearch",
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

/// The conversation's allow list for a session of `kind`: [`MAIN_SESSION_TOOLS`], then the
/// `discord` tools that kind is offered.
pub fn conversation_tools(kind: &SessionKind) -> Vec<String> {
    MAIN_SESSION_TOOLS
        .iter()
        .map(|t| (*t).to_owned())
        .chain(kind.listed_tools().into_iter().map(|t| t.qualified()))
        .collect()
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
    fn the_conversation_allows_its_own_discord_tools_and_the_history_reader() {
        let main = conversation_tools(&SessionKind::Main);
        assert!(main.contains(&"Bash(ollim-bot history *)".to_owned()));
        assert!(!main.iter().any(|t| t.contains("claude-history")));
        assert!(main.contains(&"mcp__discord__enter_fork".to_owned()));
        assert!(main.contains(&"mcp__discord__add_reminder".to_owned()));
        assert!(!main.contains(&"mcp__discord__exit_fork".to_owned()));
        let fork = conversation_tools(&SessionKind::InteractiveFork);
        assert!(fork.contains(&"mcp__discord__exit_fork".to_owned()));
        assert!(!fork.contains(&"mcp__discord__enter_fork".to_owned()));
    }
}
