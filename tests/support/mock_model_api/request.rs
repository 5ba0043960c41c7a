//! What the mock recorded of one request, and the readers tests use on it: the messages, the
//! latest user text, tool results, the system prompt, the tools offered.

use serde_json::Value;

/// One recorded HTTP request.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    /// Request path including the query (`/v1/messages?beta=true`).
    pub path: String,
    /// The JSON body (`Null` when there was none or it was not JSON).
    pub body: Value,
    /// When its body had been read (benchmarks measure up to here).
    pub received_at: std::time::Instant,
}

impl ModelRequest {
    /// True for a model call (`/v1/messages`, not `count_tokens`).
    pub fn is_message_call(&self) -> bool {
        self.path.starts_with("/v1/messages") && !self.path.contains("count_tokens")
    }

    /// True for the agent's own calls, which offer tools; side calls offer none.
    pub fn is_agent_call(&self) -> bool {
        self.is_message_call()
            && self.body["tools"]
                .as_array()
                .is_some_and(|tools| !tools.is_empty())
    }

    /// The messages array.
    pub fn messages(&self) -> &[Value] {
        self.body["messages"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The text of the last user-role message (its text blocks joined).
    pub fn latest_user_text(&self) -> String {
        self.messages()
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .map(|m| text_of(&m["content"]))
            .unwrap_or_default()
    }

    /// Tool results in the last user message: (tool_use_id, text, is_error).
    pub fn tool_results(&self) -> Vec<(String, String, bool)> {
        let Some(last) = self.messages().iter().rev().find(|m| m["role"] == "user") else {
            return Vec::new();
        };
        last["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| {
                (
                    b["tool_use_id"].as_str().unwrap_or("").to_owned(),
                    text_of(&b["content"]),
                    b["is_error"].as_bool().unwrap_or(false),
                )
            })
            .collect()
    }

    /// All text of the `system` blocks, joined.
    pub fn system_text(&self) -> String {
        text_of(&self.body["system"])
    }

    /// Names of the tools offered.
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect()
    }

    /// True when any message (any role) contains `needle` in its text.
    pub fn mentions(&self, needle: &str) -> bool {
        self.messages()
            .iter()
            .any(|m| text_of(&m["content"]).contains(needle))
    }
}

/// Text of a content value: a string, or the `text` of its blocks (tool results included).
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match &b["content"] {
                Value::Null => b["text"].as_str().unwrap_or("").to_owned(),
                inner => text_of(inner),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
