//! A fake Google on 127.0.0.1 for the tests and the bench: the OAuth consent page and token
//! endpoint, and the Tasks, Calendar and Gmail REST APIs at Google's paths (`/tasks/v1/…`,
//! `/calendar/v3/…`, `/gmail/v1/…`), reached through `OLLIM_GOOGLE_API_BASE` and the endpoints
//! of a `credentials.json` pointing here. Served by actix-web in a background thread.
//!
//! It checks what Google checks: the client's id and secret, the redirect URI and the PKCE
//! verifier of a code, refresh tokens (a revoked one answers `invalid_grant`), a bearer token
//! on every API call; unknown ids answer 404 with Google's error shape. Tests seed data, make
//! the next call fail (429, 503, …), and read every request that arrived.

mod apis;
mod gmail;
mod http;
mod oauth;
mod state;

use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::{json, Value};

pub use gmail::NewMail;
use state::State;
pub use state::{Failure, Request};

/// The OAuth client's id in the fake's `credentials.json`.
pub const CLIENT_ID: &str = "1234-fake.apps.googleusercontent.com";
/// The address of the fake account: its primary calendar's real id.
pub const OWNER: &str = "owner@example.com";
/// The OAuth client's secret.
pub const CLIENT_SECRET: &str = "GOCSPX-fake-secret";

/// The running fake; clones share it, and the last one dropped stops the server.
#[derive(Clone)]
pub struct FakeGoogle {
    inner: Arc<Inner>,
}

struct Inner {
    state: Arc<Mutex<State>>,
    base_url: String,
    stop: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.lock().take() {
            let _ = stop.send(());
        }
    }
}

impl FakeGoogle {
    /// Starts the server on a random port of 127.0.0.1.
    pub fn start() -> FakeGoogle {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the fake Google");
        let base_url = format!("http://{}", listener.local_addr().expect("its address"));
        let state = Arc::new(Mutex::new(State::default()));
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let (up_tx, up_rx) = std::sync::mpsc::channel::<()>();
        let shared = Arc::clone(&state);
        std::thread::Builder::new()
            .name("fake-google".into())
            .spawn(move || {
                actix_rt::System::new().block_on(async move {
                    let server = http::server(listener, shared).expect("start the fake Google");
                    let handle = server.handle();
                    actix_rt::spawn(server);
                    let _ = up_tx.send(());
                    let _ = stop_rx.await;
                    handle.stop(false).await;
                })
            })
            .expect("start the fake Google thread");
        up_rx.recv().expect("the fake Google started");
        FakeGoogle {
            inner: Arc::new(Inner {
                state,
                base_url,
                stop: Mutex::new(Some(stop_tx)),
            }),
        }
    }

    fn state(&self) -> parking_lot::MutexGuard<'_, State> {
        self.inner.state.lock()
    }

    /// `http://127.0.0.1:PORT`: the value for `OLLIM_GOOGLE_API_BASE`.
    pub fn base_url(&self) -> String {
        self.inner.base_url.clone()
    }

    /// The token endpoint.
    pub fn token_uri(&self) -> String {
        format!("{}/token", self.inner.base_url)
    }

    /// `state/credentials.json` for this fake, in Google's installed-app format.
    pub fn client_file(&self) -> String {
        json!({"installed": {
            "client_id": CLIENT_ID,
            "project_id": "ollim-test",
            "auth_uri": format!("{}/o/oauth2/auth", self.inner.base_url),
            "token_uri": self.token_uri(),
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "client_secret": CLIENT_SECRET,
            "redirect_uris": ["http://localhost"]
        }})
        .to_string()
    }

    /// A grant as if the user had consented earlier: (access token, refresh token).
    pub fn grant(&self) -> (String, String) {
        self.state().issue(true)
    }

    /// `state/token.json` exactly as the original (Python google-auth) writes it.
    pub fn token_file(&self, access: &str, refresh: &str, expiry: &str) -> String {
        format!(
            r#"{{"token": "{access}", "refresh_token": "{refresh}", "token_uri": "{}", "client_id": "{CLIENT_ID}", "client_secret": "{CLIENT_SECRET}", "scopes": ["https://www.googleapis.com/auth/tasks", "https://www.googleapis.com/auth/calendar.events", "https://www.googleapis.com/auth/gmail.readonly"], "universe_domain": "googleapis.com", "account": "", "expiry": "{expiry}"}}"#,
            self.token_uri()
        )
    }

    /// `state/token.json` as a new `/google-auth` writes it: [`FakeGoogle::token_file`] with
    /// the calendar-list scope after the original's three.
    pub fn consented_token_file(&self, access: &str, refresh: &str, expiry: &str) -> String {
        self.token_file(access, refresh, expiry).replace(
            r#"gmail.readonly"]"#,
            r#"gmail.readonly", "https://www.googleapis.com/auth/calendar.calendarlist.readonly"]"#,
        )
    }

    /// Accepts `access` as a valid bearer token (one the fake did not issue).
    pub fn accept_access_token(&self, access: &str) {
        self.state().access.insert(access.to_owned());
    }

    /// Revokes a refresh token: refreshing it answers `invalid_grant`.
    pub fn revoke(&self, refresh: &str) {
        self.state().revoked.insert(refresh.to_owned());
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.state().requests.clone()
    }

    /// The requests whose path starts with `prefix`.
    pub fn requests_to(&self, prefix: &str) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| r.path.starts_with(prefix))
            .collect()
    }

    /// Makes the next call matching `failure` answer with its status and message.
    pub fn fail_next(&self, failure: Failure) {
        self.state().failures.push(failure);
    }

    /// Items per page of every listing (small values prove paging).
    pub fn set_page_size(&self, n: usize) {
        self.state().page_size = n.max(1);
    }

    /// Adds a task; its id.
    pub fn add_task(&self, title: &str, due: Option<&str>, completed: bool) -> String {
        self.state().add_task(title, due, completed)
    }

    /// The tasks as stored now.
    pub fn tasks(&self) -> Vec<Value> {
        self.state().tasks.clone()
    }

    /// Adds a task to another task list (made when new); its id.
    pub fn add_task_to(&self, list: &str, title: &str, notes: Option<&str>) -> String {
        let mut state = self.state();
        let id = state.add_task_to(list, title, None, false);
        if let Some(notes) = notes {
            if let Some(task) = state
                .task_list_mut(list)
                .and_then(|ts| ts.iter_mut().find(|t| t["id"] == id.as_str()))
            {
                task["notes"] = json!(notes);
            }
        }
        id
    }

    /// The tasks of a list as stored now (empty for an unknown list).
    pub fn tasks_in(&self, list: &str) -> Vec<Value> {
        self.state()
            .task_list_mut(list)
            .map(|ts| ts.clone())
            .unwrap_or_default()
    }

    /// Adds an event (a Calendar event resource without `id`); its id.
    pub fn add_event(&self, event: Value) -> String {
        self.state().add_event(event)
    }

    /// Adds a calendar the account can reach.
    pub fn add_calendar(&self, id: &str, name: &str) {
        self.state()
            .calendars
            .push((id.to_owned(), name.to_owned(), Vec::new()));
    }

    /// Adds an event to a calendar (made when new); its id.
    pub fn add_event_to(&self, calendar: &str, event: Value) -> String {
        self.state().add_event_to(calendar, event)
    }

    /// The events of the primary calendar as stored now.
    pub fn events(&self) -> Vec<Value> {
        self.state().events.clone()
    }

    /// The events of a calendar as stored now (empty for an unknown one).
    pub fn events_in(&self, calendar: &str) -> Vec<Value> {
        self.state()
            .calendar_mut(calendar)
            .map(|es| es.clone())
            .unwrap_or_default()
    }

    /// Adds a message; its id.
    pub fn add_message(&self, mail: NewMail) -> String {
        self.state().add_message(mail)
    }

    /// Plays the user on the consent page: opens `auth_url` and answers "Allow". Returns the
    /// redirect URL Google sends the browser to (`http://127.0.0.1:PORT/?state=…&code=…`).
    pub async fn consent(&self, auth_url: &str) -> String {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client");
        let answer = client
            .get(auth_url)
            .send()
            .await
            .expect("the consent page answers");
        assert_eq!(
            answer.status(),
            302,
            "consent refused: {:?}",
            answer.text().await
        );
        answer
            .headers()
            .get("location")
            .and_then(|l| l.to_str().ok())
            .expect("a redirect")
            .to_owned()
    }
}
