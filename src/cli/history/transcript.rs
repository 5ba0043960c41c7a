//! One Claude Code transcript (`<session>.jsonl`) read into what a reader needs: the user's
//! prompts, the assistant's answers, what the bot sent the owner through its Discord tools,
//! other tool calls and their results, each with its message uuid and time.
//!
//! The CLI writes many other lines (attachments, request shapes, costs); they are passed over.
//! Not prompts either, though written as the user's: the CLI's records of its own slash commands
//! (`<command-name>/clear</command-name>…`, `<local-command-stdout>` echoes), its
//! `[Request interrupted by user]` notices, background-task notices (`<task-notification>`),
//! and text inside a tool result's record (marked `sourceToolAssistantUUID`/`toolUseResult`);
//! `<system-reminder>` blocks the CLI injects into a prompt are cut out of it. A line that is
//! not JSON, or not the shape expected, is skipped and counted — a damaged transcript never
//! stops the reader. Lines end at `\n` only (a raw U+2028 inside a record is part of it).

use std::path::Path;
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use memchr::memmem;
use serde_json::Value;

use super::said;

/// What a transcript entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Something the user (or the bot, speaking as the user) sent.
    Prompt,
    /// A tool's result (or a background task's notice), sent back to the model.
    ToolResult,
    /// Text the assistant wrote.
    Answer,
    /// What the assistant sent the owner through a Discord tool (`ping_user`, `discord_embed`,
    /// `report_updates`…): part of its answer, since background forks reach the owner only so.
    Sent,
    /// Any other tool the assistant called.
    ToolCall,
}

impl Kind {
    /// The word shown for it.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Prompt => "user",
            Kind::ToolResult => "result",
            Kind::Answer | Kind::Sent => "assistant",
            Kind::ToolCall => "tool",
        }
    }

    /// Whether it is part of the assistant's answer (what `response` and `search -r` read).
    pub fn is_answer(self) -> bool {
        matches!(self, Kind::Answer | Kind::Sent)
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
    /// Its text (a tool call as `Name(argument)`, a Discord message as `[tool] text`).
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
        Ok(Self::parse_bytes(&bytes))
    }

    /// Reads transcript text.
    #[cfg(test)]
    pub fn parse(text: &str) -> Self {
        Self::parse_bytes(text.as_bytes())
    }

    /// Reads transcript bytes line by line; a line that is not UTF-8 is read with the bad
    /// bytes replaced.
    pub fn parse_bytes(bytes: &[u8]) -> Self {
        let mut out = Transcript::default();
        for line in bytes.split(|b| *b == b'\n') {
            match record_entries(line) {
                Ok(found) => out.entries.extend(found),
                Err(Unreadable) => out.skipped_lines += 1,
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

/// A line that is not a record (not JSON, or a message of the wrong shape).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable;

/// How a message record names its type; every other record is passed over unparsed (most of a
/// transcript's bytes are the CLI's own records: prompt snapshots, request shapes).
static MESSAGE_TYPES: LazyLock<[memmem::Finder<'static>; 4]> = LazyLock::new(|| {
    [
        r#""type":"user""#,
        r#""type":"assistant""#,
        r#""type": "user""#,
        r#""type": "assistant""#,
    ]
    .map(memmem::Finder::new)
});

/// The entries of one line of a transcript: none for blank lines and the lines that carry no
/// conversation. A line that names no message type is not parsed; it is unreadable only when
/// it is not even bracketed like JSON.
pub fn record_entries(line: &[u8]) -> Result<Vec<Entry>, Unreadable> {
    let line = line.trim_ascii();
    if line.is_empty() {
        return Ok(Vec::new());
    }
    if !MESSAGE_TYPES.iter().any(|f| f.find(line).is_some()) {
        let bracketed =
            matches!(line.first(), Some(b'{' | b'[')) && matches!(line.last(), Some(b'}' | b']'));
        return if bracketed {
            Ok(Vec::new())
        } else {
            Err(Unreadable)
        };
    }
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        Err(_) => {
            let text = String::from_utf8_lossy(line);
            serde_json::from_str::<Value>(&text).map_err(|_| Unreadable)?
        }
    };
    entries(&value).ok_or(Unreadable)
}

/// The entries of one record; `None` for a message record whose shape is not a message's.
fn entries(line: &Value) -> Option<Vec<Entry>> {
    let kind = line.get("type").and_then(Value::as_str);
    if !matches!(kind, Some("user" | "assistant")) {
        return Some(Vec::new());
    }
    let flag = |key: &str| line.get(key).and_then(Value::as_bool) == Some(true);
    // Lines the CLI adds for itself: resumed-context summaries, meta notes.
    if flag("isMeta") || flag("isCompactSummary") {
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
    let mut said = Vec::new();
    let mut out = Vec::new();
    match content {
        Value::String(text) => said.push(text.clone()),
        Value::Array(blocks) => {
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => said.push(block.get("text")?.as_str()?.to_owned()),
                    Some("image") => said.push("[image]".to_owned()),
                    Some("tool_result") => out.push(entry(
                        Kind::ToolResult,
                        text_of(block.get("content").unwrap_or(&Value::Null)),
                    )),
                    Some("tool_use") => out.push(match said::sent_text(block) {
                        Some(text) => entry(Kind::Sent, text),
                        None => entry(Kind::ToolCall, tool_call(block)),
                    }),
                    _ => {}
                }
            }
        }
        _ => return None,
    }
    if !user {
        said.retain(|text| !text.trim().is_empty());
        if !said.is_empty() {
            out.insert(0, entry(Kind::Answer, said.join("\n")));
        }
        return Some(out);
    }
    // The record of a tool's result: whatever text it holds went to the model, not from the user.
    let tool_record = line.get("sourceToolAssistantUUID").is_some()
        || line.get("toolUseResult").is_some()
        || out.iter().any(|e| e.kind == Kind::ToolResult);
    let mut notices = Vec::new();
    let mut prompt = Vec::new();
    for text in said {
        match said::user_text(&text) {
            said::UserText::Prompt(text) if !tool_record => prompt.push(text),
            said::UserText::Prompt(text) | said::UserText::Notice(text) => notices.push(text),
            said::UserText::Nothing => {}
        }
    }
    if !prompt.is_empty() {
        out.insert(0, entry(Kind::Prompt, prompt.join("\n")));
    }
    out.extend(
        notices
            .into_iter()
            .map(|text| entry(Kind::ToolResult, text)),
    );
    Some(out)
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
#[path = "transcript_tests.rs"]
mod tests;
