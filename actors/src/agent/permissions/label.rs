//! How a tool call is named to the user in approval prompts and denial lines (SPEC §11):
//! `Bash(rm x)`, `Write(reminders/foo.md)`, `Read(user/notes.md)` (outside the data directory:
//! the last two parts), `Grep(todo, routines)`, `ping_user`; and the struck-through lines
//! `~~Bash(rm x)~~ — denied` for a refused tool and `~~Read(x)~~ — error` for a failed one.

use std::path::Path;

use serde_json::Value;

use super::file_rules::lexical;

/// The longest command excerpt a label shows.
const COMMAND_CHARS: usize = 50;

/// The input fields a label shows, per tool.
fn label_keys(tool: &str) -> &'static [&'static str] {
    match tool {
        "Read" | "Write" | "Edit" | "MultiEdit" => &["file_path"],
        "NotebookEdit" => &["notebook_path"],
        "Bash" => &["command"],
        "Grep" => &["pattern", "path"],
        "Glob" => &["pattern"],
        "WebSearch" => &["query"],
        "WebFetch" => &["url"],
        "Task" | "Agent" => &["description"],
        _ => &[],
    }
}

/// The label for `name` called with `input`: MCP tools by their short name; other tools with
/// their main argument in parentheses (file paths relative to `root` when inside it, commands
/// cut to their first line and 50 characters). Markdown characters are escaped so the label
/// survives inside `~~…~~` and code spans.
pub fn tool_label(name: &str, input: &Value, root: &Path) -> String {
    if let Some(short) = mcp_short_name(name) {
        return short.to_owned();
    }
    if let Some(label) = subagent_label(name, input) {
        return label;
    }
    let parts: Vec<String> = label_keys(name)
        .iter()
        .filter_map(|key| {
            let value = input.get(*key)?.as_str()?.trim();
            if value.is_empty() {
                return None;
            }
            let shown = match *key {
                "file_path" | "notebook_path" | "path" => relative(value, root),
                "command" => value
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .take(COMMAND_CHARS)
                    .collect(),
                _ => value.to_owned(),
            };
            Some(escape_markdown(&shown))
        })
        .collect();
    if parts.is_empty() {
        name.to_owned()
    } else {
        format!("{name}({})", parts.join(", "))
    }
}

/// The line shown in place of a refused tool call: `~~Bash(rm x)~~ — denied`.
pub fn struck_through(label: &str) -> String {
    format!("~~{label}~~ — denied")
}

/// *(ours)* The refused call with why: `~~Bash(rm x)~~ — denied: not approved`; without a
/// reason, [`struck_through`].
pub fn denied_line(label: &str, reason: &str) -> String {
    if reason.trim().is_empty() {
        struck_through(label)
    } else {
        format!("{}: {reason}", struck_through(label))
    }
}

/// The line shown in place of a tool call that ran and failed: `~~Read(x.md)~~ — error`.
pub fn failed_label(label: &str) -> String {
    format!("~~{label}~~ — error")
}

/// The longest task description a subagent's label shows.
const DESCRIPTION_CHARS: usize = 40;

/// `ollim-bot-guide(search for docs)` for an `Agent` (or older `Task`) call naming its subagent.
fn subagent_label(name: &str, input: &Value) -> Option<String> {
    if !matches!(name, "Agent" | "Task") {
        return None;
    }
    let agent = input.get("subagent_type")?.as_str()?.trim();
    if agent.is_empty() {
        return None;
    }
    let description: String = input
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .chars()
        .take(DESCRIPTION_CHARS)
        .collect();
    Some(if description.is_empty() {
        escape_markdown(agent)
    } else {
        format!(
            "{}({})",
            escape_markdown(agent),
            escape_markdown(&description)
        )
    })
}

/// A tool's name as labels show it: `ping_user` for `mcp__discord__ping_user`, built-ins as
/// they are.
pub fn short_tool_name(name: &str) -> &str {
    mcp_short_name(name).unwrap_or(name)
}

/// `ping_user` for `mcp__discord__ping_user`; `None` for built-in tools.
fn mcp_short_name(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("mcp__")?;
    let (_, tool) = rest.split_once("__")?;
    (!tool.is_empty()).then_some(tool)
}

/// `path` relative to `root` when it lies inside it; elsewhere its last two parts
/// (`/home/user/notes.md` → `user/notes.md`, as the original shows it).
fn relative(path: &str, root: &Path) -> String {
    let p = Path::new(path);
    if !p.is_absolute() {
        return path.to_owned();
    }
    match lexical(p).strip_prefix(lexical(root)) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => last_two_parts(path),
    }
}

/// The last two `/`-separated parts of `path` (a trailing `/` ignored); short paths as given.
fn last_two_parts(path: &str) -> String {
    let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    match parts.as_slice() {
        [.., dir, file] if parts.len() > 2 => format!("{dir}/{file}"),
        _ => path.to_owned(),
    }
}

/// Escapes the characters that would turn part of a label into Discord formatting.
pub(crate) fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '_' | '~' | '`' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ROOT: &str = "/home/u/.ollim-bot";

    fn label(name: &str, input: Value) -> String {
        tool_label(name, &input, Path::new(ROOT))
    }

    #[test]
    fn file_paths_are_shown_relative_to_the_data_dir() {
        assert_eq!(
            label(
                "Write",
                json!({"file_path": "/home/u/.ollim-bot/reminders/foo.md"})
            ),
            "Write(reminders/foo.md)"
        );
        assert_eq!(
            label("Read", json!({"file_path": "/etc/hosts"})),
            "Read(etc/hosts)"
        );
        assert_eq!(
            label("Read", json!({"file_path": "/home/user/notes.md"})),
            "Read(user/notes.md)",
            "outside the data dir: the last two parts"
        );
        assert_eq!(
            label("Read", json!({"file_path": "/hosts"})),
            "Read(/hosts)"
        );
        assert_eq!(
            label("NotebookEdit", json!({"notebook_path": "notes/a.ipynb"})),
            "NotebookEdit(notes/a.ipynb)"
        );
    }

    #[test]
    fn commands_show_their_first_line_cut_to_fifty_chars() {
        assert_eq!(label("Bash", json!({"command": "rm x"})), "Bash(rm x)");
        assert_eq!(
            label("Bash", json!({"command": "git status\ngit push"})),
            "Bash(git status)"
        );
        let long = "a".repeat(80);
        assert_eq!(
            label("Bash", json!({ "command": long })),
            format!("Bash({})", "a".repeat(50))
        );
    }

    #[test]
    fn mcp_tools_use_their_short_name_and_unknown_tools_their_name() {
        assert_eq!(
            label("mcp__discord__ping_user", json!({"message": "x"})),
            "ping_user"
        );
        assert_eq!(label("TodoWrite", json!({"todos": []})), "TodoWrite");
        assert_eq!(label("Bash", json!({})), "Bash");
    }

    #[test]
    fn several_fields_are_joined_and_markdown_is_escaped() {
        assert_eq!(
            label(
                "Grep",
                json!({"pattern": "todo_*", "path": "/home/u/.ollim-bot/routines"})
            ),
            "Grep(todo\\_\\*, routines)"
        );
    }

    #[test]
    fn a_subagent_call_is_named_by_its_agent_and_short_description() {
        assert_eq!(
            label(
                "Agent",
                json!({"subagent_type": "ollim-bot-guide", "description": "search for docs",
                    "prompt": "…"})
            ),
            "ollim-bot-guide(search for docs)"
        );
        let long = "d".repeat(60);
        assert_eq!(
            label("Task", json!({"subagent_type": "x", "description": long})),
            format!("x({})", "d".repeat(40))
        );
        assert_eq!(
            label("Agent", json!({"description": "plain"})),
            "Agent(plain)"
        );
        assert_eq!(short_tool_name("mcp__discord__ping_user"), "ping_user");
        assert_eq!(short_tool_name("Read"), "Read");
    }

    #[test]
    fn denial_line_is_struck_through() {
        assert_eq!(struck_through("Bash(rm x)"), "~~Bash(rm x)~~ — denied");
        assert_eq!(
            failed_label("Read(reminders/foo.md)"),
            "~~Read(reminders/foo.md)~~ — error"
        );
        assert_eq!(
            struck_through(&label("Bash", json!({"command": "rm x"}))),
            "~~Bash(rm x)~~ — denied"
        );
    }
}
