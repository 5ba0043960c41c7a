//! The lines we write to the CLI's stdin (protocol reference §5, §6, §9): user messages, control
//! requests and control responses, plus the initialize request with its hook callback table.
//! Every line is one JSON object from `serde_json`, so embedded newlines are always escaped.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::host::{HookEvent, HookRegistration};
use super::Error;

/// A base64 image attached to a user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageBlock {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The bytes, base64-encoded.
    pub data: String,
}

/// A message from the user (or a prompt the bot composes) for the agent.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserMessage {
    /// The text.
    pub text: String,
    /// Attached images; with none the content goes out as a plain string.
    pub images: Vec<ImageBlock>,
}

impl UserMessage {
    /// A text-only message.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            images: Vec::new(),
        }
    }

    /// The `content` of the wire message: a string, or text and image blocks.
    pub fn content(&self) -> Value {
        if self.images.is_empty() {
            return Value::String(self.text.clone());
        }
        let mut blocks = Vec::with_capacity(self.images.len() + 1);
        if !self.text.is_empty() {
            blocks.push(json!({"type": "text", "text": self.text}));
        }
        blocks.extend(self.images.iter().map(|image| {
            json!({"type": "image", "source": {
                "type": "base64", "media_type": image.media_type, "data": image.data,
            }})
        }));
        Value::Array(blocks)
    }
}

/// The initialize response, kept whole; accessors for the fields the bot reads.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InitializeInfo {
    /// The `response` object as received.
    pub raw: Value,
}

impl InitializeInfo {
    /// The CLI's version (`2.1.330`), to log at start-up.
    pub fn claude_code_version(&self) -> Option<&str> {
        self.raw.get("claude_code_version").and_then(Value::as_str)
    }

    /// The models the CLI offers with their thinking and effort capabilities.
    pub fn models(&self) -> &[Value] {
        self.raw
            .get("models")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The permission mode the process runs in.
    pub fn permission_mode(&self) -> Option<&str> {
        self.raw
            .get("current_permission_mode")
            .and_then(Value::as_str)
    }
}

/// Serialises one value as a stdin line.
fn line(what: &'static str, value: &Value) -> Result<String, Error> {
    let mut text = serde_json::to_string(value).map_err(|source| Error::Encode { what, source })?;
    text.push('\n');
    Ok(text)
}

/// The stdin line carrying a user message with the given uuid.
pub fn user_line(uuid: &str, message: &UserMessage) -> Result<String, Error> {
    line(
        "user",
        &json!({
            "type": "user",
            "uuid": uuid,
            "message": {"role": "user", "content": message.content()},
            "parent_tool_use_id": null,
            "session_id": "",
        }),
    )
}

/// The stdin line of an outbound control request.
pub fn control_request_line(request_id: &str, request: &Value) -> Result<String, Error> {
    line(
        "control request",
        &json!({"type": "control_request", "request_id": request_id, "request": request}),
    )
}

/// The stdin line answering an inbound control request successfully.
pub fn control_success_line(request_id: &str, response: Value) -> Result<String, Error> {
    line(
        "control response",
        &json!({"type": "control_response", "response": {
            "subtype": "success", "request_id": request_id, "response": response,
        }}),
    )
}

/// The stdin line answering an inbound control request with an error.
pub fn control_error_line(request_id: &str, message: &str) -> Result<String, Error> {
    line(
        "control response",
        &json!({"type": "control_response", "response": {
            "subtype": "error", "request_id": request_id, "error": message,
        }}),
    )
}

/// Builds the initialize request: hooks grouped by event with callback ids `hook_<n>` (numbered
/// across all events, in the order given), and the agents table when given. Returns the request
/// and the map from callback id to event used to route `hook_callback`s.
pub fn initialize_request(
    hooks: &[HookRegistration],
    agents: Option<&Value>,
) -> (Value, HashMap<String, HookEvent>) {
    let mut by_event: Map<String, Value> = Map::new();
    let mut routes = HashMap::new();
    for (n, hook) in hooks.iter().enumerate() {
        let id = format!("hook_{n}");
        routes.insert(id.clone(), hook.event);
        let mut matcher = json!({"matcher": hook.matcher, "hookCallbackIds": [id]});
        if let Some(timeout) = hook.timeout_secs {
            matcher["timeout"] = json!(timeout);
        }
        let list = by_event
            .entry(hook.event.as_str())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list {
            list.push(matcher);
        }
    }
    let mut request = json!({
        "subtype": "initialize",
        "hooks": if by_event.is_empty() { Value::Null } else { Value::Object(by_event) },
    });
    if let Some(agents) = agents {
        request["agents"] = agents.clone();
    }
    (request, routes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Value {
        assert!(line.ends_with('\n') && !line.trim_end().contains('\n'));
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn text_message_is_a_single_line_with_string_content() {
        let line = user_line("u-1", &UserMessage::text("two\nlines")).unwrap();
        let v = parse(&line);
        assert_eq!(v["type"], "user");
        assert_eq!(v["uuid"], "u-1");
        assert_eq!(v["message"], json!({"role":"user","content":"two\nlines"}));
        assert!(v["parent_tool_use_id"].is_null());
        assert_eq!(v["session_id"], "");
    }

    #[test]
    fn images_become_base64_blocks_after_the_text() {
        let message = UserMessage {
            text: "look".into(),
            images: vec![ImageBlock {
                media_type: "image/png".into(),
                data: "iVBOR".into(),
            }],
        };
        let content = message.content();
        assert_eq!(content[0], json!({"type":"text","text":"look"}));
        assert_eq!(content[1]["source"]["media_type"], "image/png");
        assert_eq!(content[1]["source"]["type"], "base64");
        assert_eq!(content[1]["source"]["data"], "iVBOR");
    }

    #[test]
    fn control_lines_have_the_envelope_shapes() {
        let req =
            parse(&control_request_line("req_1_ab", &json!({"subtype":"interrupt"})).unwrap());
        assert_eq!(req["type"], "control_request");
        assert_eq!(req["request"]["subtype"], "interrupt");
        let ok = parse(&control_success_line("x", json!({"a":1})).unwrap());
        assert_eq!(
            ok["response"],
            json!({"subtype":"success","request_id":"x","response":{"a":1}})
        );
        let err = parse(&control_error_line("y", "nope").unwrap());
        assert_eq!(err["response"]["subtype"], "error");
        assert_eq!(err["response"]["error"], "nope");
    }

    #[test]
    fn hooks_are_grouped_by_event_with_numbered_callback_ids() {
        let hooks = [
            HookRegistration::on_tools(HookEvent::PreToolUse, "mcp__discord__.*"),
            HookRegistration::on(HookEvent::Stop),
            HookRegistration {
                timeout_secs: Some(30),
                ..HookRegistration::on(HookEvent::PreToolUse)
            },
        ];
        let (request, routes) = initialize_request(&hooks, None);
        assert_eq!(request["subtype"], "initialize");
        let pre = &request["hooks"]["PreToolUse"];
        assert_eq!(
            pre[0],
            json!({"matcher":"mcp__discord__.*","hookCallbackIds":["hook_0"]})
        );
        assert_eq!(pre[1]["hookCallbackIds"], json!(["hook_2"]));
        assert_eq!(pre[1]["timeout"], 30);
        assert_eq!(request["hooks"]["Stop"][0]["matcher"], Value::Null);
        assert_eq!(routes.get("hook_1"), Some(&HookEvent::Stop));
        assert!(request.get("agents").is_none());
    }

    #[test]
    fn no_hooks_is_null_and_agents_pass_through() {
        let agents = json!({"guide": {"description": "d", "prompt": "p"}});
        let (request, routes) = initialize_request(&[], Some(&agents));
        assert!(request["hooks"].is_null());
        assert_eq!(request["agents"], agents);
        assert!(routes.is_empty());
    }
}
