//! The mock's answers as Messages API payloads: SSE event sequences for streamed calls and whole
//! messages for the rest.

use std::time::Duration;

use serde_json::{json, Value};

use super::Reply;

fn usage(input_tokens: u64) -> Value {
    json!({"input_tokens": input_tokens, "output_tokens": 5, "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0})
}

/// The non-streamed answer.
pub fn whole_message(id: &str, model: &str, reply: &Reply, input_tokens: u64) -> Value {
    let (content, stop) = match reply {
        Reply::ToolUse { name, input } => (
            json!([{"type": "tool_use", "id": format!("toolu_{id}"), "name": name, "input": input}]),
            "tool_use",
        ),
        Reply::TextAndTool { text, name, input } => (
            json!([{"type": "text", "text": text},
                {"type": "tool_use", "id": format!("toolu_{id}"), "name": name, "input": input}]),
            "tool_use",
        ),
        Reply::Text(text) => (json!([{"type": "text", "text": text}]), "end_turn"),
        Reply::SlowText { chunks, .. } => (
            json!([{"type": "text", "text": chunks.concat()}]),
            "end_turn",
        ),
        Reply::PromptTooLong | Reply::ApiError { .. } => (json!([]), "end_turn"),
    };
    json!({"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": stop, "stop_sequence": null, "usage": usage(input_tokens)})
}

/// The SSE events of a streamed reply, each with the pause to take before sending it.
pub fn sse_events(
    id: &str,
    model: &str,
    reply: &Reply,
    input_tokens: u64,
) -> Vec<(Duration, Value)> {
    let now = Duration::ZERO;
    let mut events = vec![(
        now,
        json!({"type": "message_start", "message": {"id": id, "type": "message",
            "role": "assistant", "model": model, "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": usage(input_tokens)}}),
    )];
    let (pieces, delay, stop) = match reply {
        Reply::Text(text) => (split_in_three(text), now, "end_turn"),
        Reply::SlowText { chunks, delay } => (chunks.clone(), *delay, "end_turn"),
        Reply::ToolUse { name, input } => {
            events.push((
                now,
                json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "tool_use", "id": format!("toolu_{id}"),
                    "name": name, "input": {}}}),
            ));
            events.push((
                now,
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
            ));
            (Vec::new(), now, "tool_use")
        }
        Reply::TextAndTool { text, name, input } => {
            events.push((
                now,
                json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
            ));
            events.push((
                now,
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": text}}),
            ));
            events.push((now, json!({"type": "content_block_stop", "index": 0})));
            events.push((
                now,
                json!({"type": "content_block_start", "index": 1,
                "content_block": {"type": "tool_use", "id": format!("toolu_{id}"),
                    "name": name, "input": {}}}),
            ));
            events.push((
                now,
                json!({"type": "content_block_delta", "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
            ));
            events.push((now, json!({"type": "content_block_stop", "index": 1})));
            (Vec::new(), now, "tool_use")
        }
        Reply::PromptTooLong | Reply::ApiError { .. } => (Vec::new(), now, "end_turn"),
    };
    if stop == "end_turn" {
        events.push((
            now,
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}),
        ));
        for piece in pieces {
            events.push((
                delay,
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": piece}}),
            ));
        }
    }
    if !matches!(reply, Reply::TextAndTool { .. }) {
        events.push((now, json!({"type": "content_block_stop", "index": 0})));
    }
    events.push((
        now,
        json!({"type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
    ));
    events.push((now, json!({"type": "message_stop"})));
    events
}

/// Splits text into up to three pieces at character boundaries, so replies really stream.
fn split_in_three(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(3).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}
