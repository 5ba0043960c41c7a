//! The webhook HTTP server (SPEC §13): `POST /hook/<id>` on 127.0.0.1, started beside the
//! surface when `WEBHOOK_PORT` and `WEBHOOK_SECRET` are both set.
//!
//! [`configure`] is the one place routes are declared (the binary and the tests both use it);
//! [`serve`] runs them on a listener. Checks live in [`auth`] (bearer, signatures, secrets in
//! the URL), [`admission`] (rate limits, deliveries seen) and [`checks`], the handler in
//! [`routes`], and what happens after the 202 in [`dispatch`]: the accepted hook goes to the job
//! runner as a [`RunJob`](crate::scheduling::job_runner::RunJob) (which screens it, builds its prompt and
//! starts its fork — the same fire path as a routine's). Specs are read from `webhooks/` on every
//! request. Each answer is kept, bounded, by the admission actor ([`verdicts`]) for the
//! dashboard's Webhooks page.

pub mod admission;
pub mod auth;
pub mod checks;
pub mod dispatch;
pub mod routes;
pub mod verdicts;

use std::net::{Ipv4Addr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use actix::{Actor, Addr, Recipient};
use actix_web::{web, App, HttpServer};

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::base::settings::WebhookSettings;
use crate::bot::supervisor::Handles;
use crate::scheduling::job_runner::RunJob;
use crate::scheduling::scheduler::ForwardItems;

/// Everything the routes and the dispatch need.
#[derive(Clone)]
pub struct HookConfig {
    /// `WEBHOOK_SECRET`: the bearer token callers must send.
    pub secret: String,
    /// The data directory (specs in `webhooks/`).
    pub data_dir: DataDir,
    /// The clock.
    pub clock: SharedClock,
    /// Accepted hooks go here (the job runner).
    pub runner: Recipient<RunJob>,
    /// The scheduler, for the preamble's forward schedule (its index, not a fresh read);
    /// `None`: no schedule is shown.
    pub schedule: Option<Recipient<ForwardItems>>,
}

/// Adds the webhook routes and their state to an app; `admission` counts each hook's requests
/// and remembers its deliveries.
pub fn configure(
    cfg: &mut web::ServiceConfig,
    config: &Arc<HookConfig>,
    admission: &Addr<admission::Admission>,
) {
    cfg.app_data(web::Data::from(Arc::clone(config)))
        .app_data(web::Data::new(admission.clone()))
        .route("/hook/{id}", web::post().to(routes::hook));
}

/// Binds `127.0.0.1:port` (0 = any free port); loopback only, never another interface.
pub fn bind(port: u16) -> std::io::Result<TcpListener> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, port))
}

/// Runs the routes on `listener`, with a new [`admission::Admission`] actor (which reads the
/// remembered deliveries from `state/`). Call inside a running actix system; await the
/// returned server (or spawn it) to serve; stop it through its handle. Signals are left to the
/// caller.
pub fn serve(
    listener: TcpListener,
    config: Arc<HookConfig>,
) -> std::io::Result<actix_web::dev::Server> {
    let admission =
        admission::Admission::in_data_dir(&config.data_dir, config.clock.clone()).start();
    serve_with(listener, config, admission)
}

/// [`serve`] with an admission actor already started (the bot keeps its address to ask it for
/// the recent verdicts).
pub fn serve_with(
    listener: TcpListener,
    config: Arc<HookConfig>,
    admission: Addr<admission::Admission>,
) -> std::io::Result<actix_web::dev::Server> {
    let server =
        HttpServer::new(move || App::new().configure(|cfg| configure(cfg, &config, &admission)))
            .workers(2)
            .disable_signals()
            .shutdown_timeout(5)
            .client_request_timeout(Duration::from_secs(10))
            .listen(listener)?
            .run();
    Ok(server)
}

/// What the running bot gives the server: where it lives and its actors.
pub struct BotParts<'a> {
    /// The data directory.
    pub data_dir: &'a DataDir,
    /// The clock.
    pub clock: SharedClock,
    /// The supervisor's children (hooks go to the job runner).
    pub handles: &'a Handles,
}

/// The running server: its handle (to stop it) and its admission actor (to ask for the recent
/// verdicts, [`verdicts::RecentVerdicts`]).
#[derive(Clone)]
pub struct HookServer {
    /// Stops the server.
    pub handle: actix_web::dev::ServerHandle,
    /// Rate limits, deliveries seen and the recent verdicts.
    pub admission: Addr<admission::Admission>,
}

/// Starts the server on `127.0.0.1:<port>` inside the running actix system, sending accepted
/// hooks to the job runner.
pub fn start_for_bot(
    settings: &WebhookSettings,
    parts: BotParts<'_>,
) -> std::io::Result<Option<HookServer>> {
    let config = Arc::new(HookConfig {
        secret: settings.secret.clone(),
        data_dir: parts.data_dir.clone(),
        clock: parts.clock,
        runner: parts.handles.job_runner.clone().recipient(),
        schedule: Some(parts.handles.scheduler.clone().recipient()),
    });
    let admission =
        admission::Admission::in_data_dir(&config.data_dir, config.clock.clone()).start();
    let server = serve_with(bind(settings.port)?, config, admission.clone())?;
    let handle = server.handle();
    actix_rt::spawn(server);
    tracing::info!(
        port = settings.port,
        "webhook server listening on 127.0.0.1"
    );
    Ok(Some(HookServer { handle, admission }))
}
