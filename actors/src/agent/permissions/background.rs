//! The tools a background fork gets (SPEC §6 "Tool restrictions", §17) — the one place a job's
//! tool set is put together, [`background_tools`]:
//!
//! 1. its reply tools ([`BG_REPLY_TOOLS`]), always on the list (what `allow-ping: false` and
//!    `update-main-session: blocked` take away is the table in [`crate::agent::tools::offer`]);
//! 2. the default background set ([`DEFAULT_BG_TOOLS`]), or `tool-policy.yaml`'s
//!    `bg_forks.override` instead, else plus its `bg_forks.additional_allowed`;
//! 3. what the job declares: its `allowed-tools`, its skills' `allowed-tools` (and whatever a
//!    caller adds as another [`Declared`]).
//!
//! Everything but the built-in sets is checked with [`super::validate`]: an unsafe pattern
//! (`Bash(*)`, chaining, an unreadable one) anywhere makes the whole set [`UnsafeTools`] — the
//! job is skipped, not run with a narrower set; `X(*)` is kept with a warning, and file-writing
//! patterns that could reach `state/` are stripped with one.

use super::tool_policy::{ToolPolicy, FILE_NAME as POLICY_FILE};
use crate::agent::tools::SessionKind;
use crate::base::data_dir::DataDir;

pub use crate::agent::tools::{BG_REPLY_TOOLS, DEFAULT_BG_TOOLS};

/// Patterns one source adds to a background job's tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// Where they come from, for messages (`allowed-tools`, `skill inbox-zero`).
    pub source: String,
    /// The patterns as written.
    pub patterns: Vec<String>,
}

impl Declared {
    /// `patterns` from `source`.
    pub fn new(source: impl Into<String>, patterns: Vec<String>) -> Self {
        Self {
            source: source.into(),
            patterns,
        }
    }
}

/// A job's tool set holds a pattern that is not safe to grant: the job must not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unsafe tool pattern: {}", problems.join("; "))]
pub struct UnsafeTools {
    /// Each problem, naming its source (`allowed-tools: Bash(*): allows every shell command…`).
    pub problems: Vec<String>,
}

/// A background job's allow list (see the module docs), each pattern once, first place kept.
/// `log`, when set, names the job in the log lines about warnings.
pub fn background_tools(
    declared: &[Declared],
    policy: &ToolPolicy,
    data: &DataDir,
    log: Option<&str>,
) -> Result<Vec<String>, UnsafeTools> {
    let mut sources: Vec<Declared> = Vec::new();
    match &policy.bg_override {
        Some(set) => sources.push(Declared::new(
            format!("{POLICY_FILE} bg_forks.override"),
            set.clone(),
        )),
        None => sources.push(Declared::new(
            format!("{POLICY_FILE} bg_forks.additional_allowed"),
            policy.bg_additional.clone(),
        )),
    }
    sources.extend(declared.iter().cloned());
    let mut out: Vec<String> = BG_REPLY_TOOLS.iter().map(|t| (*t).to_owned()).collect();
    if policy.bg_override.is_none() {
        out.extend(DEFAULT_BG_TOOLS.iter().map(|t| (*t).to_owned()));
    }
    let mut problems = Vec::new();
    for source in &sources {
        if source.patterns.is_empty() {
            continue;
        }
        let checked = super::validate(&source.patterns, data);
        if let Some(job) = log {
            for w in &checked.warnings {
                tracing::warn!(job, source = %source.source, problem = %w, "tool pattern warning");
            }
        }
        problems.extend(
            checked
                .errors
                .iter()
                .map(|e| format!("{}: {e}", source.source)),
        );
        for pattern in checked.kept {
            if !out.contains(&pattern) {
                out.push(pattern);
            }
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(UnsafeTools { problems })
    }
}

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
    use crate::agent::permissions::tool_policy::ToolPolicy;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn data() -> DataDir {
        DataDir::new("/home/u/.ollim-bot")
    }

    fn job(patterns: &[&str]) -> Declared {
        Declared::new("allowed-tools", strings(patterns))
    }

    fn with_defaults(extra: &[&str]) -> Vec<String> {
        let mut want = strings(&BG_REPLY_TOOLS);
        want.extend(strings(&DEFAULT_BG_TOOLS));
        want.extend(strings(extra));
        want
    }

    #[test]
    fn no_declaration_means_the_reply_tools_and_the_default_set() {
        let got = background_tools(&[], &ToolPolicy::default(), &data(), None).unwrap();
        assert_eq!(got, with_defaults(&[]));
        for tool in [
            "Bash(ollim-bot help)",
            "Bash(ollim-bot tasks *)",
            "Read(./**.md)",
            "Glob(./**.md)",
            "Grep(./**.md)",
            "mcp__discord__add_reminder",
            "mcp__discord__list_reminders",
            "mcp__discord__cancel_reminder",
        ] {
            assert!(got.contains(&tool.to_owned()), "{tool}");
        }
    }

    #[test]
    fn declarations_add_after_the_defaults_each_once() {
        let skills = Declared::new("skill x", strings(&["WebSearch", "Read"]));
        let got = background_tools(
            &[
                job(&[
                    "WebSearch",
                    "Bash(ollim-bot tasks *)",
                    "mcp__discord__ping_user",
                ]),
                skills,
            ],
            &ToolPolicy::default(),
            &data(),
            None,
        )
        .unwrap();
        assert_eq!(got, with_defaults(&["WebSearch", "Read"]));
    }

    #[test]
    fn the_policy_adds_to_every_job_or_replaces_the_default_set() {
        let adds = ToolPolicy {
            bg_additional: strings(&["Bash(ollim-bot cal *)"]),
            ..ToolPolicy::default()
        };
        let got = background_tools(&[job(&["WebSearch"])], &adds, &data(), None).unwrap();
        assert_eq!(got, with_defaults(&["Bash(ollim-bot cal *)", "WebSearch"]));

        let replaces = ToolPolicy {
            bg_additional: strings(&["Bash(ollim-bot cal *)"]),
            bg_override: Some(strings(&["Bash(ollim-bot help)"])),
            ..ToolPolicy::default()
        };
        let got = background_tools(&[job(&["WebSearch"])], &replaces, &data(), None).unwrap();
        let mut want = strings(&BG_REPLY_TOOLS);
        want.extend(strings(&["Bash(ollim-bot help)", "WebSearch"]));
        assert_eq!(got, want, "override wins over additional_allowed");

        let empty = ToolPolicy {
            bg_override: Some(Vec::new()),
            ..ToolPolicy::default()
        };
        let got = background_tools(&[], &empty, &data(), None).unwrap();
        assert_eq!(got, strings(&BG_REPLY_TOOLS), "the reply tools always stay");
    }

    #[test]
    fn an_unsafe_pattern_anywhere_refuses_the_whole_set() {
        let err = background_tools(
            &[job(&["Read", "Bash(*)"])],
            &ToolPolicy::default(),
            &data(),
            None,
        )
        .unwrap_err();
        assert_eq!(err.problems.len(), 1);
        assert!(
            err.problems[0].starts_with("allowed-tools: Bash(*)"),
            "{err}"
        );

        let chained = Declared::new(
            "skill inbox",
            strings(&["Bash(ollim-bot gmail * ; rm -rf /)"]),
        );
        let err = background_tools(&[chained], &ToolPolicy::default(), &data(), None).unwrap_err();
        assert!(err.problems[0].starts_with("skill inbox: "), "{err}");
        assert!(err.problems[0].contains("chaining"), "{err}");

        let policy = ToolPolicy {
            bg_additional: strings(&["Bash(*)"]),
            ..ToolPolicy::default()
        };
        let err = background_tools(&[], &policy, &data(), None).unwrap_err();
        assert!(
            err.problems[0].starts_with("tool-policy.yaml bg_forks.additional_allowed: Bash(*)"),
            "{err}"
        );
    }

    #[test]
    fn warnings_keep_or_strip_but_never_refuse() {
        let got = background_tools(
            &[job(&["WebFetch(*)", "Write(**)", "Edit(notes/**)"])],
            &ToolPolicy::default(),
            &data(),
            None,
        )
        .unwrap();
        assert_eq!(got, with_defaults(&["WebFetch(*)", "Edit(notes/**)"]));
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
