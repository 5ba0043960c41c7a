//! The dashboard *(ours, SPEC §21)*: a web page served by the bot, beside its surface, on
//! `127.0.0.1:DASHBOARD_PORT` (default 7312; `off` turns it off). `ollim-bot dashboard` and
//! `/dashboard` hand out a one-time login link ([`logins`]); [`guard`] holds the doors (Host,
//! session, Origin and CSRF, the security headers); [`routes`] is the route table; [`layout`]
//! the page frame; [`pages`] one module per page; [`timeline`] draws Today's day as SVG.
//!
//! Pages ask the actors that own the facts (scheduler, run log, ping budget, usage, …) and
//! change things only through the messages the CLI and Discord use. Nothing here changes
//! paths, binaries or the environment.

pub mod guard;
pub mod layout;
pub mod logins;
pub mod pages;
pub mod routes;
pub mod schedule_words;
pub mod timeline;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use actix::{Actor as _, Addr};
use actix_web::{middleware::DefaultHeaders, App, HttpServer};
use chrono_tz::Tz;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::bot::supervisor::Handles;
use ollim_actors::bot::webhook_server::admission::Admission;

pub use logins::Logins;

/// The port when `DASHBOARD_PORT` is not set.
pub const DEFAULT_PORT: u16 = 7312;
/// Largest form body accepted (a whole job file).
const FORM_LIMIT: usize = 256 * 1024;
/// The variable naming the port (or `off`).
pub const PORT_VARIABLE: &str = "DASHBOARD_PORT";
/// The variable naming another address to bind (doctor warns when it is not loopback).
pub const BIND_VARIABLE: &str = "DASHBOARD_BIND";

/// Where the dashboard listens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DashboardSettings {
    /// The address (127.0.0.1 unless `DASHBOARD_BIND` says otherwise).
    pub bind: IpAddr,
    /// The port (0: any free one).
    pub port: u16,
}

/// Why the dashboard's settings were not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// `DASHBOARD_PORT` is neither a port nor `off`.
    #[error("DASHBOARD_PORT: {0:?} is not a port number (1-65535) or off")]
    Port(String),
    /// `DASHBOARD_BIND` is not an IP address.
    #[error("DASHBOARD_BIND: {0:?} is not an IP address (e.g. 127.0.0.1)")]
    Bind(String),
}

impl DashboardSettings {
    /// Reads `DASHBOARD_PORT` and `DASHBOARD_BIND`; `None` when the dashboard is off.
    pub fn from_lookup(
        get: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<DashboardSettings>, SettingsError> {
        let non_empty = |k: &str| {
            get(k)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let port = match non_empty(PORT_VARIABLE) {
            None => DEFAULT_PORT,
            Some(v) if v.eq_ignore_ascii_case("off") => return Ok(None),
            Some(v) => v.parse::<u16>().map_err(|_| SettingsError::Port(v))?,
        };
        let bind = match non_empty(BIND_VARIABLE) {
            None => IpAddr::V4(Ipv4Addr::LOCALHOST),
            Some(v) => v.parse::<IpAddr>().map_err(|_| SettingsError::Bind(v))?,
        };
        Ok(Some(DashboardSettings { bind, port }))
    }

    /// Whether the address is loopback (doctor warns when not).
    pub fn is_loopback(&self) -> bool {
        self.bind.is_loopback()
    }
}

/// `host:port` as a browser writes it in `Host` (IPv6 in brackets).
pub fn host_port(ip: IpAddr, port: u16) -> String {
    SocketAddr::new(ip, port).to_string()
}

/// What the pages need: the actors' addresses and the bot's place and zone.
pub struct Dash {
    /// The supervisor's children.
    pub handles: Handles,
    /// The logins.
    pub logins: Addr<Logins>,
    /// The configured zone.
    pub tz: Tz,
    /// The data directory (Memory reads and undoes `context.md` with the functions `/memory`
    /// uses; Runs finds reflections and transcripts; Webhooks reads the specs as the server does).
    pub data_dir: DataDir,
    /// The webhook server's admission actor (its recent verdicts), when the server runs.
    pub hook_admission: Option<Addr<Admission>>,
    /// The `Host` values accepted: the bound address and `localhost`, with the port.
    pub hosts: Vec<String>,
}

/// The running dashboard.
pub struct Running {
    /// Stops the server.
    pub server: actix_web::dev::ServerHandle,
    /// The logins (the control socket and `/dashboard` ask it for links).
    pub logins: Addr<Logins>,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Running {
    /// Stops serving.
    pub async fn stop(self) {
        self.server.stop(true).await;
    }
}

/// Starts the dashboard inside the running actix system, on `listener`.
pub fn serve(
    listener: TcpListener,
    handles: Handles,
    tz: Tz,
    data_dir: DataDir,
    hook_admission: Option<Addr<Admission>>,
) -> std::io::Result<Running> {
    let addr = listener.local_addr()?;
    let origin = format!("http://{}", host_port(addr.ip(), addr.port()));
    let logins = Logins::new(origin).start();
    let dash = Arc::new(Dash {
        handles,
        logins: logins.clone(),
        tz,
        data_dir,
        hook_admission,
        hosts: vec![
            host_port(addr.ip(), addr.port()),
            format!("localhost:{}", addr.port()),
        ],
    });
    let server = HttpServer::new(move || {
        App::new()
            .app_data(actix_web::web::Data::from(Arc::clone(&dash)))
            // A job file travels whole in the edit form.
            .app_data(actix_web::web::FormConfig::default().limit(FORM_LIMIT))
            .configure(routes::configure)
            .wrap_fn(guard::front_door)
            .wrap(security_headers())
    })
    .workers(1)
    .disable_signals()
    .shutdown_timeout(2)
    .client_request_timeout(Duration::from_secs(10))
    .listen(listener)?
    .run();
    let handle = server.handle();
    actix_rt::spawn(server);
    Ok(Running {
        server: handle,
        logins,
        addr,
    })
}

/// The headers every answer carries: a CSP without inline script (and no script at all: the
/// pages refresh themselves with a meta tag), no framing, no sniffing, no caching, and no
/// referrer to other sites. (`same-origin`, not `no-referrer`: under `no-referrer` a browser
/// sends `Origin: null` with a same-origin form POST, and the front door refuses it.)
fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((
            "Content-Security-Policy",
            "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; \
             frame-ancestors 'none'; base-uri 'none'",
        ))
        .add(("X-Content-Type-Options", "nosniff"))
        .add(("X-Frame-Options", "DENY"))
        .add(("Referrer-Policy", "same-origin"))
        .add(("Cache-Control", "no-store"))
        .add(("Cross-Origin-Opener-Policy", "same-origin"))
        .add(("Cross-Origin-Resource-Policy", "same-origin"))
}

/// Starts the dashboard for the bot when the environment asks for it; logs why not, or where
/// it listens.
pub fn start_for_bot(
    handles: &Handles,
    tz: Tz,
    data_dir: &DataDir,
    hook_admission: Option<Addr<Admission>>,
) -> Option<Running> {
    let settings = match DashboardSettings::from_lookup(&|k| std::env::var(k).ok()) {
        Ok(Some(s)) => s,
        Ok(None) => {
            tracing::info!("dashboard: off (DASHBOARD_PORT=off)");
            return None;
        }
        Err(e) => {
            tracing::error!(cause = %e, "dashboard: not started");
            return None;
        }
    };
    if !settings.is_loopback() {
        tracing::warn!(bind = %settings.bind, "dashboard: listening beyond this machine (DASHBOARD_BIND); anyone who can reach it sees the login page");
    }
    let started = TcpListener::bind((settings.bind, settings.port)).and_then(|listener| {
        serve(
            listener,
            handles.clone(),
            tz,
            data_dir.clone(),
            hook_admission,
        )
    });
    match started {
        Ok(running) => {
            tracing::info!(address = %running.addr, "dashboard listening; `ollim-bot dashboard` gives a login link");
            Some(running)
        }
        Err(e) => {
            tracing::error!(bind = %settings.bind, port = settings.port, cause = %e, "dashboard failed to start");
            None
        }
    }
}

/// The answer to `/dashboard` (console and Discord): a one-time link, or why there is none.
pub async fn link_reply(logins: Option<&Addr<Logins>>) -> String {
    let Some(logins) = logins else {
        return "the dashboard is not running: it is off (DASHBOARD_PORT=off) or could not start \
                (the log says why)"
            .to_owned();
    };
    match logins.send(logins::NewLink).await {
        Ok(Ok(link)) => format!("dashboard login (works once, for 10 minutes): {link}"),
        Ok(Err(why)) => format!("no login link: {why}"),
        Err(e) => format!("the dashboard has stopped: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<Option<DashboardSettings>, SettingsError> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        DashboardSettings::from_lookup(&move |k| {
            pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn loopback_on_7312_unless_told_otherwise() {
        let s = read(&[]).unwrap().unwrap();
        assert_eq!(host_port(s.bind, s.port), "127.0.0.1:7312");
        assert!(s.is_loopback());
        assert_eq!(read(&[("DASHBOARD_PORT", "off")]).unwrap(), None);
        assert_eq!(read(&[("DASHBOARD_PORT", "OFF")]).unwrap(), None);
        let s = read(&[("DASHBOARD_PORT", "8000"), ("DASHBOARD_BIND", "0.0.0.0")])
            .unwrap()
            .unwrap();
        assert_eq!(s.port, 8000);
        assert!(!s.is_loopback());
        assert!(read(&[("DASHBOARD_PORT", "http")]).is_err());
        assert!(read(&[("DASHBOARD_PORT", "70000")]).is_err());
        assert!(read(&[("DASHBOARD_BIND", "localhost")]).is_err());
        assert_eq!(host_port("::1".parse().unwrap(), 7312), "[::1]:7312");
    }
}
