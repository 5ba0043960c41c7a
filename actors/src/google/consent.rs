//! One `/google-auth` flow (SPEC §15): a one-shot listener on `127.0.0.1` (ephemeral port) is
//! the redirect target of the consent URL; whichever comes first finishes it — the browser's
//! redirect, or the redirect URL pasted into the DM or the console (for a browser on another
//! device, where `127.0.0.1` is not this machine) — within five minutes. A redirect whose
//! `state` is not this flow's is refused and the flow keeps waiting. The code is exchanged
//! (with the PKCE verifier) and the grant written to `token.json`.

use std::time::Duration;

use chrono::Utc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use super::client_file::ClientFile;
use super::oauth::{self, ConsentRequest};
use super::token_file::Token;
use super::Paths;
use crate::base::state_file;

/// How long a flow waits for the redirect.
pub const TIMEOUT: Duration = Duration::from_secs(5 * 60);
/// How long one browser connection may take to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// The most of a request read (the request line is all that matters).
const REQUEST_LIMIT: usize = 16 * 1024;

const DONE_PAGE: &str =
    "<html><body><p>Auth complete. You may close this window.</p></body></html>";
const REFUSED_PAGE: &str = "<html><body><p>This sign-in link is not the one ollim-bot is waiting for. Run /google-auth again.</p></body></html>";

/// What Google sent back on the redirect.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redirect {
    /// The authorisation code.
    pub code: Option<String>,
    /// The state it carries.
    pub state: Option<String>,
    /// `access_denied` and friends.
    pub error: Option<String>,
}

impl Redirect {
    /// Reads a query string (`code=…&state=…`).
    pub fn from_query(query: &str) -> Self {
        let mut r = Redirect::default();
        for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
            match k.as_ref() {
                "code" => r.code = Some(v.into_owned()),
                "state" => r.state = Some(v.into_owned()),
                "error" => r.error = Some(v.into_owned()),
                _ => {}
            }
        }
        r
    }

    /// Reads a pasted redirect URL; `None` when the text holds none.
    pub fn from_pasted(text: &str) -> Option<Self> {
        let url = url::Url::parse(find_redirect(text)?).ok()?;
        let r = Self::from_query(url.query().unwrap_or(""));
        (r.code.is_some() || r.error.is_some()).then_some(r)
    }

    /// Whether it answers the flow that sent `state`.
    pub fn answers(&self, state: &str) -> bool {
        self.state.as_deref() == Some(state)
    }
}

/// The loopback redirect URL in a pasted line (`<…>` around it allowed), if there is one.
fn find_redirect(text: &str) -> Option<&str> {
    text.split_whitespace()
        .map(|w| w.trim_start_matches('<').trim_end_matches('>'))
        .find(|w| {
            (w.starts_with("http://127.0.0.1:") || w.starts_with("http://localhost:"))
                && (w.contains("code=") || w.contains("error="))
        })
}

/// Whether a line typed or DMed carries a loopback redirect URL: it holds a one-time code, so
/// the line goes to the Google account and never to the agent.
pub fn looks_like_redirect(text: &str) -> bool {
    find_redirect(text).is_some()
}

/// Why a flow ended without a grant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// Nothing came back in time.
    #[error("no answer within 5 minutes — use /google-auth to try again")]
    TimedOut,
    /// The user said no on the consent page (or Google sent another error).
    #[error("google answered {0}")]
    Denied(String),
    /// The code exchange failed.
    #[error("{0}")]
    Exchange(oauth::Error),
    /// The grant could not be saved.
    #[error("saving the token: {0}")]
    Save(String),
    /// The flow was abandoned (a newer `/google-auth`, or the bot stopping).
    #[error("cancelled")]
    Cancelled,
}

/// A started flow: the URL to show, the `state` to check pastes against, where pastes go.
pub struct Started {
    /// The consent URL.
    pub url: String,
    /// This flow's `state`.
    pub state: String,
    /// Pasted redirects (already checked against `state`).
    pub paste: mpsc::UnboundedSender<Redirect>,
}

/// The waiting half of a flow.
pub struct Waiting {
    listener: std::net::TcpListener,
    request: ConsentRequest,
    paste: mpsc::UnboundedReceiver<Redirect>,
    client: ClientFile,
}

/// Opens the listener and builds the consent URL.
pub fn start(client: ClientFile) -> Result<(Started, Waiting), String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| format!("could not open a port on 127.0.0.1: {e}"))?;
    let port = listener
        .local_addr()
        .map_err(|e| format!("could not read the listener's port: {e}"))?
        .port();
    let request = oauth::consent_request(&client, &format!("http://127.0.0.1:{port}"))
        .map_err(|e| e.to_string())?;
    let (tx, rx) = mpsc::unbounded_channel();
    let started = Started {
        url: request.url.clone(),
        state: request.state.clone(),
        paste: tx,
    };
    Ok((
        started,
        Waiting {
            listener,
            request,
            paste: rx,
            client,
        },
    ))
}

impl Waiting {
    /// Waits (up to `timeout`) for the code, exchanges it, and writes `token.json`.
    pub async fn finish(
        mut self,
        http: reqwest::Client,
        paths: Paths,
        timeout: Duration,
    ) -> Result<(), Failure> {
        let listener = TcpListener::from_std(self.listener)
            .map_err(|e| Failure::Save(format!("the listener: {e}")))?;
        let state = self.request.state.clone();
        let redirect = tokio::time::timeout(timeout, async {
            loop {
                tokio::select! {
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => {
                            if let Some(r) = answer_browser(stream, &state).await {
                                return Ok(r);
                            }
                        }
                        Err(e) => tracing::warn!(cause = %e, "google auth listener: accept failed"),
                    },
                    pasted = self.paste.recv() => match pasted {
                        Some(r) => return Ok(r),
                        None => return Err(Failure::Cancelled),
                    },
                }
            }
        })
        .await
        .map_err(|_| Failure::TimedOut)??;
        drop(listener);
        if let Some(error) = redirect.error {
            return Err(Failure::Denied(error));
        }
        let code = redirect.code.unwrap_or_default();
        let token = oauth::exchange_code(&http, &self.client, self.request, &code, Utc::now())
            .await
            .map_err(Failure::Exchange)?;
        save(&token, &paths).map_err(Failure::Save)
    }
}

/// Writes the new grant, keeping an unreadable old `token.json` aside, and clears the revoked
/// marker (this connection supersedes it).
fn save(token: &Token, paths: &Paths) -> Result<(), String> {
    if matches!(
        Token::read(&paths.token),
        Err(super::token_file::Error::Invalid { .. })
    ) {
        match state_file::move_aside(&paths.token) {
            Ok(aside) => {
                tracing::warn!(moved_to = %aside.display(), "kept the unreadable token.json aside")
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    token.write(&paths.token).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&paths.revoked_marker);
    tracing::info!(file = %paths.token.display(), "google connected");
    Ok(())
}

/// Serves one browser request: the redirect for `state` is answered and returned; anything
/// else (a favicon, a foreign state) gets its page and `None`.
async fn answer_browser(mut stream: TcpStream, state: &str) -> Option<Redirect> {
    let head = match tokio::time::timeout(REQUEST_TIMEOUT, read_head(&mut stream)).await {
        Ok(Ok(head)) => head,
        _ => return None,
    };
    let target = head.split_whitespace().nth(1).unwrap_or("/");
    let query = target.split_once('?').map(|(_, q)| q).unwrap_or("");
    let redirect = Redirect::from_query(query);
    let (status, page, accepted) = if redirect.code.is_none() && redirect.error.is_none() {
        (
            "404 Not Found",
            "<html><body>not found</body></html>",
            false,
        )
    } else if !redirect.answers(state) {
        tracing::warn!("google auth: refused a redirect whose state is not this flow's");
        ("400 Bad Request", REFUSED_PAGE, false)
    } else {
        ("200 OK", DONE_PAGE, true)
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
        page.len()
    );
    if let Err(e) = stream.write_all(response.as_bytes()).await {
        tracing::debug!(cause = %e, "google auth: could not answer the browser");
    }
    let _ = stream.shutdown().await;
    accepted.then_some(redirect)
}

/// The request line and headers (up to the blank line), as text.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < REQUEST_LIMIT {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_redirects_are_recognised_and_others_are_not() {
        let r =
            Redirect::from_pasted("http://127.0.0.1:5555/?state=abc&code=4%2F0Ad&scope=x").unwrap();
        assert_eq!(r.code.as_deref(), Some("4/0Ad"));
        assert!(r.answers("abc") && !r.answers("abd"));
        let denied =
            Redirect::from_pasted("http://localhost:1/?error=access_denied&state=abc").unwrap();
        assert_eq!(denied.error.as_deref(), Some("access_denied"));
        let wrapped =
            Redirect::from_pasted("here you go: <http://127.0.0.1:9/?state=s&code=c>").unwrap();
        assert_eq!(wrapped.code.as_deref(), Some("c"));
        assert!(looks_like_redirect("here: http://127.0.0.1:9/?code=c"));
        for not in [
            "http://127.0.0.1:5555/",
            "https://example.com/?code=1",
            "what does code= mean",
        ] {
            assert!(Redirect::from_pasted(not).is_none(), "{not}");
        }
    }

    fn client() -> ClientFile {
        ClientFile {
            client_id: "cid".into(),
            client_secret: "secret".into(),
            auth_uri: "http://127.0.0.1:1/auth".into(),
            // Nothing listens on port 1: the exchange fails as a network error.
            token_uri: "http://127.0.0.1:1/token".into(),
        }
    }

    fn paths(dir: &std::path::Path) -> Paths {
        Paths {
            credentials: dir.join("credentials.json"),
            token: dir.join("token.json"),
            revoked_marker: dir.join("google_auth_revoked"),
            config: dir.join("config.json"),
        }
    }

    #[tokio::test]
    async fn nothing_in_time_is_a_timeout_and_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let (_started, waiting) = start(client()).unwrap();
        let http = reqwest::Client::new();
        let end = waiting
            .finish(http, paths(tmp.path()), Duration::from_millis(200))
            .await;
        assert_eq!(end, Err(Failure::TimedOut));
        assert!(!tmp.path().join("token.json").exists());
    }

    #[tokio::test]
    async fn the_browser_with_a_foreign_state_is_refused_and_the_right_one_proceeds() {
        let tmp = tempfile::tempdir().unwrap();
        let (started, waiting) = start(client()).unwrap();
        let redirect = url::Url::parse(&started.url).unwrap();
        let back = redirect
            .query_pairs()
            .find(|(k, _)| k == "redirect_uri")
            .map(|(_, v)| v.into_owned())
            .unwrap();
        let flow = tokio::spawn(waiting.finish(
            reqwest::Client::new(),
            paths(tmp.path()),
            Duration::from_secs(20),
        ));
        let http = reqwest::Client::new();
        let foreign = http
            .get(format!("{back}/?code=c&state=not-{}", started.state))
            .send()
            .await
            .unwrap();
        assert_eq!(foreign.status(), 400);
        let favicon = http
            .get(format!("{back}/favicon.ico"))
            .send()
            .await
            .unwrap();
        assert_eq!(favicon.status(), 404);
        let right = http
            .get(format!("{back}/?code=c&state={}", started.state))
            .send()
            .await
            .unwrap();
        assert_eq!(right.status(), 200);
        assert!(right.text().await.unwrap().contains("Auth complete"));
        let end = flow.await.unwrap();
        assert!(
            matches!(end, Err(Failure::Exchange(oauth::Error::Network(_)))),
            "the code went to the token endpoint: {end:?}"
        );
        assert!(!tmp.path().join("token.json").exists());
    }

    #[tokio::test]
    async fn a_denied_consent_ends_the_flow_with_googles_error() {
        let tmp = tempfile::tempdir().unwrap();
        let (started, waiting) = start(client()).unwrap();
        started
            .paste
            .send(Redirect {
                code: None,
                state: Some(started.state.clone()),
                error: Some("access_denied".into()),
            })
            .unwrap();
        let end = waiting
            .finish(
                reqwest::Client::new(),
                paths(tmp.path()),
                Duration::from_secs(5),
            )
            .await;
        assert_eq!(end, Err(Failure::Denied("access_denied".into())));
    }
}
