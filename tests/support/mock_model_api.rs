//! A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for running the real `claude`
//! CLI offline (protocol reference §3.5).
//!
//! It speaks just enough HTTP/1.1 (Content-Length or chunked request bodies, keep-alive) to serve
//! `POST /v1/messages` as an SSE stream, `POST /v1/messages/count_tokens`, and `200 {}` for
//! anything else. A test gives it a script: a function from the recorded request to a [`Reply`].
//! Only the agent's own calls (requests that offer tools) go to the script; side calls the CLI
//! makes on its own (titles, summaries of nothing) get a short default text, or what a side
//! script set with [`MockModelApi::script_side_calls`] answers. Every request is
//! recorded so tests can assert on `system`, `messages` and `tools`.

mod http;
mod request;
mod sse;

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{json, Value};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

pub use request::ModelRequest;

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
    /// Write some text, then call a tool, in one message (two content blocks).
    TextAndTool {
        /// The text block.
        text: String,
        /// Full tool name.
        name: String,
        /// Its arguments.
        input: Value,
    },
    /// Fail with HTTP 400 "prompt is too long" (provokes compaction).
    PromptTooLong,
    /// Fail with this HTTP status and Messages API error (`authentication_error`,
    /// `billing_error`, `rate_limit_error`, ...).
    ApiError {
        /// The HTTP status.
        status: u16,
        /// The error's `type`.
        kind: String,
        /// The error's `message`.
        message: String,
    },
}

type Script = dyn Fn(&ModelRequest) -> Reply + Send + Sync;

struct State {
    script: Box<Script>,
    side_script: Mutex<Option<Arc<Script>>>,
    requests: Mutex<Vec<ModelRequest>>,
    /// Woken at every recorded request.
    arrived: Notify,
    next_id: AtomicU64,
    /// The `input_tokens` every answer reports (the context the call read).
    input_tokens: AtomicU64,
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
            side_script: Mutex::new(None),
            requests: Mutex::new(Vec::new()),
            arrived: Notify::new(),
            next_id: AtomicU64::new(1),
            input_tokens: AtomicU64::new(10),
        });
        let server = tokio::spawn(serve(listener, Arc::clone(&state)));
        Ok(Self {
            addr,
            state,
            server,
        })
    }

    /// Answers side calls (model calls that offer no tools, such as a tool-less `claude -p`)
    /// with `script` from now on, instead of the default text.
    pub fn script_side_calls(
        &self,
        script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    ) {
        *self.state.side_script.lock() = Some(Arc::new(script));
    }

    /// From now on every answer reports `tokens` input tokens in its usage (a large context).
    pub fn report_input_tokens(&self, tokens: u64) {
        self.state.input_tokens.store(tokens, Ordering::Relaxed);
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

    /// Waits (up to `limit`) for the first agent call that satisfies `wanted`, woken by each
    /// arrival. Unlike polling [`Self::agent_requests`], it copies nothing but the match and
    /// looks at each request once, so a benchmark waiting on it takes no CPU from what it
    /// measures.
    pub async fn first_agent_request(
        &self,
        wanted: impl Fn(&ModelRequest) -> bool,
        limit: Duration,
    ) -> Option<ModelRequest> {
        let deadline = tokio::time::Instant::now() + limit;
        let mut seen = 0;
        loop {
            let arrival = self.state.arrived.notified();
            tokio::pin!(arrival);
            // Registered before looking, so a request recorded in between still wakes us.
            arrival.as_mut().enable();
            {
                let requests = self.state.requests.lock();
                let found = requests[seen..]
                    .iter()
                    .find(|r| r.is_agent_call() && wanted(r));
                if let Some(found) = found {
                    return Some(found.clone());
                }
                seen = requests.len();
            }
            tokio::time::timeout_at(deadline, arrival).await.ok()?;
        }
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
            // The bot's docs MCP server would be docs.ollim.ai: tests never reach the internet.
            ("OLLIM_DOCS_MCP_URL", "off".to_owned()),
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
        let Some((path, headers)) = http::read_head(&mut reader).await? else {
            return Ok(());
        };
        let body = http::read_body(&mut reader, &headers).await?;
        let request = ModelRequest {
            path,
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            received_at: std::time::Instant::now(),
        };
        state.requests.lock().push(request.clone());
        state.arrived.notify_waiters();
        respond(&mut write, &state, &request).await?;
    }
}

async fn respond<W: AsyncWriteExt + Unpin>(
    write: &mut W,
    state: &State,
    request: &ModelRequest,
) -> io::Result<()> {
    if request.path.contains("count_tokens") {
        return http::send_json(write, 200, &json!({"input_tokens": 1200})).await;
    }
    if !request.is_message_call() {
        return http::send_json(write, 200, &json!({})).await;
    }
    let reply = if request.is_agent_call() {
        (state.script)(request)
    } else {
        let side = state.side_script.lock().clone();
        match side {
            Some(side) => side(request),
            None => Reply::Text("ok".to_owned()),
        }
    };
    let model = request.body["model"]
        .as_str()
        .unwrap_or("claude-sonnet-4-5");
    let id = format!("msg_mock_{}", state.next_id.fetch_add(1, Ordering::Relaxed));
    let input_tokens = state.input_tokens.load(Ordering::Relaxed);
    if let Reply::PromptTooLong = reply {
        let error = json!({"type": "error", "error": {"type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum"}});
        return http::send_json(write, 400, &error).await;
    }
    if let Reply::ApiError {
        status,
        kind,
        message,
    } = &reply
    {
        let error = json!({"type": "error", "error": {"type": kind, "message": message}});
        return http::send_json(write, *status, &error).await;
    }
    if request.body["stream"] != json!(true) {
        return http::send_json(
            write,
            200,
            &sse::whole_message(&id, model, &reply, input_tokens),
        )
        .await;
    }
    write
        .write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
              transfer-encoding: chunked\r\n\r\n",
        )
        .await?;
    for (delay, event) in sse::sse_events(&id, model, &reply, input_tokens) {
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
