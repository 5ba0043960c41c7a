//! The bot's side: accept connections on `state/bot.sock`, answer each request.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use actix::{Addr, Recipient};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::{UnixListener, UnixStream};

use super::chat_tap::{Listen, SurfaceTap, Sync};
use super::{ChatLine, DashboardLink, Request, Response, MAX_REQUEST_BYTES};
use crate::conversation::main_session::{IsBusy, MainSession, Say};
use crate::google::account::AskDelete;
use crate::google::confirm::BACKGROUND_REFUSAL;
use crate::google::GoogleAccount;
use crate::jobs::JobId;
use crate::scheduling::scheduler::{RunNow, RunNowOutcome, Scheduler};

/// How often a chat turn asks the conversation whether its answer is over.
const TURN_POLL: Duration = Duration::from_millis(100);

/// Where `ollim-bot chat` lines go: the conversation, and the tap its events pass through.
#[derive(Clone)]
pub struct ChatRoute {
    /// The conversation.
    pub main: Addr<MainSession>,
    /// The tap in front of the surface.
    pub tap: Addr<SurfaceTap>,
}

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
/// instance lock) and answers requests with the scheduler's help (chat lines through `chat`,
/// delete questions through `google`, dashboard links through `dashboard`, when given). Must
/// run inside a Tokio runtime.
pub fn serve(
    path: &Path,
    scheduler: Addr<Scheduler>,
    chat: Option<ChatRoute>,
    google: Option<Addr<GoogleAccount>>,
    dashboard: Option<Recipient<DashboardLink>>,
) -> std::io::Result<ControlServer> {
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
                    let peers = Peers {
                        scheduler: scheduler.clone(),
                        chat: chat.clone(),
                        google: google.clone(),
                        dashboard: dashboard.clone(),
                    };
                    tokio::spawn(answer(stream, peers));
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

/// Who answers what.
struct Peers {
    scheduler: Addr<Scheduler>,
    chat: Option<ChatRoute>,
    google: Option<Addr<GoogleAccount>>,
    dashboard: Option<Recipient<DashboardLink>>,
}

async fn answer(stream: UnixStream, peers: Peers) {
    let Peers {
        scheduler,
        chat,
        google,
        dashboard,
    } = peers;
    let (read, mut write) = stream.into_split();
    let mut line = Vec::new();
    let mut reader = BufReader::new(read.take(MAX_REQUEST_BYTES as u64));
    let read = tokio::time::timeout(REQUEST_WAIT, reader.read_until(b'\n', &mut line)).await;
    let response = match read {
        Ok(Ok(_)) => match serde_json::from_slice::<Request>(&line) {
            Ok(Request::Chat(text)) => {
                let done = match chat {
                    Some(route) => chat_turn(text, &route, &mut write).await,
                    None => refuse("this bot does not take chat lines".to_owned()),
                };
                send_line(&mut write, &ChatLine::Done(done)).await;
                return;
            }
            Ok(Request::AskDelete { target, session }) => {
                ask_delete(target, &session, google.as_ref()).await
            }
            Ok(Request::DashboardLink) => dashboard_link(dashboard.as_ref()).await,
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

/// Writes `value` as one JSON line; false when the command has gone away.
async fn send_line(write: &mut OwnedWriteHalf, value: &impl serde::Serialize) -> bool {
    let mut bytes = match serde_json::to_vec(value) {
        Ok(b) => b,
        Err(e) => {
            tracing::error!(cause = %e, "a control socket answer did not serialize");
            return true;
        }
    };
    bytes.push(b'\n');
    write.write_all(&bytes).await.is_ok()
}

/// Says `text` in the conversation and streams what it shows until the conversation is idle
/// again: the whole answer, and whatever else the turn brought (a queued job's turn before it).
async fn chat_turn(text: String, route: &ChatRoute, write: &mut OwnedWriteHalf) -> Response {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    if route.tap.send(Listen(tx)).await.is_err() {
        return refuse("the conversation's output has stopped".to_owned());
    }
    tracing::info!("a chat line arrived over the control socket");
    // Answered once the line is in the conversation (queued or sent): a busy check after it
    // sees this turn.
    if route
        .main
        .send(Say {
            text,
            images: Vec::new(),
        })
        .await
        .is_err()
    {
        return refuse("the conversation has stopped".to_owned());
    }
    loop {
        tokio::select! {
            ev = rx.recv() => match ev {
                Some(ev) => {
                    if !send_line(write, &ChatLine::Event(ev)).await {
                        // The chat went away; its turn goes on in the conversation.
                        return refuse("the chat left".to_owned());
                    }
                }
                None => return refuse("the conversation's output has stopped".to_owned()),
            },
            () = tokio::time::sleep(TURN_POLL) => match route.main.send(IsBusy).await {
                Ok(true) => {}
                Ok(false) => break,
                Err(_) => return refuse("the conversation has stopped".to_owned()),
            },
        }
    }
    // Events sent before the conversation went idle are in the tap's mailbox ahead of this.
    let _ = route.tap.send(Sync).await;
    while let Ok(ev) = rx.try_recv() {
        if !send_line(write, &ChatLine::Event(ev)).await {
            break;
        }
    }
    Response {
        ok: true,
        message: String::new(),
    }
}

/// Asks the owner whether to delete `target`; a background session is refused.
async fn ask_delete(
    target: crate::google::confirm::DeleteTarget,
    session: &str,
    google: Option<&Addr<GoogleAccount>>,
) -> Response {
    if session == crate::base::child_env::AgentSession::Background.as_str() {
        tracing::warn!(?target, "a background job tried to delete; refused");
        return refuse(BACKGROUND_REFUSAL.to_owned());
    }
    let Some(google) = google else {
        return refuse("google is not available in this run".to_owned());
    };
    match google.send(AskDelete(target)).await {
        Ok(Ok(label)) => Response {
            ok: true,
            message: format!(
                "asked the owner to confirm: Delete {label}? — nothing is deleted unless they \
                 click Delete (you will hear the answer as a background update)"
            ),
        },
        Ok(Err(why)) => refuse(why),
        Err(e) => refuse(format!("the google account has stopped: {e}")),
    }
}

/// A one-time login link from the dashboard, or why there is none.
async fn dashboard_link(dashboard: Option<&Recipient<DashboardLink>>) -> Response {
    let Some(dashboard) = dashboard else {
        return refuse(
            "the dashboard is not running in this bot: it is off (DASHBOARD_PORT=off) or could \
             not start (the bot's log says why)"
                .to_owned(),
        );
    };
    match dashboard.send(DashboardLink).await {
        Ok(Ok(link)) => Response {
            ok: true,
            message: link,
        },
        Ok(Err(why)) => refuse(format!("no login link: {why}")),
        Err(e) => refuse(format!("the dashboard has stopped: {e}")),
    }
}

fn refuse(message: String) -> Response {
    Response { ok: false, message }
}

async fn handle(request: Request, scheduler: &Addr<Scheduler>) -> Response {
    match request {
        Request::Chat(_) | Request::AskDelete { .. } | Request::DashboardLink => {
            refuse("this request goes through its own route".to_owned())
        }
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
                            outcome: crate::scheduling::job_runner::RunOutcome::Failed(_),
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
