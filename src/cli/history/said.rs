//! What a transcript's text is: a prompt the user typed (with the CLI's `<system-reminder>`
//! blocks cut out), a notice the CLI wrote in the user's place, or nothing to show; and the
//! text of a message the assistant sent the owner through one of the bot's Discord tools.

use serde_json::Value;

/// The tags the CLI wraps around its record of a slash command and of that command's output.
const CLI_COMMAND_TAGS: [&str; 5] = [
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
];

/// Notices written as the user's message but not by them: the CLI's (an interruption, a
/// background task's end) and the bot's silent `[memory-flush]` turn (SPEC §18).
const NOTICE_STARTS: [&str; 3] = [
    "[Request interrupted",
    "<task-notification>",
    "[memory-flush]",
];

/// The tool names whose calls put text in front of the owner.
const SENDING_TOOLS: &str = "mcp__discord__";

/// A piece of user-side text, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserText {
    /// Typed by the user (or sent as the user by the bot), reminders cut out.
    Prompt(String),
    /// Written by the CLI in the user's place.
    Notice(String),
    /// A record of the CLI's own command, or only injected context.
    Nothing,
}

/// Classifies one user-side text.
pub fn user_text(text: &str) -> UserText {
    let start = text.trim_start();
    if CLI_COMMAND_TAGS.iter().any(|tag| start.starts_with(tag)) {
        return UserText::Nothing;
    }
    if NOTICE_STARTS.iter().any(|n| start.starts_with(n)) {
        return UserText::Notice(text.trim().to_owned());
    }
    let cut = without_reminders(text);
    if cut.trim().is_empty() {
        UserText::Nothing
    } else {
        UserText::Prompt(cut.trim().to_owned())
    }
}

/// `text` without its `<system-reminder>…</system-reminder>` blocks (an unclosed one runs to
/// the end).
fn without_reminders(text: &str) -> String {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        rest = &rest[at + OPEN.len()..];
        rest = match rest.find(CLOSE) {
            Some(end) => &rest[end + CLOSE.len()..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// `[mcp__discord__ping_user] hello`: the text of a `tool_use` block that sends the owner
/// something, or `None` for any other tool.
pub fn sent_text(block: &Value) -> Option<String> {
    let name = block.get("name").and_then(Value::as_str)?;
    if !name.starts_with(SENDING_TOOLS) {
        return None;
    }
    let input = block.get("input").unwrap_or(&Value::Null);
    let mut parts: Vec<String> = Vec::new();
    let mut push = |text: &str| {
        let text = text.trim();
        if !text.is_empty() {
            parts.push(text.to_owned());
        }
    };
    for key in ["message", "title", "description", "text", "content"] {
        if let Some(text) = input.get(key).and_then(Value::as_str) {
            push(text);
        }
    }
    for field in input
        .get("fields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let part = |k: &str| field.get(k).and_then(Value::as_str).unwrap_or("");
        push(&format!("{}: {}", part("name"), part("value")));
    }
    for button in input
        .get("buttons")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(label) = button.get("label").and_then(Value::as_str) {
            push(&format!("[{label}]"));
        }
    }
    Some(if parts.is_empty() {
        format!("[{name}]")
    } else {
        format!("[{name}] {}", parts.join("\n"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_clis_own_texts_are_not_prompts() {
        assert_eq!(
            user_text("[Request interrupted by user]"),
            UserText::Notice("[Request interrupted by user]".into())
        );
        assert!(matches!(
            user_text("<task-notification>\n<task-id>b1</task-id>"),
            UserText::Notice(_)
        ));
        assert_eq!(
            user_text("<command-name>/clear</command-name>"),
            UserText::Nothing
        );
        assert!(matches!(
            user_text("[memory-flush] This conversation is about to be cleared."),
            UserText::Notice(_)
        ));
        assert_eq!(
            user_text("<system-reminder>\nnote\n</system-reminder>"),
            UserText::Nothing
        );
        assert_eq!(
            user_text("call mum<system-reminder>today is Friday</system-reminder> please"),
            UserText::Prompt("call mum please".into())
        );
        assert_eq!(
            user_text("what is <command-name>?"),
            UserText::Prompt("what is <command-name>?".into())
        );
    }

    #[test]
    fn discord_tool_calls_read_as_what_was_sent() {
        let ping = json!({"type": "tool_use", "name": "mcp__discord__ping_user",
            "input": {"message": "hello exhausted"}});
        assert_eq!(
            sent_text(&ping).as_deref(),
            Some("[mcp__discord__ping_user] hello exhausted")
        );
        let embed = json!({"type": "tool_use", "name": "mcp__discord__discord_embed",
            "input": {"title": "Tides", "description": "high at nine", "color": "blue",
                "fields": [{"name": "low", "value": "three"}],
                "buttons": [{"label": "Remind me", "action": "agent:x"}]}});
        assert_eq!(
            sent_text(&embed).as_deref(),
            Some("[mcp__discord__discord_embed] Tides\nhigh at nine\nlow: three\n[Remind me]")
        );
        let bash = json!({"type": "tool_use", "name": "Bash", "input": {"command": "ls"}});
        assert_eq!(sent_text(&bash), None);
    }
}
