//! One `claude` child process and its tasks (protocol reference §13, §16): a writer that owns
//! stdin, the stdout reader ([`super::reader`]), a stderr logger that keeps the last lines, and a
//! watcher that owns the child and kills it on request or when the handle is dropped.

use std::collections::VecDeque;
use std::io;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, watch};

use super::control::Control;
use super::events::ExitInfo;
use super::options::{PermissionMode, SpawnOptions};
use super::protocol::{initialize_request, user_line, InitializeInfo, UserMessage};
use super::reader::{read_frames, ReaderParts};
use super::{BoxFuture, Driver, Error, EventStream, Handlers, Launched, Launcher};

/// How many stderr lines are kept for error reports.
const STDERR_TAIL_LINES: usize = 20;

/// The last lines a process wrote to stderr, shared by its logger, reader and handle.
pub type StderrTail = Arc<Mutex<VecDeque<String>>>;

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
        let sandbox_settings = match &options.sandbox {
            Some(sandboxing) => crate::claude::sandbox::settings_for(
                sandboxing,
                &crate::claude::sandbox::support(),
            )?,
            None => None,
        };
        let mut command = Command::new(&options.binary);
        crate::base::cpu_priority::apply(command.as_std_mut(), options.priority);
        crate::base::child_env::apply(command.as_std_mut(), &options.env_overrides());
        let mut child = command
            .args(options.args())
            .args(
                sandbox_settings
                    .map(|s| ["--settings".to_owned(), s.to_string()])
                    .into_iter()
                    .flatten(),
            )
            .current_dir(&options.cwd)
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
                // 2.1.332 no longer names its version here; the start log has it from
                // `claude --version` (see `releases`).
                match init.claude_code_version() {
                    Some(version) => {
                        tracing::info!(label = %process.label, version, "claude initialized")
                    }
                    None => tracing::info!(label = %process.label, "claude initialized"),
                }
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
