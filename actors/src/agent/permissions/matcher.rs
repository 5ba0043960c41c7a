//! Does a tool call fall under an allow list? Claude Code's rule syntax, as far as the bot needs it
//! (SPEC §6 tool restrictions, §11 permissions):
//! - `Read`, `mcp__discord__ping_user`: that tool, any input;
//! - `mcp__docs` or `mcp__docs__*`: every tool of that MCP server;
//! - `Bash(git status:*)`: the command or the command followed by arguments; `Bash(npm run *)`:
//!   a wildcard over the command line (a lone trailing ` *` also accepts no arguments);
//!   `Bash(ollim-bot help)`: exactly that command. A command that chains, pipes, substitutes or
//!   redirects only ever matches an exact rule;
//! - `Write(routines/**)` and other file rules: a glob over the file path, relative to the data
//!   directory (see [`super::file_rules`]); `Edit(...)` covers every editing tool and `Read(...)`
//!   every reading tool; `Glob`/`Grep` are judged by their `path` argument, so without one a
//!   path rule does not cover them;
//! - `WebFetch(domain:example.com)`: URLs on that host;
//! - `X(*)`: every use of X; any other `X(spec)`: the tool's main argument equals `spec`.

use std::path::Path;

use serde_json::Value;

use super::file_rules::{home_dir, is_file_tool, rule_covers_tool, spec_covers};
use super::glob::Glob;
use super::patterns::ToolPattern;
use crate::base::data_dir::DataDir;

/// True when some pattern in `allowed_patterns` allows `tool_name` with `input`; file paths are
/// read relative to `data_dir`.
pub fn is_allowed(
    tool_name: &str,
    input: &Value,
    allowed_patterns: &[String],
    data_dir: &DataDir,
) -> bool {
    allowed_patterns.iter().any(|raw| {
        ToolPattern::parse(raw)
            .map(|p| pattern_allows(&p, tool_name, input, data_dir.root()))
            .unwrap_or(false)
    })
}

/// True when one parsed pattern allows the call.
fn pattern_allows(pattern: &ToolPattern, tool: &str, input: &Value, root: &Path) -> bool {
    let Some(spec) = pattern.specifier.as_deref() else {
        return name_allows(&pattern.tool, tool);
    };
    if is_file_tool(&pattern.tool) {
        if !rule_covers_tool(&pattern.tool, tool) {
            return false;
        }
        if spec == "*" {
            return true;
        }
        return file_path(input)
            .is_some_and(|p| spec_covers(spec, Path::new(p), root, home_dir().as_deref()));
    }
    if pattern.tool != tool {
        return false;
    }
    if spec == "*" {
        return true;
    }
    match tool {
        "Bash" => text(input, "command").is_some_and(|c| command_allows(spec, c)),
        "WebFetch" => match spec.strip_prefix("domain:") {
            Some(domain) => text(input, "url")
                .and_then(host)
                .is_some_and(|h| h.eq_ignore_ascii_case(domain)),
            None => text(input, "url") == Some(spec),
        },
        _ => main_argument(input) == Some(spec),
    }
}

/// A bare name: the tool itself, a whole MCP server, or a name prefix ending in `*`.
fn name_allows(rule: &str, tool: &str) -> bool {
    if rule == tool {
        return true;
    }
    if let Some(prefix) = rule.strip_suffix('*') {
        return tool.starts_with(prefix);
    }
    let is_server = rule.starts_with("mcp__") && rule.matches("__").count() == 1;
    is_server
        && tool
            .strip_prefix(rule)
            .is_some_and(|rest| rest.starts_with("__"))
}

/// Characters that let one command line run or feed another.
const COMPOUND: [&str; 8] = [";", "&", "|", "`", "$(", ">", "<", "\n"];

/// True when a Bash specifier allows the command line `command`.
fn command_allows(spec: &str, command: &str) -> bool {
    let command = command.trim();
    if command == spec {
        return true;
    }
    if COMPOUND.iter().any(|op| command.contains(op)) {
        return false;
    }
    if let Some(prefix) = spec.strip_suffix(":*") {
        return command == prefix
            || command
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(' '));
    }
    if !spec.contains('*') {
        return false;
    }
    if let Some(base) = spec.strip_suffix(" *") {
        if !base.contains('*') && command == base {
            return true;
        }
    }
    Glob::command(spec).matches(command)
}

/// The path a file tool works on.
fn file_path(input: &Value) -> Option<&str> {
    ["file_path", "notebook_path", "path"]
        .iter()
        .find_map(|k| text(input, k))
}

/// The argument a rule on any other tool is compared with.
fn main_argument(input: &Value) -> Option<&str> {
    ["command", "url", "query", "description", "prompt", "skill"]
        .iter()
        .find_map(|k| text(input, k))
}

/// A string field of the tool input.
fn text<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// The host of a URL (`https://user@Example.com:8080/x` → `Example.com`).
fn host(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let host = authority.split(':').next()?;
    (!host.is_empty()).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn allowed(tool: &str, input: Value, patterns: &[&str]) -> bool {
        let owned: Vec<String> = patterns.iter().map(|s| s.to_string()).collect();
        is_allowed(tool, &input, &owned, &DataDir::new("/home/u/.ollim-bot"))
    }

    #[test]
    fn exact_tool_names() {
        assert!(allowed("WebSearch", json!({"query": "x"}), &["WebSearch"]));
        assert!(!allowed("WebFetch", json!({}), &["WebSearch"]));
        assert!(allowed(
            "mcp__discord__ping_user",
            json!({}),
            &["mcp__discord__ping_user"]
        ));
        assert!(!allowed(
            "mcp__discord__ping_user_now",
            json!({}),
            &["mcp__discord__ping_user"]
        ));
    }

    #[test]
    fn mcp_server_rules_cover_every_tool_of_that_server() {
        let input = json!({});
        assert!(allowed("mcp__docs__search", input.clone(), &["mcp__docs"]));
        assert!(allowed(
            "mcp__docs__search",
            input.clone(),
            &["mcp__docs__*"]
        ));
        assert!(!allowed(
            "mcp__docsx__search",
            input.clone(),
            &["mcp__docs"]
        ));
        assert!(!allowed("mcp__discord__ping_user", input, &["mcp__docs"]));
    }

    #[test]
    fn bash_prefix_rules_respect_the_word_boundary() {
        let p = ["Bash(git status:*)"];
        assert!(allowed("Bash", json!({"command": "git status"}), &p));
        assert!(allowed(
            "Bash",
            json!({"command": "git status --short"}),
            &p
        ));
        assert!(!allowed("Bash", json!({"command": "git statusx"}), &p));
        assert!(!allowed("Bash", json!({"command": "git push"}), &p));
    }

    #[test]
    fn bash_rules_never_cover_chained_or_redirected_commands() {
        let p = ["Bash(git status:*)", "Bash(ollim-bot tasks *)"];
        for cmd in [
            "git status && rm -rf /",
            "git status; rm x",
            "git status | sh",
            "ollim-bot tasks list > state/x.json",
            "ollim-bot tasks $(rm x)",
        ] {
            assert!(!allowed("Bash", json!({ "command": cmd }), &p), "{cmd}");
        }
    }

    #[test]
    fn bash_wildcards_and_exact_commands() {
        let p = ["Bash(ollim-bot tasks *)", "Bash(ollim-bot help)"];
        assert!(allowed(
            "Bash",
            json!({"command": "ollim-bot tasks list"}),
            &p
        ));
        assert!(allowed("Bash", json!({"command": "ollim-bot tasks"}), &p));
        assert!(allowed("Bash", json!({"command": "ollim-bot help"}), &p));
        assert!(!allowed(
            "Bash",
            json!({"command": "ollim-bot help me"}),
            &p
        ));
        assert!(!allowed(
            "Bash",
            json!({"command": "ollim-bot cal list"}),
            &p
        ));
        assert!(allowed("Bash", json!({"command": "rm x"}), &["Bash"]));
    }

    #[test]
    fn file_globs_are_relative_to_the_data_dir() {
        let p = ["Write(routines/**)", "Read(**.md)"];
        let abs = json!({"file_path": "/home/u/.ollim-bot/routines/walk.md"});
        assert!(allowed("Write", abs, &p));
        assert!(allowed(
            "Write",
            json!({"file_path": "routines/a/b.md"}),
            &p
        ));
        assert!(!allowed(
            "Write",
            json!({"file_path": "reminders/x.md"}),
            &p
        ));
        assert!(allowed("Read", json!({"file_path": "reminders/x.md"}), &p));
        assert!(!allowed("Read", json!({"file_path": "state/x.json"}), &p));
        assert!(!allowed("Read", json!({"file_path": "/etc/notes.md"}), &p));
    }

    #[test]
    fn edit_rules_cover_every_editing_tool_and_read_rules_every_reader() {
        let p = ["Edit(notes/**)", "Read(notes/**)"];
        for tool in ["Edit", "Write", "MultiEdit"] {
            assert!(
                allowed(tool, json!({"file_path": "notes/a.md"}), &p),
                "{tool}"
            );
        }
        assert!(allowed(
            "NotebookEdit",
            json!({"notebook_path": "notes/a.ipynb"}),
            &p
        ));
        assert!(allowed(
            "Grep",
            json!({"pattern": "x", "path": "notes/a"}),
            &p
        ));
        assert!(!allowed(
            "Write",
            json!({"file_path": "notes/a.md"}),
            &["Write(x/**)"]
        ));
    }

    #[test]
    fn webfetch_domain_rules_match_the_host() {
        let p = ["WebFetch(domain:example.com)"];
        assert!(allowed(
            "WebFetch",
            json!({"url": "https://example.com/a"}),
            &p
        ));
        assert!(allowed(
            "WebFetch",
            json!({"url": "https://EXAMPLE.com:8080/a"}),
            &p
        ));
        assert!(!allowed(
            "WebFetch",
            json!({"url": "https://example.com.evil.io/"}),
            &p
        ));
        assert!(!allowed(
            "WebFetch",
            json!({"url": "https://evil.io/?example.com"}),
            &p
        ));
    }

    #[test]
    fn star_specifier_allows_every_use_of_its_tool_only() {
        assert!(allowed(
            "Read",
            json!({"file_path": "/etc/passwd"}),
            &["Read(*)"]
        ));
        assert!(!allowed("Write", json!({"file_path": "x"}), &["Read(*)"]));
        assert!(allowed("Write", json!({"file_path": "x"}), &["Edit(*)"]));
        assert!(!allowed("Bash", json!({"command": "ls"}), &["WebFetch(*)"]));
    }

    #[test]
    fn unparseable_patterns_allow_nothing() {
        assert!(!allowed("Bash", json!({"command": "ls"}), &["Bash(ls", ""]));
    }
}
