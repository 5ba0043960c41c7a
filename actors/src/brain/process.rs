//! One `claude` child process and its tasks (protocol reference §13, §16): a writer that owns
//! stdin, a reader that routes stdout frames (control traffic to [`Control`], the rest as
//! [`BrainEvent`]s), a stderr logger that keeps the last lines, and a watcher that owns the child
//! and kills it on request or when the handle is dropped.

use std::collections::VecDeque;
use std::io;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::control::Control;
use super::events::{BrainEvent, EventParser, ExitInfo};
use super::options::{PermissionMode, SpawnOptions};
use super::protocol::{initialize_request, user_line, InitializeInfo, UserMessage};
use super::{BoxFuture, Driver, Error, EventStream, Handlers, Launched, Launcher};

/// Longest stdout line we accept; longer ones are logged and skipped.
const MAX_LINE_BYTES: usize = 32 * 1024 * 1024;
/// How many stderr lines are kept for error reports.
const STDERR_TAIL_LINES: usize = 20;
/// How long the reader waits for stderr to close after stdout did.
const STDERR_DRAIN: Duration = Duration::from_secs(2);

type StderrTail = Arc<Mutex<VecDeque<String>>>;

/// A running CLI process. Dropping it kills the process; [`ClaudeProcess::shutdown`] ends it
/// gracefully.
pub struct ClaudeProcess {
    label: String,
    control: Arc<Control>,
    pid: Option<u32>,
    exit: watch::Receiver<Option<ExitInfo>>,
    kill: Option<oneshot::Sender<()>>,
    stderr: StderrTail,
    grace: Duration,
}

impl ClaudeProcess {
    /// Spawns the process and its tasks; nothing is written yet. Most callers want
    /// [`ClaudeProcess::start`].
    pub fn spawn(options: &SpawnOptions, handlers: Handlers) -> Result<(Self, EventStream), Error> {
        let mut child = Command::new(&options.binary)
            .args(options.args())
            .current_dir(&options.cwd)
            .env_remove("CLAUDECODE")
            .envs(options.env_overrides())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| Error::Spawn {
                binary: options.binary.clone(),
                source,
            })?;
        let pid = child.id();
        let label = options.label.clone();
        tracing::info!(label = %label, pid, binary = %options.binary.display(), "claude process spawned");
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            return Err(Error::Spawn {
                binary: options.binary.clone(),
                source: io::Error::other("child pipes missing"),
            });
        };
        let (line_tx, line_rx) = mpsc::unbounded_channel();
        let control = Control::new(
            label.clone(),
            line_tx,
            handlers,
            options.mcp_server.clone(),
            options.control_timeout,
        );
        let (event_tx, events) = mpsc::unbounded_channel();
        let (exit_tx, exit) = watch::channel(None);
        let (kill, kill_rx) = oneshot::channel();
        let tail: StderrTail = Arc::default();
        tokio::spawn(write_lines(label.clone(), stdin, line_rx));
        let stderr_task = tokio::spawn(log_stderr(label.clone(), stderr, Arc::clone(&tail)));
        tokio::spawn(watch_child(label.clone(), child, kill_rx, exit_tx));
        tokio::spawn(read_frames(ReaderParts {
            label: label.clone(),
            stdout,
            control: Arc::clone(&control),
            events: event_tx,
            exit: exit.clone(),
            stderr_task,
            tail: Arc::clone(&tail),
        }));
        let process = Self {
            label,
            control,
            pid,
            exit,
            kill: Some(kill),
            stderr: tail,
            grace: options.shutdown_grace,
        };
        Ok((process, events))
    }

    /// Spawns the process and completes the initialize handshake with the options' hooks and
    /// agents. A process that dies first (unknown resume id, ...) gives [`Error::StartFailed`].
    pub async fn start(
        options: &SpawnOptions,
        handlers: Handlers,
    ) -> Result<(Self, EventStream, InitializeInfo), Error> {
        let (process, events) = Self::spawn(options, handlers)?;
        match process.initialize(options).await {
            Ok(init) => {
                tracing::info!(label = %process.label, version = init.claude_code_version().unwrap_or("?"), "claude initialized");
                Ok((process, events, init))
            }
            Err(err) if err.is_process_gone() => {
                let label = process.label.clone();
                let exit = process.shutdown().await;
                Err(Error::StartFailed {
                    label,
                    code: exit.code,
                    detail: exit.stderr_tail.join("\n"),
                })
            }
            Err(err) => Err(err),
        }
    }

    /// Sends the initialize request (hooks and agents from `options`) and waits for the answer,
    /// serving the MCP handshake meanwhile.
    pub async fn initialize(&self, options: &SpawnOptions) -> Result<InitializeInfo, Error> {
        let (request, routes) = initialize_request(&options.hooks, options.agents.as_ref());
        self.control.set_hook_routes(routes);
        let raw = self.control.request(request).await?;
        Ok(InitializeInfo { raw })
    }

    /// The child's process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Sends one user message; returns its uuid.
    pub fn send_user(&self, message: &UserMessage) -> Result<String, Error> {
        let uuid = uuid::Uuid::new_v4().to_string();
        self.control.write(user_line(&uuid, message)?, "user")?;
        Ok(uuid)
    }

    /// Sends any control request and returns the CLI's answer (`get_context_usage`, ...).
    pub async fn request(&self, request: Value) -> Result<Value, Error> {
        self.control.request(request).await
    }

    /// Interrupts the running turn (its result comes with `is_error`); a no-op when idle.
    pub async fn interrupt(&self) -> Result<(), Error> {
        self.request(json!({"subtype": "interrupt"}))
            .await
            .map(drop)
    }

    /// Switches the model (`None` = the CLI's default).
    pub async fn set_model(&self, model: Option<&str>) -> Result<(), Error> {
        self.request(json!({"subtype": "set_model", "model": model}))
            .await
            .map(drop)
    }

    /// Switches the permission mode.
    pub async fn set_permission_mode(&self, mode: PermissionMode) -> Result<(), Error> {
        self.request(json!({"subtype": "set_permission_mode", "mode": mode.as_str()}))
            .await
            .map(drop)
    }

    /// Closes stdin, waits up to the grace period for the CLI to exit (it finishes a running turn
    /// first), then kills it.
    pub async fn shutdown(mut self) -> ExitInfo {
        self.control.close_stdin();
        let mut exit = self.exit.clone();
        let graceful = tokio::time::timeout(self.grace, exit.wait_for(Option::is_some))
            .await
            .is_ok();
        if !graceful {
            tracing::warn!(label = %self.label, "claude did not exit after stdin closed; killing");
            if let Some(kill) = self.kill.take() {
                let _ = kill.send(());
            }
        }
        let status = exit
            .wait_for(Option::is_some)
            .await
            .ok()
            .and_then(|info| info.clone())
            .unwrap_or_default();
        ExitInfo {
            stderr_tail: self.stderr.lock().iter().cloned().collect(),
            ..status
        }
    }
}

impl Driver for ClaudeProcess {
    fn send_user(&self, message: UserMessage) -> BoxFuture<'_, Result<String, Error>> {
        Box::pin(async move { ClaudeProcess::send_user(self, &message) })
    }

    fn interrupt(&self) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(ClaudeProcess::interrupt(self))
    }

    fn set_model(&self, model: Option<String>) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(async move { ClaudeProcess::set_model(self, model.as_deref()).await })
    }

    fn set_permission_mode(&self, mode: PermissionMode) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(ClaudeProcess::set_permission_mode(self, mode))
    }

    fn shutdown(self: Box<Self>) -> BoxFuture<'static, ExitInfo> {
        Box::pin(ClaudeProcess::shutdown(*self))
    }
}

/// Starts real `claude` processes.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClaudeLauncher;

impl Launcher for ClaudeLauncher {
    fn launch(
        &self,
        options: SpawnOptions,
        handlers: Handlers,
    ) -> BoxFuture<'_, Result<Launched, Error>> {
        Box::pin(async move {
            let (process, events, init) = ClaudeProcess::start(&options, handlers).await?;
            Ok(Launched {
                driver: Box::new(process),
                events,
                init,
            })
        })
    }
}

async fn write_lines(
    label: String,
    mut stdin: ChildStdin,
    mut lines: mpsc::UnboundedReceiver<String>,
) {
    while let Some(line) = lines.recv().await {
        let written = async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.flush().await
        };
        if let Err(err) = written.await {
            tracing::warn!(label = %label, cause = %err, "writing to claude stdin failed");
            break;
        }
    }
    tracing::debug!(label = %label, "claude stdin closed");
}

async fn log_stderr(label: String, stderr: ChildStderr, tail: StderrTail) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::info!(label = %label, line = %line, "claude stderr");
        let mut tail = tail.lock();
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}

async fn watch_child(
    label: String,
    mut child: Child,
    kill: oneshot::Receiver<()>,
    exit: watch::Sender<Option<ExitInfo>>,
) {
    let status = tokio::select! {
        status = child.wait() => status,
        // Asked to kill, or the handle was dropped: either way the process must go.
        _ = kill => {
            if let Err(err) = child.start_kill() {
                tracing::warn!(label = %label, cause = %err, "killing claude failed");
            }
            child.wait().await
        }
    };
    let info = match status {
        Ok(status) => exit_info(status),
        Err(err) => {
            tracing::warn!(label = %label, cause = %err, "waiting for claude failed");
            ExitInfo::default()
        }
    };
    tracing::info!(label = %label, code = ?info.code, signal = ?info.signal, "claude process exited");
    exit.send_replace(Some(info));
}

fn exit_info(status: ExitStatus) -> ExitInfo {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    ExitInfo {
        code: status.code(),
        signal,
        stderr_tail: Vec::new(),
    }
}

struct ReaderParts {
    label: String,
    stdout: ChildStdout,
    control: Arc<Control>,
    events: mpsc::UnboundedSender<BrainEvent>,
    exit: watch::Receiver<Option<ExitInfo>>,
    stderr_task: JoinHandle<()>,
    tail: StderrTail,
}

async fn read_frames(parts: ReaderParts) {
    let ReaderParts {
        label,
        stdout,
        control,
        events,
        mut exit,
        stderr_task,
        tail,
    } = parts;
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    let mut parser = EventParser::default();
    loop {
        match read_capped_line(&mut reader, &mut buf, MAX_LINE_BYTES).await {
            Ok(Line::Complete) => {}
            Ok(Line::TooLong) => {
                tracing::warn!(label = %label, limit = MAX_LINE_BYTES, "oversized stdout line skipped");
                continue;
            }
            Ok(Line::Eof) => break,
            Err(err) => {
                tracing::warn!(label = %label, cause = %err, "reading claude stdout failed");
                break;
            }
        }
        let text = buf.trim_ascii();
        if !text.starts_with(b"{") {
            tracing::debug!(label = %label, line = %String::from_utf8_lossy(text), "non-json stdout line skipped");
            continue;
        }
        let frame: Value = match serde_json::from_slice(text) {
            Ok(frame) => frame,
            Err(err) => {
                tracing::warn!(label = %label, cause = %err, "unparsable stdout frame skipped");
                continue;
            }
        };
        route(&control, &mut parser, &events, frame);
    }
    control.fail_all();
    let status = exit
        .wait_for(Option::is_some)
        .await
        .ok()
        .and_then(|info| info.clone())
        .unwrap_or_default();
    let _ = tokio::time::timeout(STDERR_DRAIN, stderr_task).await;
    let info = ExitInfo {
        stderr_tail: tail.lock().iter().cloned().collect(),
        ..status
    };
    let _ = events.send(BrainEvent::Exited(info));
}

fn route(
    control: &Arc<Control>,
    parser: &mut EventParser,
    events: &mpsc::UnboundedSender<BrainEvent>,
    frame: Value,
) {
    let request_id = |frame: &Value| frame["request_id"].as_str().unwrap_or("").to_owned();
    match frame.get("type").and_then(Value::as_str) {
        Some("control_response") => control.on_response(&frame["response"]),
        Some("control_request") => {
            let id = request_id(&frame);
            let request = frame.get("request").cloned().unwrap_or(Value::Null);
            control.on_request(id, request);
        }
        Some("control_cancel_request") => control.on_cancel(&request_id(&frame)),
        _ => {
            for event in parser.parse(frame) {
                // The owner may have stopped listening; the process still has to be served.
                let _ = events.send(event);
            }
        }
    }
}

/// What one call of [`read_capped_line`] found.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A line (without its `\n`) is in the buffer.
    Complete,
    /// A line longer than the cap was read and thrown away.
    TooLong,
    /// End of input.
    Eof,
}

/// Reads up to the next `\n` into `buf`, never holding more than `cap` bytes of one line.
async fn read_capped_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut seen_any = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (seen_any, too_long) {
                (false, _) => Line::Eof,
                (true, true) => Line::TooLong,
                (true, false) => Line::Complete,
            });
        }
        seen_any = true;
        let newline = available.iter().position(|&b| b == b'\n');
        let chunk = &available[..newline.unwrap_or(available.len())];
        if !too_long && buf.len() + chunk.len() > cap {
            too_long = true;
            buf.clear();
        }
        if !too_long {
            buf.extend_from_slice(chunk);
        }
        let used = newline.map_or(available.len(), |at| at + 1);
        reader.consume(used);
        if newline.is_some() {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], cap: usize) -> Vec<(Line, Vec<u8>)> {
        let mut reader = BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let line = read_capped_line(&mut reader, &mut buf, cap).await.unwrap();
            if line == Line::Eof {
                return out;
            }
            out.push((line, buf.clone()));
        }
    }

    #[tokio::test]
    async fn lines_split_only_on_newline_across_buffer_boundaries() {
        let got = lines(b"{\"a\":1}\n{\"b\":22}\nlast", 100).await;
        assert_eq!(
            got,
            vec![
                (Line::Complete, b"{\"a\":1}".to_vec()),
                (Line::Complete, b"{\"b\":22}".to_vec()),
                (Line::Complete, b"last".to_vec()),
            ]
        );
    }

    #[tokio::test]
    async fn oversized_line_is_skipped_and_the_next_one_read() {
        let got = lines(b"0123456789abcdef\nok\n", 8).await;
        assert_eq!(
            got,
            vec![
                (Line::TooLong, Vec::new()),
                (Line::Complete, b"ok".to_vec())
            ]
        );
    }

    #[test]
    fn control_frames_never_reach_the_owner() {
        let (tx, _rx) = mpsc::unbounded_channel::<String>();
        let handlers = Handlers {
            host: Arc::new(super::super::host::DenyAll),
            tools: Arc::new(super::super::mcp::NoTools),
        };
        let control = Control::new(
            "t".into(),
            tx,
            handlers,
            "discord".into(),
            Duration::from_secs(1),
        );
        let (events_tx, mut events_rx) = mpsc::unbounded_channel();
        let mut parser = EventParser::default();
        let frame =
            json!({"type":"control_response","response":{"subtype":"success","request_id":"x"}});
        route(&control, &mut parser, &events_tx, frame);
        route(
            &control,
            &mut parser,
            &events_tx,
            json!({"type":"control_cancel_request","request_id":"y"}),
        );
        assert!(events_rx.try_recv().is_err());
        route(
            &control,
            &mut parser,
            &events_tx,
            json!({"type":"system","subtype":"init","session_id":"s"}),
        );
        assert!(matches!(events_rx.try_recv(), Ok(BrainEvent::Init { .. })));
    }
}
