//! The dashboard's doors (SPEC §21).
//!
//! - [`front_door`], in front of every route: a `Host` other than the bound address or
//!   `localhost`, with the port, gets 421 (a DNS-rebinding page reaches us under its own name);
//!   any request that is not GET or HEAD needs an `Origin` naming this very host, else 403.
//! - [`Session`], an extractor every page and form takes: no session cookie, or one the logins
//!   do not know, answers 401 with the login page — never data.
//! - [`Session::check`]: every form's `csrf` field must be the session's token, else 403 and
//!   nothing changes.
//!
//! The security headers themselves are added around all of this in [`super::serve`].

use std::future::Future;
use std::pin::Pin;

use actix_web::body::BoxBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse};
use actix_web::http::{header, Method, StatusCode};
use actix_web::{web, FromRequest, HttpRequest, HttpResponse, ResponseError};

use super::layout;
use super::logins::SessionCsrf;
use super::Dash;

/// The session cookie's name.
pub const COOKIE: &str = "ollim_session";

type Answer = Pin<Box<dyn Future<Output = Result<ServiceResponse<BoxBody>, actix_web::Error>>>>;

/// Checks `Host` (421) and, for anything but GET and HEAD, `Origin` (403) before the routes see
/// the request.
pub fn front_door<S>(req: ServiceRequest, srv: &S) -> Answer
where
    S: Service<ServiceRequest, Response = ServiceResponse<BoxBody>, Error = actix_web::Error>,
    S::Future: 'static,
{
    let verdict = match req.app_data::<web::Data<Dash>>() {
        Some(dash) => judge(req.request(), &dash.hosts),
        None => Err(Refusal::Unready),
    };
    match verdict {
        Ok(()) => Box::pin(srv.call(req)),
        Err(refusal) => {
            let res = req.into_response(refusal.error_response());
            Box::pin(async move { Ok(res) })
        }
    }
}

/// Why the front door refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// `Host` is not ours.
    #[error("this dashboard answers only to its own address (Host is not ours)")]
    Host,
    /// A state-changing request from another origin (or none named).
    #[error("refused: this request did not come from the dashboard's own pages (Origin)")]
    Origin,
    /// A form without the session's CSRF token.
    #[error("refused: the form's token is missing or stale; reload the page and try again")]
    Csrf,
    /// The server's own state is missing (a bug).
    #[error("the dashboard is not ready")]
    Unready,
}

impl ResponseError for Refusal {
    fn status_code(&self) -> StatusCode {
        match self {
            Refusal::Host => StatusCode::MISDIRECTED_REQUEST,
            Refusal::Origin | Refusal::Csrf => StatusCode::FORBIDDEN,
            Refusal::Unready => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn error_response(&self) -> HttpResponse {
        tracing::warn!(refusal = %self, "dashboard: request refused");
        HttpResponse::build(self.status_code())
            .content_type("text/plain; charset=utf-8")
            .body(self.to_string())
    }
}

/// The request's verdict: `Host` one of `hosts`; for a state-changing method, `Origin` the
/// same host over http.
pub fn judge(req: &HttpRequest, hosts: &[String]) -> Result<(), Refusal> {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_ascii_lowercase)
        .ok_or(Refusal::Host)?;
    if !hosts.iter().any(|h| h.eq_ignore_ascii_case(&host)) {
        return Err(Refusal::Host);
    }
    if req.method() == Method::GET || req.method() == Method::HEAD {
        return Ok(());
    }
    let origin = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .ok_or(Refusal::Origin)?;
    if origin.eq_ignore_ascii_case(&format!("http://{host}")) {
        Ok(())
    } else {
        Err(Refusal::Origin)
    }
}

/// The value of cookie `name` in the request's `Cookie` headers.
pub fn cookie(req: &HttpRequest, name: &str) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim().to_owned())
}

/// The `Set-Cookie` value opening session `id`.
pub fn session_cookie(id: &str) -> String {
    format!(
        "{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}",
        super::logins::SESSION_LIFETIME.as_secs()
    )
}

/// A signed-in visitor: what every page and form handler takes.
#[derive(Debug, Clone)]
pub struct Session {
    /// The token this session's forms carry.
    pub csrf: String,
}

impl Session {
    /// Whether a form's `csrf` field is this session's token (compared in constant time).
    pub fn check(&self, sent: &str) -> Result<(), Refusal> {
        let (a, b) = (self.csrf.as_bytes(), sent.as_bytes());
        let same =
            a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0;
        if same {
            Ok(())
        } else {
            Err(Refusal::Csrf)
        }
    }
}

/// Why there is no session: the login page answers, with no data.
#[derive(Debug, thiserror::Error)]
pub enum NoSession {
    /// No cookie, or one the logins do not know (expired, or from another run).
    #[error("not signed in")]
    SignedOut,
    /// The logins actor has stopped.
    #[error("the dashboard's logins have stopped")]
    Gone,
}

impl ResponseError for NoSession {
    fn status_code(&self) -> StatusCode {
        match self {
            NoSession::SignedOut => StatusCode::UNAUTHORIZED,
            NoSession::Gone => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn error_response(&self) -> HttpResponse {
        HttpResponse::build(self.status_code())
            .content_type("text/html; charset=utf-8")
            .body(layout::login_page(
                "Sign in",
                "Open the link that `ollim-bot dashboard` (or /dashboard in the chat) prints. \
                 Each link works once, for ten minutes.",
            ))
    }
}

impl FromRequest for Session {
    type Error = NoSession;
    type Future = Pin<Box<dyn Future<Output = Result<Session, NoSession>>>>;

    fn from_request(req: &HttpRequest, _payload: &mut actix_web::dev::Payload) -> Self::Future {
        let id = cookie(req, COOKIE);
        let logins = req.app_data::<web::Data<Dash>>().map(|d| d.logins.clone());
        Box::pin(async move {
            let (Some(id), Some(logins)) = (id, logins) else {
                return Err(NoSession::SignedOut);
            };
            match logins.send(SessionCsrf(id)).await {
                Ok(Some(csrf)) => Ok(Session { csrf }),
                Ok(None) => Err(NoSession::SignedOut),
                Err(_) => Err(NoSession::Gone),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn hosts() -> Vec<String> {
        vec!["127.0.0.1:7312".to_owned(), "localhost:7312".to_owned()]
    }

    #[test]
    fn only_our_hosts_and_our_origin_pass() {
        let get = |host: &str| {
            TestRequest::get()
                .insert_header((header::HOST, host))
                .to_http_request()
        };
        assert_eq!(judge(&get("127.0.0.1:7312"), &hosts()), Ok(()));
        assert_eq!(judge(&get("LOCALHOST:7312"), &hosts()), Ok(()));
        assert_eq!(judge(&get("evil.example"), &hosts()), Err(Refusal::Host));
        assert_eq!(judge(&get("127.0.0.1:80"), &hosts()), Err(Refusal::Host));
        let post = |origin: Option<&str>| {
            let mut r = TestRequest::post().insert_header((header::HOST, "127.0.0.1:7312"));
            if let Some(o) = origin {
                r = r.insert_header((header::ORIGIN, o));
            }
            r.to_http_request()
        };
        assert_eq!(
            judge(&post(Some("http://127.0.0.1:7312")), &hosts()),
            Ok(())
        );
        assert_eq!(
            judge(&post(Some("http://evil.example")), &hosts()),
            Err(Refusal::Origin)
        );
        assert_eq!(
            judge(&post(Some("http://localhost:7312")), &hosts()),
            Err(Refusal::Origin),
            "another of our names is another origin"
        );
        assert_eq!(judge(&post(None), &hosts()), Err(Refusal::Origin));
    }

    #[test]
    fn csrf_must_match() {
        let s = Session {
            csrf: "abc".to_owned(),
        };
        assert_eq!(s.check("abc"), Ok(()));
        assert_eq!(s.check("abd"), Err(Refusal::Csrf));
        assert_eq!(s.check(""), Err(Refusal::Csrf));
    }

    #[test]
    fn the_cookie_is_read_among_others_and_its_flags_are_set() {
        let req = TestRequest::get()
            .insert_header((header::COOKIE, "a=1; ollim_session=xyz; b=2"))
            .to_http_request();
        assert_eq!(cookie(&req, COOKIE).as_deref(), Some("xyz"));
        let set = session_cookie("xyz");
        for flag in ["HttpOnly", "SameSite=Strict", "Path=/"] {
            assert!(set.contains(flag), "{set}");
        }
    }
}
