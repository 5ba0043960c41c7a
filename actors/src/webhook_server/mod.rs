//! The webhook HTTP server (SPEC §13): `POST /hook/<id>` on 127.0.0.1, started beside the
//! surface when `WEBHOOK_PORT` and `WEBHOOK_SECRET` are both set.
//!
//! [`configure`] is the one place routes are declared (the binary and the tests both use it);
//! [`serve`] runs them on a listener. Checks live in [`auth`] and [`checks`], the handler in
//! [`routes`], and the work done after the 202 (screening, prompt, [`crate::scheduler::FireJob`])
//! in [`dispatch`]. Specs are read from `webhooks/` on every request.

pub mod auth;
pub mod checks;
pub mod dispatch;
pub mod routes;

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix::{Addr, Recipient};
use actix_web::{web, App, HttpServer};
use chrono_tz::Tz;

use crate::clock::SharedClock;
use crate::data_dir::DataDir;
use crate::ping_budget::PingBudget;
use crate::scheduler::{FireJob, ForwardItems, IsBusy};
use crate::settings::WebhookSettings;
use crate::supervisor::Handles;
use crate::webhook_screen::{ClaudeScreener, Screener, SCREEN_TIMEOUT};

/// Everything the routes and the dispatch need.
#[derive(Clone)]
pub struct HookConfig {
    /// `WEBHOOK_SECRET`: the bearer token callers must send.
    pub secret: String,
    /// The data directory (specs in `webhooks/`, jobs for the forward schedule).
    pub data_dir: DataDir,
    /// The configured zone.
    pub tz: Tz,
    /// The clock.
    pub clock: SharedClock,
    /// Accepted jobs go here (the main session, or a recorder in tests).
    pub jobs: Recipient<FireJob>,
    /// Asked whether the user is mid-turn (for the preamble).
    pub busy: Option<Recipient<IsBusy>>,
    /// The ping budget (for the preamble).
    pub budget: Option<Addr<PingBudget>>,
    /// The scheduler, for the preamble's forward schedule (its index, not a fresh read).
    pub schedule: Option<Recipient<ForwardItems>>,
    /// Judges free-form fields.
    pub screener: Arc<dyn Screener>,
}

/// Adds the webhook routes and their state to an app.
pub fn configure(cfg: &mut web::ServiceConfig, config: &Arc<HookConfig>) {
    cfg.app_data(web::Data::from(Arc::clone(config)))
        .route("/hook/{id}", web::post().to(routes::hook));
}

/// Binds `127.0.0.1:port` (0 = any free port); loopback only, never another interface.
pub fn bind(port: u16) -> std::io::Result<TcpListener> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, port))
}

/// Runs the routes on `listener`. Await the returned server (or spawn it) to serve; stop it
/// through its handle. Signals are left to the caller.
pub fn serve(
    listener: TcpListener,
    config: Arc<HookConfig>,
) -> std::io::Result<actix_web::dev::Server> {
    let server = HttpServer::new(move || App::new().configure(|cfg| configure(cfg, &config)))
        .workers(2)
        .disable_signals()
        .shutdown_timeout(5)
        .client_request_timeout(Duration::from_secs(10))
        .listen(listener)?
        .run();
    Ok(server)
}

/// What the running bot gives the server: where it lives and how to run `claude`.
pub struct BotParts<'a> {
    /// The data directory.
    pub data_dir: &'a DataDir,
    /// The configured zone.
    pub tz: Tz,
    /// The clock.
    pub clock: SharedClock,
    /// The supervisor's children (jobs go to the main session).
    pub handles: &'a Handles,
    /// The `claude` executable, for screening.
    pub binary: PathBuf,
    /// The conversation's extra environment, reused for screening.
    pub cli_env: BTreeMap<String, String>,
}

/// Starts the server on `127.0.0.1:<port>` inside the running actix system, sending jobs to
/// the main session. Without a main session there is nothing to run jobs, so nothing starts.
pub fn start_for_bot(
    settings: &WebhookSettings,
    parts: BotParts<'_>,
) -> std::io::Result<Option<actix_web::dev::ServerHandle>> {
    let Some(main) = parts.handles.main_session.clone() else {
        tracing::warn!("no main session: the webhook server stays off");
        return Ok(None);
    };
    let config = Arc::new(HookConfig {
        secret: settings.secret.clone(),
        data_dir: parts.data_dir.clone(),
        tz: parts.tz,
        clock: parts.clock,
        jobs: main.clone().recipient(),
        busy: Some(main.recipient()),
        budget: Some(parts.handles.ping_budget.clone()),
        schedule: Some(parts.handles.scheduler.clone().recipient()),
        screener: Arc::new(ClaudeScreener {
            binary: parts.binary,
            cwd: parts.data_dir.root().to_path_buf(),
            env: parts.cli_env,
            timeout: SCREEN_TIMEOUT,
        }),
    });
    let server = serve(bind(settings.port)?, config)?;
    let handle = server.handle();
    actix_rt::spawn(server);
    tracing::info!(
        port = settings.port,
        "webhook server listening on 127.0.0.1"
    );
    Ok(Some(handle))
}
