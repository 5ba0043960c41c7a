//! The fake's server: records each request, injects asked-for failures, checks the bearer
//! token of API calls, and routes to the OAuth endpoints or the three APIs.

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use parking_lot::Mutex;
use serde_json::{json, Value};

use super::state::{Request, State};
use super::{apis, gmail, oauth};

/// What a route answers.
pub enum Reply {
    /// JSON with a status.
    Json(u16, Value),
    /// No body.
    Empty(u16),
    /// A 302 to this location.
    Redirect(String),
    /// Plain text with a status.
    Text(u16, String),
}

/// 200 with JSON.
pub fn ok(v: Value) -> Reply {
    Reply::Json(200, v)
}

/// Google's error shape.
pub fn google_error(status: u16, message: &str) -> Reply {
    let reason = match status {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        503 => "UNAVAILABLE",
        _ => "INTERNAL",
    };
    Reply::Json(
        status,
        json!({"error": {"code": status, "message": message, "errors": [{"message": message, "domain": "global", "reason": "fake"}], "status": reason}}),
    )
}

/// 404 as the APIs answer an unknown id.
pub fn not_found() -> Reply {
    google_error(404, "Requested entity was not found.")
}

/// Starts the server on `listener` inside the current actix system.
pub fn server(
    listener: std::net::TcpListener,
    state: Arc<Mutex<State>>,
) -> std::io::Result<actix_web::dev::Server> {
    let data = web::Data::from(state);
    Ok(HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .default_service(web::to(handle))
    })
    .workers(1)
    .disable_signals()
    .shutdown_timeout(1)
    .keep_alive(Duration::from_secs(30))
    .listen(listener)?
    .run())
}

async fn handle(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<Mutex<State>>,
) -> HttpResponse {
    let request = Request {
        method: req.method().as_str().to_owned(),
        path: percent_decode(req.path()),
        query: req.query_string().to_owned(),
        authorization: req
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let reply = {
        let mut state = state.lock();
        state.requests.push(request.clone());
        route(&mut state, &request)
    };
    respond(reply)
}

fn route(state: &mut State, r: &Request) -> Reply {
    if let Some(f) = state.take_failure(&r.method, &r.path) {
        return if f.message.is_empty() {
            Reply::Text(f.status, "<html>upstream failure</html>".into())
        } else {
            google_error(f.status, f.message)
        };
    }
    let segs: Vec<&str> = r.path.split('/').filter(|s| !s.is_empty()).collect();
    match segs.as_slice() {
        ["o", "oauth2", "auth"] if r.method == "GET" => oauth::consent_page(state, r),
        ["token"] if r.method == "POST" => oauth::token(state, r),
        [api @ ("tasks" | "calendar" | "gmail"), rest @ ..] => {
            let bearer = r
                .authorization
                .as_deref()
                .and_then(|a| a.strip_prefix("Bearer "));
            if !bearer.is_some_and(|t| state.access.contains(t)) {
                return google_error(
                    401,
                    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                );
            }
            match *api {
                "tasks" => apis::tasks(state, r, rest),
                "calendar" => apis::calendar(state, r, rest),
                _ => gmail::route(state, r, rest),
            }
        }
        _ => google_error(404, "Not Found"),
    }
}

fn respond(reply: Reply) -> HttpResponse {
    let code = |s: u16| StatusCode::from_u16(s).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match reply {
        Reply::Json(status, v) => HttpResponse::build(code(status))
            .content_type("application/json; charset=UTF-8")
            .body(v.to_string()),
        Reply::Empty(status) => HttpResponse::build(code(status)).finish(),
        Reply::Redirect(to) => HttpResponse::Found()
            .insert_header(("location", to))
            .finish(),
        Reply::Text(status, text) => HttpResponse::build(code(status))
            .content_type("text/html")
            .body(text),
    }
}

/// Percent-decodes a path (ids arrive encoded).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: Option<&u8>| b.and_then(|b| (*b as char).to_digit(16));
        match (bytes[i], hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A query parameter.
pub fn param(r: &Request, name: &str) -> Option<String> {
    r.query_pairs()
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

/// One page of `items` as Google pages them (`pageToken` is the start index), under `key`.
pub fn page(state: &State, r: &Request, items: Vec<Value>, key: &str, max: Option<usize>) -> Reply {
    let size = max.unwrap_or(usize::MAX).min(state.page_size);
    let start: usize = param(r, "pageToken")
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    let end = (start + size).min(items.len());
    let mut body = json!({ key: items.get(start..end).unwrap_or(&[]).to_vec() });
    if end < items.len() {
        body["nextPageToken"] = json!(end.to_string());
    }
    ok(body)
}
