//! One Claude Code transcript (`<session>.jsonl`) read into what a reader needs: the user's
//! prompts, the assistant's answers, tool calls and their results, each with its message uuid
//! and time. The CLI writes many other lines (attachments, request shapes, costs); they are
//! passed over, and so are the records the CLI writes of its own slash commands (`/clear` as
//! `<command-name>/clear</command-name>…`, their `<local-command-stdout>` echoes): the user did
//! not type them as prompts. A line that is not JSON, or not the shape expected, is skipped and counted —
//! a damaged transcript never stops the reader.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

/// What a transcript entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Something the user (or the bot, speaking as the user) sent.
    Prompt,
    /// A tool's result, sent back to the model.
    ToolResult,
    /// Text the assistant wrote.
    Answer,
    /// A tool the assistant called.
    ToolCall,
}

impl Kind {
    /// The word shown for it.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Prompt => "user",
            Kind::ToolResult => "result",
            Kind::Answer => "assistant",
            Kind::ToolCall => "tool",
        }
    }
}

/// One entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The uuid of the message it belongs to.
    pub uuid: String,
    /// When it was written.
    pub at: Option<DateTime<Utc>>,
    /// What it is.
    pub kind: Kind,
    /// Its text (a tool call as `Name(argument)`).
    pub text: String,
}

/// A transcript as read.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    /// The entries in file order.
    pub entries: Vec<Entry>,
    /// Lines that could not be read.
    pub skipped_lines: usize,
}

impl Transcript {
    /// Reads the file at `path`; a file that cannot be read at all is an error.
    pub fn read(path: &Path) -> std::io::Result<Self> {
        let bytes = std::fs::read(path)?;
        Ok(Self::parse(&String::from_utf8_lossy(&bytes)))
    }

    /// Reads transcript text.
    pub fn parse(text: &str) -> Self {
        let mut out = Transcript::default();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(line) {
                Ok(value) => match entries(&value) {
                    Some(found) => out.entries.extend(found),
                    None => out.skipped_lines += 1,
                },
                Err(_) => out.skipped_lines += 1,
            }
        }
        out
    }

    /// The user's prompts.
    pub fn prompts(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.kind == Kind::Prompt)
    }

    /// The first and the last time in it.
    pub fn span(&self) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        let mut times = self.entries.iter().filter_map(|e| e.at);
        let first = times.next()?;
        let last = times.fold(first, |a, b| a.max(b));
        Some((first, last))
    }
}

/// The entries of one line: empty for the lines that carry no conversation; `None` for a
/// message line whose shape is not what a transcript message looks like.
fn entries(line: &Value) -> Option<Vec<Entry>> {
    let kind = line.get("type").and_then(Value::as_str);
    if !matches!(kind, Some("user" | "assistant")) {
        return Some(Vec::new());
    }
    // Lines the CLI adds for itself: resumed-context summaries, meta notes.
    if line.get("isMeta").and_then(Value::as_bool) == Some(true)
        || line.get("isCompactSummary").and_then(Value::as_bool) == Some(true)
    {
        return Some(Vec::new());
    }
    let uuid = line.get("uuid")?.as_str()?.to_owned();
    let at = line
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc));
    let content = line.get("message")?.get("content")?;
    let entry = |kind, text: String| Entry {
        uuid: uuid.clone(),
        at,
        kind,
        text,
    };
    let user = kind == Some("user");
    let mut out = Vec::new();
    match content {
        Value::String(text) if user && is_cli_command_record(text) => {}
        Value::String(text) if user => out.push(entry(Kind::Prompt, text.clone())),
        Value::String(text) => out.push(entry(Kind::Answer, text.clone())),
        Value::Array(blocks) => {
            let mut said = Vec::new();
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => said.push(block.get("text")?.as_str()?.to_owned()),
                    Some("image") => said.push("[image]".to_owned()),
                    Some("tool_result") => out.push(entry(
                        Kind::ToolResult,
                        text_of(block.get("content").unwrap_or(&Value::Null)),
                    )),
                    Some("tool_use") => out.push(entry(Kind::ToolCall, tool_call(block))),
                    _ => {}
                }
            }
            said.retain(|text| !(user && is_cli_command_record(text)));
            if !said.is_empty() {
                let kind = if user { Kind::Prompt } else { Kind::Answer };
                out.insert(0, entry(kind, said.join("\n")));
            }
        }
        _ => return None,
    }
    Some(out)
}

/// The tags the CLI wraps around its record of a slash command and of that command's output.
const CLI_COMMAND_TAGS: [&str; 5] = [
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
];

/// True for a user-side text that is the CLI's record of one of its own commands.
fn is_cli_command_record(text: &str) -> bool {
    let text = text.trim_start();
    CLI_COMMAND_TAGS.iter().any(|tag| text.starts_with(tag))
}

/// A tool result's text: a string, or its text blocks joined.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// `Bash(ollim-bot tasks list)`: the tool and its main argument.
fn tool_call(block: &Value) -> String {
    let name = block.get("name").and_then(Value::as_str).unwrap_or("tool");
    let input = block.get("input").unwrap_or(&Value::Null);
    let main = [
        "command",
        "file_path",
        "pattern",
        "url",
        "query",
        "prompt",
        "message",
    ]
    .iter()
    .find_map(|key| input.get(*key).and_then(Value::as_str));
    match main {
        Some(arg) => format!("{name}({arg})"),
        None => name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"type":"queue-operation","operation":"enqueue","content":"hi"}
{"parentUuid":null,"type":"user","message":{"role":"user","content":"call the dentist"},"uuid":"u1","timestamp":"2026-03-02T14:00:00.000Z","sessionId":"s"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"On it."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ollim-bot reminder list"}}]},"uuid":"a1","timestamp":"2026-03-02T14:00:05.000Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"no pending reminders"}]}]},"uuid":"r1","timestamp":"2026-03-02T14:00:06.000Z"}
{"type":"user","isMeta":true,"message":{"role":"user","content":"meta"},"uuid":"m1"}
"#;

    #[test]
    fn prompts_answers_calls_and_results_in_order() {
        let t = Transcript::parse(GOOD);
        assert_eq!(t.skipped_lines, 0);
        let kinds: Vec<(Kind, &str)> = t
            .entries
            .iter()
            .map(|e| (e.kind, e.text.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                (Kind::Prompt, "call the dentist"),
                (Kind::Answer, "On it."),
                (Kind::ToolCall, "Bash(ollim-bot reminder list)"),
                (Kind::ToolResult, "no pending reminders"),
            ]
        );
        let (first, last) = t.span().unwrap();
        assert_eq!((last - first).num_seconds(), 6);
    }

    #[test]
    fn the_clis_records_of_its_own_commands_are_not_prompts() {
        let text = r#"{"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>"},"uuid":"c1","timestamp":"2026-03-02T15:00:00.000Z"}
{"type":"user","message":{"role":"user","content":"<local-command-stdout></local-command-stdout>"},"uuid":"c2","timestamp":"2026-03-02T15:00:00.100Z"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<local-command-stdout>Set model to haiku</local-command-stdout>"}]},"uuid":"c3"}
{"type":"user","message":{"role":"user","content":"what is <command-name> in the transcript?"},"uuid":"u2","timestamp":"2026-03-02T15:01:00.000Z"}
"#;
        let t = Transcript::parse(&format!("{GOOD}{text}"));
        assert_eq!(t.skipped_lines, 0);
        let prompts: Vec<&str> = t.prompts().map(|e| e.text.as_str()).collect();
        assert_eq!(
            prompts,
            [
                "call the dentist",
                "what is <command-name> in the transcript?"
            ]
        );
    }

    #[test]
    fn damaged_lines_are_skipped_and_counted() {
        let damaged = format!(
            "{GOOD}{{\"type\":\"user\",\"message\":{{\"content\":\"cut off\n\u{0}\u{1}garbage\n{}\n{{\"type\":\"user\",\"message\":{{\"content\":42}},\"uuid\":\"x\"}}\n",
            "[1,2,3]"
        );
        let t = Transcript::parse(&damaged);
        assert_eq!(t.prompts().count(), 1);
        assert_eq!(t.skipped_lines, 3);
    }
}
