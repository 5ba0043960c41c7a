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

use std::net::{Ipv4Addr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use actix::{Addr, Recipient};
use actix_web::{web, App, HttpServer};
use chrono_tz::Tz;

use crate::clock::SharedClock;
use crate::data_dir::DataDir;
use crate::ping_budget::PingBudget;
use crate::scheduler::{FireJob, IsBusy};
use crate::webhook_screen::Screener;

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
