//! A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for running the real `claude`
//! CLI offline (protocol reference §3.5).
//!
//! It speaks just enough HTTP/1.1 (Content-Length or chunked request bodies, keep-alive) to serve
//! `POST /v1/messages` as an SSE stream, `POST /v1/messages/count_tokens`, and `200 {}` for
//! anything else. A test gives it a script: a function from the recorded request to a [`Reply`].
//! Only the agent's own calls (requests that offer tools) go to the script; side calls the CLI
//! makes on its own (titles, summaries of nothing) get a short default text. Every request is
//! recorded so tests can assert on `system`, `messages` and `tools`.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// What the mock model answers to one agent request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Stream this text in a few chunks.
    Text(String),
    /// Stream these chunks with a pause before each (for interrupt tests).
    SlowText {
        /// The pieces of the answer.
        chunks: Vec<String>,
        /// The pause before each piece.
        delay: Duration,
    },
    /// Call a tool.
    ToolUse {
        /// Full tool name as the model sees it (`mcp__discord__echo`, `Bash`).
        name: String,
        /// Its arguments.
        input: Value,
    },
    /// Fail with HTTP 400 "prompt is too long" (provokes compaction).
    PromptTooLong,
}

/// One recorded HTTP request.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    /// Request path including the query (`/v1/messages?beta=true`).
    pub path: String,
    /// The JSON body (`Null` when there was none or it was not JSON).
    pub body: Value,
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

type Script = dyn Fn(&ModelRequest) -> Reply + Send + Sync;

struct State {
    script: Box<Script>,
    requests: Mutex<Vec<ModelRequest>>,
    next_id: AtomicU64,
}

/// The running mock; stops when dropped.
pub struct MockModelApi {
    addr: SocketAddr,
    state: Arc<State>,
    server: JoinHandle<()>,
}

impl Drop for MockModelApi {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl MockModelApi {
    /// Starts the mock on an ephemeral port with `script` deciding each agent reply.
    pub async fn start(
        script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    ) -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State {
            script: Box::new(script),
            requests: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(1),
        });
        let server = tokio::spawn(serve(listener, Arc::clone(&state)));
        Ok(Self {
            addr,
            state,
            server,
        })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn all_requests(&self) -> Vec<ModelRequest> {
        self.state.requests.lock().clone()
    }

    /// The agent's model calls so far (the ones the script answered).
    pub fn agent_requests(&self) -> Vec<ModelRequest> {
        self.all_requests()
            .into_iter()
            .filter(ModelRequest::is_agent_call)
            .collect()
    }

    /// The environment that points a `claude` process at this mock and isolates it in `home`.
    pub fn cli_env(&self, home: &std::path::Path) -> BTreeMap<String, String> {
        let no_proxy = "127.0.0.1,localhost".to_owned();
        [
            ("ANTHROPIC_BASE_URL", self.base_url()),
            ("ANTHROPIC_API_KEY", "sk-test".to_owned()),
            ("DISABLE_TELEMETRY", "1".to_owned()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
            ("DISABLE_AUTOUPDATER", "1".to_owned()),
            ("ENABLE_TOOL_SEARCH", "false".to_owned()),
            ("HOME", home.display().to_string()),
            ("NO_PROXY", no_proxy.clone()),
            ("no_proxy", no_proxy),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }
}

async fn serve(listener: TcpListener, state: Arc<State>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            // A connection error only ends that connection; the CLI retries on a fresh one.
            let _ = serve_connection(stream, state).await;
        });
    }
}

async fn serve_connection(stream: TcpStream, state: Arc<State>) -> io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    loop {
        let Some((path, headers)) = read_head(&mut reader).await? else {
            return Ok(());
        };
        let body = read_body(&mut reader, &headers).await?;
        let request = ModelRequest {
            path,
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        };
        state.requests.lock().push(request.clone());
        respond(&mut write, &state, &request).await?;
    }
}

/// Reads the request line and headers; `None` at a clean end of the connection.
async fn read_head<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
) -> io::Result<Option<(String, BTreeMap<String, String>)>> {
    let mut line = String::new();
    if reader.read_line(&mut line).await? == 0 {
        return Ok(None);
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let mut headers = BTreeMap::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        let header = line.trim_end();
        if header.is_empty() {
            return Ok(Some((path, headers)));
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
}

async fn read_body<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
    headers: &BTreeMap<String, String>,
) -> io::Result<Vec<u8>> {
    let chunked = headers
        .get("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if !chunked {
        let length = headers
            .get("content-length")
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body).await?;
        return Ok(body);
    }
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line).await?;
        let size_text = line.trim().split(';').next().unwrap_or("0");
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        if size == 0 {
            // Trailers (usually none) end with an empty line.
            loop {
                line.clear();
                if reader.read_line(&mut line).await? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).await?;
        line.clear();
        reader.read_line(&mut line).await?;
    }
}

async fn respond<W: AsyncWriteExt + Unpin>(
    write: &mut W,
    state: &State,
    request: &ModelRequest,
) -> io::Result<()> {
    if request.path.contains("count_tokens") {
        return send_json(write, 200, &json!({"input_tokens": 1200})).await;
    }
    if !request.is_message_call() {
        return send_json(write, 200, &json!({})).await;
    }
    let reply = if request.is_agent_call() {
        (state.script)(request)
    } else {
        Reply::Text("ok".to_owned())
    };
    let model = request.body["model"]
        .as_str()
        .unwrap_or("claude-sonnet-4-5");
    let id = format!("msg_mock_{}", state.next_id.fetch_add(1, Ordering::Relaxed));
    if let Reply::PromptTooLong = reply {
        let error = json!({"type": "error", "error": {"type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum"}});
        return send_json(write, 400, &error).await;
    }
    if request.body["stream"] != json!(true) {
        return send_json(write, 200, &whole_message(&id, model, &reply)).await;
    }
    write
        .write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
              transfer-encoding: chunked\r\n\r\n",
        )
        .await?;
    for (delay, event) in sse_events(&id, model, &reply) {
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let kind = event["type"].as_str().unwrap_or("message");
        let frame = format!("event: {kind}\ndata: {event}\n\n");
        write
            .write_all(format!("{:x}\r\n{frame}\r\n", frame.len()).as_bytes())
            .await?;
        write.flush().await?;
    }
    write.write_all(b"0\r\n\r\n").await?;
    write.flush().await
}

async fn send_json<W: AsyncWriteExt + Unpin>(
    write: &mut W,
    status: u16,
    body: &Value,
) -> io::Result<()> {
    let text = body.to_string();
    let reason = if status == 200 { "OK" } else { "Bad Request" };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        text.len()
    );
    write.write_all(head.as_bytes()).await?;
    write.write_all(text.as_bytes()).await?;
    write.flush().await
}

fn usage() -> Value {
    json!({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0})
}

fn whole_message(id: &str, model: &str, reply: &Reply) -> Value {
    let (content, stop) = match reply {
        Reply::ToolUse { name, input } => (
            json!([{"type": "tool_use", "id": format!("toolu_{id}"), "name": name, "input": input}]),
            "tool_use",
        ),
        Reply::Text(text) => (json!([{"type": "text", "text": text}]), "end_turn"),
        Reply::SlowText { chunks, .. } => (
            json!([{"type": "text", "text": chunks.concat()}]),
            "end_turn",
        ),
        Reply::PromptTooLong => (json!([]), "end_turn"),
    };
    json!({"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": stop, "stop_sequence": null, "usage": usage()})
}

/// The SSE events of a streamed reply, each with the pause to take before sending it.
fn sse_events(id: &str, model: &str, reply: &Reply) -> Vec<(Duration, Value)> {
    let now = Duration::ZERO;
    let mut events = vec![(
        now,
        json!({"type": "message_start", "message": {"id": id, "type": "message",
            "role": "assistant", "model": model, "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": usage()}}),
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
        Reply::PromptTooLong => (Vec::new(), now, "end_turn"),
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
    events.push((now, json!({"type": "content_block_stop", "index": 0})));
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
