//! The bot's side: accept connections on `state/bot.sock`, answer each request.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use actix::Addr;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

use super::{Request, Response, MAX_REQUEST_BYTES};
use crate::jobs::JobId;
use crate::scheduler::{RunNow, RunNowOutcome, Scheduler};

/// How long a connection may take to send its request.
const REQUEST_WAIT: Duration = Duration::from_secs(5);

/// The listening socket; dropping it stops listening and removes the socket file.
#[derive(Debug)]
pub struct ControlServer {
    path: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Listens on `path` (replacing a socket file a crashed bot left: the caller holds the
/// instance lock) and answers requests with the scheduler's help. Must run inside a Tokio
/// runtime.
pub fn serve(path: &Path, scheduler: Addr<Scheduler>) -> std::io::Result<ControlServer> {
    if path.as_os_str().len() >= 108 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("socket path too long: {}", path.display()),
        ));
    }
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let listener = UnixListener::bind(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    tracing::info!(socket = %path.display(), "control socket listening");
    let task = tokio::spawn(async move {
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    tokio::spawn(answer(stream, scheduler.clone()));
                }
                Err(e) => {
                    tracing::warn!(cause = %e, "control socket accept failed");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }
    });
    Ok(ControlServer {
        path: path.to_path_buf(),
        task,
    })
}

async fn answer(stream: UnixStream, scheduler: Addr<Scheduler>) {
    let (read, mut write) = stream.into_split();
    let mut line = Vec::new();
    let mut reader = BufReader::new(read.take(MAX_REQUEST_BYTES as u64));
    let read = tokio::time::timeout(REQUEST_WAIT, reader.read_until(b'\n', &mut line)).await;
    let response = match read {
        Ok(Ok(_)) => match serde_json::from_slice::<Request>(&line) {
            Ok(request) => handle(request, &scheduler).await,
            Err(e) => refuse(format!("not a request this bot knows: {e}")),
        },
        Ok(Err(e)) => refuse(format!("reading the request: {e}")),
        Err(_) => refuse("no request came".to_owned()),
    };
    let mut bytes = serde_json::to_vec(&response).unwrap_or_default();
    bytes.push(b'\n');
    if let Err(e) = write.write_all(&bytes).await {
        tracing::debug!(cause = %e, "the command left before its answer");
    }
}

fn refuse(message: String) -> Response {
    Response { ok: false, message }
}

async fn handle(request: Request, scheduler: &Addr<Scheduler>) -> Response {
    match request {
        Request::RunRoutine(id) => {
            let id = match JobId::parse(&id) {
                Ok(id) => id,
                Err(e) => return refuse(e.to_string()),
            };
            tracing::info!(routine = %id, "run now asked over the control socket");
            match scheduler.send(RunNow { id: id.clone() }).await {
                Ok(outcome @ RunNowOutcome::Ran { .. }) => {
                    let ok = !matches!(
                        outcome,
                        RunNowOutcome::Ran {
                            outcome: crate::job_runner::RunOutcome::Failed(_),
                            ..
                        }
                    );
                    Response {
                        ok,
                        message: outcome.describe(),
                    }
                }
                Ok(RunNowOutcome::NotFound) => refuse(format!("routine {id} not found")),
                Ok(other) => refuse(other.describe()),
                Err(e) => refuse(format!("the scheduler has stopped: {e}")),
            }
        }
    }
}
