//! What the routine validator says about a routine or reminder file's text (the original's
//! `validate_routine`, 2026-03-31; `permissions::routine_validator` runs it on the agent's
//! writes).
//!
//! Blocking problems are exactly what would keep the scheduler from registering the file: no
//! frontmatter, frontmatter never closed or not YAML, a missing `id`, `cron` (routines) or
//! `run-at` (reminders), a `cron` without five fields or with a field the scheduler cannot
//! read, and every other value the loader refuses. Warnings do not stop the write: a routine
//! without `description` or `background`, an unscoped `Bash`, `Write`, `Edit` or `MultiEdit` in
//! `allowed-tools`, delegation (`Task`/`Agent`, or `subagent`) beside an unscoped `Write`/`Edit`,
//! a key spelled with underscores where the canonical one has hyphens, an unknown key, and a
//! file longer than [`MAX_LINES`] lines.

use serde_yaml::Value;

use super::frontmatter;
use crate::jobs::cron::CronSchedule;

/// Files longer than this many lines are warned about.
pub const MAX_LINES: usize = 200;

/// Which kind of job file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `routines/*.md`.
    Routine,
    /// `reminders/*.md`.
    Reminder,
}

const ROUTINE_KEYS: &[&str] = &[
    "id",
    "cron",
    "background",
    "model",
    "thinking",
    "isolated",
    "description",
    "update-main-session",
    "allow-ping",
    "allowed-tools",
    "skills",
    "reflect",
    "subagent",
    "gate",
    "catch-up",
    "paused",
    "session",
];

const REMINDER_KEYS: &[&str] = &[
    "id",
    "run-at",
    "background",
    "chain-depth",
    "max-chain",
    "chain-parent",
    "model",
    "thinking",
    "isolated",
    "description",
    "update-main-session",
    "allow-ping",
    "allowed-tools",
    "skills",
    "reflect",
    "subagent",
    "gate",
];

/// Tools that must carry a pattern in `allowed-tools`.
const NEED_SCOPE: &[&str] = &["Bash", "Write", "Edit", "MultiEdit"];
/// Tools that write files.
const WRITERS: &[&str] = &["Write", "Edit", "MultiEdit"];
/// Tools that hand work to a subagent.
const DELEGATES: &[&str] = &["Task", "Agent"];

/// The validator's verdict on one file's text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Why the file must not be written; `None` when it would load.
    pub problem: Option<String>,
    /// What is worth fixing but does not stop the write.
    pub warnings: Vec<String>,
}

/// Checks `text` as a file of `kind`.
pub fn check(kind: Kind, text: &str) -> Verdict {
    Verdict {
        problem: problem(kind, text),
        warnings: warnings(kind, text),
    }
}

fn problem(kind: Kind, text: &str) -> Option<String> {
    match kind {
        Kind::Routine => match super::routine::parse(text) {
            Err(e) => Some(e.to_string()),
            Ok(routine) => CronSchedule::parse(&routine.cron).err().map(|e| {
                format!(
                    "`cron` {:?} is not a valid cron expression: {e}",
                    routine.cron
                )
            }),
        },
        Kind::Reminder => super::reminder::parse(text).err().map(|e| e.to_string()),
    }
}

fn warnings(kind: Kind, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lines = text.lines().count();
    let keys = frontmatter::split(text)
        .ok()
        .and_then(|parts| serde_yaml::from_str::<Value>(parts.yaml).ok())
        .and_then(|v| match v {
            Value::Mapping(m) => Some(m),
            _ => None,
        });
    if let Some(map) = keys {
        let known = match kind {
            Kind::Routine => ROUTINE_KEYS,
            Kind::Reminder => REMINDER_KEYS,
        };
        let key_names: Vec<String> = map
            .keys()
            .filter_map(|k| k.as_str().map(str::to_owned))
            .collect();
        let has = |key: &str| {
            key_names
                .iter()
                .any(|k| k == key || k.replace('_', "-") == key)
        };
        if kind == Kind::Routine {
            for key in ["description", "background"] {
                if !has(key) {
                    out.push(match key {
                        "description" => "no `description`: the forward schedule and /routines \
                                          show it only as \"Routine\""
                            .to_owned(),
                        _ => "no `background`: it runs in the main conversation; say \
                              `background: true` or `background: false` on purpose"
                            .to_owned(),
                    });
                }
            }
        }
        for key in &key_names {
            let canonical = key.replace('_', "-");
            if !known.contains(&canonical.as_str()) {
                out.push(format!("unknown key `{key}`: it is ignored"));
            } else if canonical != *key {
                out.push(format!("`{key}` is read, but write it `{canonical}`"));
            }
        }
        let tools: Vec<String> = ["allowed-tools", "allowed_tools"]
            .iter()
            .filter_map(|k| map.get(*k))
            .filter_map(Value::as_sequence)
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        out.extend(tool_warnings(&tools, has("subagent")));
    }
    if lines > MAX_LINES {
        out.push(format!(
            "the file is {lines} lines long (over {MAX_LINES}): keep the prompt short and move \
             long instructions into a skill"
        ));
    }
    out
}

/// The name of a tool pattern and whether it has a real scope (`Bash(ollim-bot cal *)` has;
/// `Bash`, `Bash()`, `Bash(*)` and `Bash(**)` do not).
fn name_and_scoped(pattern: &str) -> (&str, bool) {
    let pattern = pattern.trim();
    match pattern.split_once('(') {
        None => (pattern, false),
        Some((name, rest)) => {
            let scope = rest.strip_suffix(')').unwrap_or(rest).trim();
            (name.trim(), !matches!(scope, "" | "*" | "**"))
        }
    }
}

fn tool_warnings(tools: &[String], subagent: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut unscoped_writer = None;
    let mut delegates = subagent;
    for pattern in tools {
        let (name, scoped) = name_and_scoped(pattern);
        if NEED_SCOPE.contains(&name) && !scoped {
            out.push(format!(
                "`allowed-tools` entry `{pattern}` is unscoped: give it a pattern, like \
                 `Bash(ollim-bot cal *)` or `Write(notes/**.md)`"
            ));
            if WRITERS.contains(&name) {
                unscoped_writer.get_or_insert(pattern.as_str());
            }
        }
        delegates |= DELEGATES.contains(&name);
    }
    if let (true, Some(writer)) = (delegates, unscoped_writer) {
        out.push(format!(
            "delegation (`Task`/`Agent` or `subagent`) beside unscoped `{writer}`: a subagent's \
             output could land in shared files without being checked"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem_of(kind: Kind, text: &str) -> String {
        check(kind, text).problem.unwrap_or_default()
    }

    #[test]
    fn what_the_scheduler_could_not_register_is_a_problem() {
        let r = Kind::Routine;
        assert!(problem_of(r, "just text\n").contains("no YAML frontmatter"));
        assert!(problem_of(r, "---\nid: a\ncron: \"0 9 * * *\"\n").contains("never closed"));
        assert!(problem_of(r, "---\nid: [a\n---\nhi\n").contains("does not parse"));
        assert!(problem_of(r, "---\ncron: \"0 9 * * *\"\n---\nhi\n").contains("`id`"));
        assert!(problem_of(r, "---\nid: a\n---\nhi\n").contains("`cron`"));
        assert!(problem_of(r, "---\nid: a\ncron: \"0 9 * *\"\n---\nhi\n").contains("5 fields"));
        assert!(problem_of(r, "---\nid: a\ncron: \"0 25 * * *\"\n---\nhi\n")
            .contains("not a valid cron expression"),);
        assert!(problem_of(Kind::Reminder, "---\nid: a\n---\nhi\n").contains("`run-at`"));
        let fine = "---\nid: a\ncron: \"0 9 * * *\"\nbackground: true\ndescription: d\n---\nhi\n";
        assert_eq!(check(r, fine), Verdict::default());
        let reminder = "---\nid: a\nrun-at: \"2026-02-24T09:00:00-08:00\"\n---\nhi\n";
        assert_eq!(check(Kind::Reminder, reminder), Verdict::default());
    }

    #[test]
    fn risky_or_sloppy_files_are_warned_about() {
        let text =
            "---\nid: a\ncron: \"0 9 * * *\"\nallowed_tools:\n  - Bash\n  - \"Write(*)\"\n  - \
                    \"Bash(ollim-bot cal *)\"\n  - \"Task(user-proxy *)\"\ncolour: red\n---\nhi\n";
        let verdict = check(Kind::Routine, text);
        assert_eq!(verdict.problem, None);
        let w = verdict.warnings.join("\n");
        for expected in [
            "no `description`",
            "no `background`",
            "`allowed_tools` is read, but write it `allowed-tools`",
            "unknown key `colour`",
            "entry `Bash` is unscoped",
            "entry `Write(*)` is unscoped",
            "delegation (`Task`/`Agent` or `subagent`) beside unscoped `Write(*)`",
        ] {
            assert!(w.contains(expected), "{expected} missing from:\n{w}");
        }
        assert!(!w.contains("Bash(ollim-bot cal *)` is unscoped"), "{w}");
        let long = format!(
            "---\nid: a\ncron: \"0 9 * * *\"\nbackground: true\ndescription: d\n---\n{}",
            "line\n".repeat(MAX_LINES)
        );
        let w = check(Kind::Routine, &long).warnings;
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("lines long (over 200)"), "{w:?}");
    }
}
