//! Turning stdout frames into [`BrainEvent`]s (protocol reference §10). Lenient: unknown fields
//! are ignored, unknown frames are passed on whole as [`BrainEvent::Other`], and subagent traffic
//! (a non-null `parent_tool_use_id`) never shows up as the main agent's text or tools.
//!
//! Which of the host's lines a turn took in ([`BrainEvent::LinesTaken`]) is said differently by
//! the releases we support, so both ways are read:
//! - 2.1.330 and later name them in `system`/`status` frames (`user_message_uuids`, as each
//!   model request starts) and in the result, and replay them too.
//! - 2.1.197 names none in its results; with `--replay-user-messages` it replays each line as
//!   it takes it into a turn (`user` with `isReplay`), and lines it merged into one come back
//!   as one replay of their texts joined by a line break, under a uuid of its own.
//!
//! The table of what each release does is `releases`.

use serde_json::Value;

use super::events::BrainEvent;

/// Turns frames into events; keeps the little state that needs (which block is thinking).
#[derive(Debug, Default)]
pub struct EventParser {
    thinking_index: Option<u64>,
}

impl EventParser {
    /// The events of one non-control frame.
    pub fn parse(&mut self, frame: Value) -> Vec<BrainEvent> {
        let kind = frame.get("type").and_then(Value::as_str).unwrap_or("");
        let top_level = frame.get("parent_tool_use_id").is_none_or(Value::is_null);
        let events = match kind {
            "system" => system(&frame),
            "stream_event" if top_level => self.stream_event(&frame),
            "assistant" if top_level => assistant(&frame),
            "assistant" => subagent_tools(&frame),
            "user" if top_level && frame.get("isReplay") == Some(&Value::Bool(true)) => {
                replayed(&frame)
            }
            "user" if top_level => tool_results(&frame),
            "result" => serde_json::from_value(frame.clone())
                .map(|r| vec![BrainEvent::Result(r)])
                .unwrap_or_default(),
            "conversation_reset" => vec![BrainEvent::ConversationReset {
                old_session_id: str_field(&frame, "session_id"),
                new_conversation_id: str_field(&frame, "new_conversation_id").unwrap_or_default(),
            }],
            _ => Vec::new(),
        };
        if events.is_empty() {
            vec![BrainEvent::Other(frame)]
        } else {
            events
        }
    }

    fn stream_event(&mut self, frame: &Value) -> Vec<BrainEvent> {
        let Some(event) = frame.get("event") else {
            return Vec::new();
        };
        let index = event.get("index").and_then(Value::as_u64);
        match event.get("type").and_then(Value::as_str) {
            Some("content_block_start") => {
                let block = event.pointer("/content_block/type").and_then(Value::as_str);
                if matches!(block, Some("thinking" | "redacted_thinking")) {
                    self.thinking_index = index;
                    return vec![BrainEvent::ThinkingStarted];
                }
                Vec::new()
            }
            Some("content_block_delta") => {
                let delta = &event["delta"];
                match (delta["type"].as_str(), delta["text"].as_str()) {
                    (Some("text_delta"), Some(text)) if !text.is_empty() => {
                        vec![BrainEvent::TextDelta(text.to_owned())]
                    }
                    _ => Vec::new(),
                }
            }
            Some("content_block_stop") if index.is_some() && index == self.thinking_index => {
                self.thinking_index = None;
                vec![BrainEvent::ThinkingFinished]
            }
            _ => Vec::new(),
        }
    }
}

fn str_field(frame: &Value, key: &str) -> Option<String> {
    frame.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn system(frame: &Value) -> Vec<BrainEvent> {
    match frame.get("subtype").and_then(Value::as_str) {
        Some("init") => vec![BrainEvent::Init {
            session_id: str_field(frame, "session_id").unwrap_or_default(),
            model: str_field(frame, "model"),
            tools: frame
                .get("tools")
                .and_then(Value::as_array)
                .map(|tools| {
                    tools
                        .iter()
                        .filter_map(|t| t.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        }],
        Some("status") => match (frame.get("status"), str_field(frame, "compact_result")) {
            (Some(Value::String(s)), _) if s == "compacting" => vec![BrainEvent::Compacting],
            (_, Some(result)) => vec![BrainEvent::CompactFinished {
                result,
                error: str_field(frame, "compact_error"),
            }],
            _ => {
                let uuids = strings(frame.get("user_message_uuids"));
                if uuids.is_empty() {
                    Vec::new()
                } else {
                    vec![BrainEvent::LinesTaken { uuids, text: None }]
                }
            }
        },
        Some("compact_boundary") => frame
            .get("compact_metadata")
            .cloned()
            .and_then(|m| serde_json::from_value(m).ok())
            .map(|b| vec![BrainEvent::CompactBoundary(b)])
            .unwrap_or_default(),
        Some("api_retry") => {
            let number = |key: &str| frame.get(key).and_then(Value::as_u64);
            vec![BrainEvent::ApiRetry {
                attempt: number("attempt")
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(0),
                max_retries: number("max_retries")
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(0),
                status: number("error_status").and_then(|n| u16::try_from(n).ok()),
                error: str_field(frame, "error"),
            }]
        }
        Some("session_state_changed") => str_field(frame, "state")
            .map(|s| vec![BrainEvent::SessionState(s)])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn assistant(frame: &Value) -> Vec<BrainEvent> {
    let Some(blocks) = frame.pointer("/message/content").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut events = Vec::new();
    let mut texts = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => texts.extend(block.get("text").and_then(Value::as_str)),
            Some("tool_use") => events.push(BrainEvent::ToolUse {
                id: str_field(block, "id").unwrap_or_default(),
                name: str_field(block, "name").unwrap_or_default(),
                input: block.get("input").cloned().unwrap_or(Value::Null),
            }),
            _ => {}
        }
    }
    events.push(BrainEvent::AssistantMessage {
        message_id: frame
            .pointer("/message/id")
            .and_then(Value::as_str)
            .map(str::to_owned),
        text: texts.join("\n"),
        api_error: api_error(frame),
        context_tokens: frame.pointer("/message/usage").and_then(context_tokens),
    });
    events
}

/// The error kind of the CLI's synthetic message for a failed model call. 2.1.330 and later
/// flag it (`is_api_error_message`); 2.1.197 only gives the `error` kind on a message of the
/// model `<synthetic>` (see the releases table).
fn api_error(frame: &Value) -> Option<String> {
    let flagged = frame.get("is_api_error_message").and_then(Value::as_bool);
    let synthetic = frame.pointer("/message/model").and_then(Value::as_str) == Some("<synthetic>");
    let kind = str_field(frame, "error");
    match flagged {
        Some(true) => Some(kind.unwrap_or_else(|| "unknown".to_owned())),
        Some(false) => None,
        None if synthetic => kind,
        None => None,
    }
}

/// Input, cache-read and cache-write tokens of one model call: the context it read.
fn context_tokens(usage: &Value) -> Option<u64> {
    let tokens = [
        "input_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    ]
    .iter()
    .filter_map(|k| usage.get(*k).and_then(Value::as_u64))
    .sum::<u64>();
    (tokens > 0).then_some(tokens)
}

/// The tool calls in a subagent's message (`parent_tool_use_id` names the call that started it).
fn subagent_tools(frame: &Value) -> Vec<BrainEvent> {
    let Some(parent) = str_field(frame, "parent_tool_use_id") else {
        return Vec::new();
    };
    let Some(blocks) = frame.pointer("/message/content").and_then(Value::as_array) else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .map(|b| BrainEvent::SubagentToolUse {
            parent_tool_use_id: parent.clone(),
            name: str_field(b, "name").unwrap_or_default(),
        })
        .collect()
}

/// The strings of a JSON array (none when it is not one).
fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// A line of ours replayed as the CLI takes it into a turn: its uuid and its text (a string, or
/// the text blocks of a list joined by line breaks).
fn replayed(frame: &Value) -> Vec<BrainEvent> {
    let content = frame.pointer("/message/content");
    let text = match content {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(blocks)) => Some(
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    };
    vec![BrainEvent::LinesTaken {
        uuids: str_field(frame, "uuid").into_iter().collect(),
        text,
    }]
}

fn tool_results(frame: &Value) -> Vec<BrainEvent> {
    let Some(blocks) = frame.pointer("/message/content").and_then(Value::as_array) else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .map(|b| BrainEvent::ToolResult {
            tool_use_id: str_field(b, "tool_use_id").unwrap_or_default(),
            is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
        })
        .collect()
}

#[cfg(test)]
#[path = "event_parser_tests.rs"]
mod tests;
