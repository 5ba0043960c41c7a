//! The in-process MCP server (SPEC §10, protocol reference §7.3): the CLI is the MCP client and
//! sends JSON-RPC inside `mcp_message` control requests; we answer `initialize`,
//! `notifications/initialized`, `ping`, `tools/list` and `tools/call` by asking a [`ToolHandler`].
//! Tool failures reach the model as `isError: true` results; protocol problems (unknown server or
//! method) are JSON-RPC errors with code -32601.

use serde_json::{json, Value};

use super::BoxFuture;

/// JSON-RPC "method not found".
pub const METHOD_NOT_FOUND: i64 = -32601;

/// A tool as listed to the model (without the `mcp__<server>__` prefix).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments (`{"type":"object","properties":{...}}`).
    pub input_schema: Value,
}

/// One call of a tool by the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name (unprefixed).
    pub name: String,
    /// Its arguments.
    pub arguments: Value,
    /// The model's `tool_use` id, when the CLI sent it.
    pub tool_use_id: Option<String>,
}

/// What a tool returns to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// The text the model reads.
    pub text: String,
    /// True when the call failed (wrong context, bad arguments, handler failure).
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: false,
        }
    }

    /// A failed result; the model sees it as an error tool result.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: true,
        }
    }
}

/// Serves the tools of the SDK MCP server.
pub trait ToolHandler: Send + Sync + 'static {
    /// The tools to list to the model.
    fn tools(&self) -> Vec<ToolSpec>;
    /// Runs one call. Unknown names are answered before this is called.
    fn call(&self, call: ToolCall) -> BoxFuture<'_, ToolOutput>;
}

/// A server with no tools.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTools;

impl ToolHandler for NoTools {
    fn tools(&self) -> Vec<ToolSpec> {
        Vec::new()
    }

    fn call(&self, call: ToolCall) -> BoxFuture<'_, ToolOutput> {
        Box::pin(async move { ToolOutput::error(format!("unknown tool: {}", call.name)) })
    }
}

/// Answers one `mcp_message` request: `server` is the name the CLI addressed, `ours` the name we
/// serve. Returns the control response body `{"mcp_response": <JSON-RPC response>}`.
pub async fn answer(server: &str, ours: &str, message: &Value, tools: &dyn ToolHandler) -> Value {
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let method = message.get("method").and_then(Value::as_str).unwrap_or("");
    let reply = if server != ours {
        rpc_error(id, format!("unknown MCP server: {server}"))
    } else {
        match method {
            "initialize" => rpc_result(id, initialize_result(ours, message)),
            "notifications/initialized" | "notifications/cancelled" => {
                json!({"jsonrpc": "2.0", "result": {}})
            }
            "ping" => rpc_result(id, json!({})),
            "tools/list" => rpc_result(id, json!({"tools": list(tools)})),
            "tools/call" => rpc_result(id, call(message, tools).await),
            other => rpc_error(id, format!("method not found: {other}")),
        }
    };
    json!({ "mcp_response": reply })
}

fn initialize_result(ours: &str, message: &Value) -> Value {
    let version = message
        .pointer("/params/protocolVersion")
        .cloned()
        .unwrap_or_else(|| json!("2025-11-25"));
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": {"name": ours, "version": env!("CARGO_PKG_VERSION")},
    })
}

fn list(tools: &dyn ToolHandler) -> Vec<Value> {
    tools
        .tools()
        .into_iter()
        .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
        .collect()
}

async fn call(message: &Value, tools: &dyn ToolHandler) -> Value {
    let name = message
        .pointer("/params/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let output = if tools.tools().iter().any(|t| t.name == name) {
        let arguments = message
            .pointer("/params/arguments")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let tool_use_id = message
            .pointer("/params/_meta/claudecode~1toolUseId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        tools
            .call(ToolCall {
                name: name.to_owned(),
                arguments,
                tool_use_id,
            })
            .await
    } else {
        ToolOutput::error(format!("unknown tool: {name}"))
    };
    json!({"content": [{"type": "text", "text": output.text}], "isError": output.is_error})
}

fn rpc_result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn rpc_error(id: Value, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": METHOD_NOT_FOUND, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;

    impl ToolHandler for Echo {
        fn tools(&self) -> Vec<ToolSpec> {
            vec![ToolSpec {
                name: "echo".into(),
                description: "repeats".into(),
                input_schema: json!({"type":"object","properties":{"text":{"type":"string"}}}),
            }]
        }

        fn call(&self, call: ToolCall) -> BoxFuture<'_, ToolOutput> {
            Box::pin(async move {
                let text = call.arguments["text"].as_str().unwrap_or("").to_owned();
                if text.is_empty() {
                    ToolOutput::error("nothing to echo")
                } else {
                    ToolOutput::ok(format!("{text} ({})", call.tool_use_id.unwrap_or_default()))
                }
            })
        }
    }

    async fn ask(server: &str, message: Value) -> Value {
        answer(server, "discord", &message, &Echo).await["mcp_response"].clone()
    }

    #[tokio::test]
    async fn initialize_echoes_protocol_version_and_offers_tools() {
        let reply = ask(
            "discord",
            json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}),
        )
        .await;
        assert_eq!(reply["id"], 0);
        assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(reply["result"]["capabilities"], json!({"tools":{}}));
        assert_eq!(reply["result"]["serverInfo"]["name"], "discord");
    }

    #[tokio::test]
    async fn initialized_notification_gets_an_empty_result_without_id() {
        let reply = ask(
            "discord",
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        )
        .await;
        assert_eq!(reply, json!({"jsonrpc":"2.0","result":{}}));
    }

    #[tokio::test]
    async fn tools_list_uses_camel_case_input_schema() {
        let reply = ask(
            "discord",
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
        assert_eq!(reply["result"]["tools"][0]["name"], "echo");
        assert_eq!(reply["result"]["tools"][0]["inputSchema"]["type"], "object");
    }

    #[tokio::test]
    async fn tools_call_passes_arguments_and_tool_use_id() {
        let reply = ask(
            "discord",
            json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"claudecode/toolUseId":"toolu_1"}}}),
        )
        .await;
        assert_eq!(
            reply["result"],
            json!({"content":[{"type":"text","text":"hi (toolu_1)"}],"isError":false})
        );
    }

    #[tokio::test]
    async fn failures_and_unknown_tools_are_error_results_not_rpc_errors() {
        let failed = ask(
            "discord",
            json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}),
        )
        .await;
        assert_eq!(failed["result"]["isError"], true);
        let unknown = ask(
            "discord",
            json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}),
        )
        .await;
        assert_eq!(unknown["result"]["isError"], true);
        assert_eq!(
            unknown["result"]["content"][0]["text"],
            "unknown tool: nope"
        );
    }

    #[tokio::test]
    async fn unknown_method_or_server_is_method_not_found() {
        let method = ask(
            "discord",
            json!({"jsonrpc":"2.0","id":5,"method":"resources/list"}),
        )
        .await;
        assert_eq!(method["error"]["code"], METHOD_NOT_FOUND);
        assert_eq!(method["id"], 5);
        let server = ask(
            "other",
            json!({"jsonrpc":"2.0","id":6,"method":"tools/list"}),
        )
        .await;
        assert_eq!(server["error"]["code"], METHOD_NOT_FOUND);
    }
}
