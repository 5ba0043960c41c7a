//! The fake Discord REST API (`/api/v10/...`) and its attachment CDN (`/attachments/...`),
//! served by actix-web. Every call is recorded; answers and errors have Discord's shapes.
//! This file holds the server, the recording and the route table; the message, reaction,
//! interaction and command routes live in `rest_messages.rs` and `rest_interactions.rs`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use parking_lot::Mutex;
use serde_json::Value;

use super::multipart::{self, File};
use super::objects::{self, error};
use super::state::State;
use super::{rest_interactions, rest_messages, Request, APP_ID, OWNER_ID, STRANGER_ID};

/// What a route answers.
pub enum Reply {
    /// A JSON body with this status.
    Json(u16, Value),
    /// No body (204 and friends).
    Empty(u16),
    /// Raw bytes with a content type (attachments).
    Bytes(String, Vec<u8>),
}

/// 200 with a JSON body.
pub fn ok(v: Value) -> Reply {
    Reply::Json(200, v)
}

/// A Discord error: `status` with `{code, message}`.
pub fn fail(status: u16, code: u64, message: &str) -> Reply {
    Reply::Json(status, error(code, message))
}

/// 404 with Discord's generic body.
pub fn not_found() -> Reply {
    fail(404, 0, "404: Not Found")
}

/// 400 for a path segment that should be a snowflake.
pub fn not_snowflake(text: &str) -> Reply {
    Reply::Json(
        400,
        objects::invalid_form(
            "id",
            "NUMBER_TYPE_COERCE",
            &format!("Value \"{text}\" is not snowflake."),
        ),
    )
}

/// Parses a path segment as a snowflake.
pub fn snowflake(text: &str) -> Result<u64, Reply> {
    text.parse().map_err(|_| not_snowflake(text))
}

/// Starts the REST server on `listener` inside the current actix system.
pub fn server(
    listener: std::net::TcpListener,
    state: Arc<Mutex<State>>,
) -> std::io::Result<actix_web::dev::Server> {
    let data = web::Data::from(state);
    Ok(HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(web::PayloadConfig::new(64 * 1024 * 1024))
            .default_service(web::to(handle))
    })
    .workers(1)
    .disable_signals()
    .keep_alive(Duration::from_secs(600))
    .shutdown_timeout(1)
    .listen(listener)?
    .run())
}

/// Records the call, routes it, and turns the reply into a response.
async fn handle(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<Mutex<State>>,
) -> HttpResponse {
    let method = req.method().as_str().to_owned();
    let path = req.path().to_owned();
    let query = req.query_string().to_owned();
    let content_type = req
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let (json, files) = decode_body(&content_type, &body);
    let reply = {
        let mut state = state.lock();
        state.requests.push(Request {
            method: method.clone(),
            path: path.clone(),
            query: query.clone(),
            body: json.clone(),
            at: Instant::now(),
        });
        route(&mut state, &method, &path, &query, &json, files)
    };
    respond(reply)
}

/// The JSON of a body (`payload_json` for multipart) and any files; `Null` when empty, a
/// string when the body is not JSON.
fn decode_body(content_type: &str, body: &[u8]) -> (Value, Vec<File>) {
    if body.is_empty() {
        return (Value::Null, Vec::new());
    }
    if let Some(boundary) = multipart::boundary(content_type) {
        return multipart::parse(body, &boundary);
    }
    match serde_json::from_slice(body) {
        Ok(v) => (v, Vec::new()),
        Err(_) => (
            Value::String(String::from_utf8_lossy(body).into_owned()),
            Vec::new(),
        ),
    }
}

fn respond(reply: Reply) -> HttpResponse {
    let code = |s: u16| StatusCode::from_u16(s).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match reply {
        Reply::Json(status, v) => HttpResponse::build(code(status))
            .content_type("application/json")
            .body(v.to_string()),
        Reply::Empty(status) => HttpResponse::build(code(status)).finish(),
        Reply::Bytes(content_type, bytes) => {
            HttpResponse::Ok().content_type(content_type).body(bytes)
        }
    }
}

/// Percent-decodes one path segment (reaction emoji arrive encoded).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
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

/// Dispatches a call to its route.
fn route(
    state: &mut State,
    method: &str,
    path: &str,
    query: &str,
    body: &Value,
    files: Vec<File>,
) -> Reply {
    let segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(percent_decode)
        .collect();
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    match segs.as_slice() {
        ["attachments", id, _name] => attachment(state, id),
        ["api", "v10", rest @ ..] => {
            let public = method == "GET" && rest == ["gateway"];
            if state.opts.reject_token && !public {
                return fail(401, 0, "401: Unauthorized");
            }
            api(state, method, rest, query, body, files).unwrap_or_else(|reply| reply)
        }
        _ => not_found(),
    }
}

/// The `/api/v10` routes. `Err` carries an early error reply.
fn api(
    state: &mut State,
    method: &str,
    segs: &[&str],
    query: &str,
    body: &Value,
    files: Vec<File>,
) -> Result<Reply, Reply> {
    use rest_interactions as i;
    use rest_messages as m;
    Ok(match (method, segs) {
        ("GET", ["gateway"] | ["gateway", "bot"]) if state.opts.gateway_unavailable_first > 0 => {
            state.opts.gateway_unavailable_first -= 1;
            fail(503, 0, "upstream connect error")
        }
        ("GET", ["gateway"] | ["gateway", "bot"]) => ok(objects::gateway(&state.gateway_url)),
        ("GET", ["oauth2", "applications", "@me"] | ["applications", "@me"])
            if state.opts.unavailable_first > 0 =>
        {
            state.opts.unavailable_first -= 1;
            fail(503, 0, "upstream connect error")
        }
        ("GET", ["oauth2", "applications", "@me"] | ["applications", "@me"]) => {
            ok(objects::application_info(!state.opts.no_owner))
        }
        ("GET", ["users", "@me"]) => ok(objects::current_user()),
        ("GET", ["users", id]) => user(state, snowflake(id)?),
        ("POST", ["users", "@me", "channels"]) => open_dm(state, body)?,
        ("GET", ["channels", cid]) => {
            let cid = snowflake(cid)?;
            state
                .channel_json(cid)
                .map_or_else(|| fail(404, 10003, "Unknown Channel"), ok)
        }
        ("POST", ["channels", cid, "typing"]) => {
            m::known_channel(state, snowflake(cid)?)?;
            Reply::Empty(204)
        }
        ("GET", ["channels", cid, "messages"]) => m::history(state, snowflake(cid)?, query)?,
        ("POST", ["channels", cid, "messages"]) => m::create(state, snowflake(cid)?, body, files)?,
        ("GET", ["channels", cid, "messages", mid]) => {
            m::get(state, snowflake(cid)?, snowflake(mid)?)?
        }
        ("PATCH", ["channels", cid, "messages", mid]) => {
            m::edit(state, snowflake(cid)?, snowflake(mid)?, body)?
        }
        ("DELETE", ["channels", cid, "messages", mid]) => {
            m::delete(state, snowflake(cid)?, snowflake(mid)?)?
        }
        ("PUT" | "DELETE", ["channels", cid, "messages", mid, "reactions", emoji, who]) => {
            m::reaction(
                state,
                method == "PUT",
                snowflake(cid)?,
                snowflake(mid)?,
                emoji,
                who,
            )?
        }
        ("GET" | "PUT", ["applications", app, "commands"]) => {
            i::commands(state, method, snowflake(app)?, None, body)?
        }
        ("GET" | "PUT", ["applications", app, "guilds", gid, "commands"]) => {
            i::commands(state, method, snowflake(app)?, Some(snowflake(gid)?), body)?
        }
        ("POST", ["interactions", iid, token, "callback"]) => {
            i::callback(state, snowflake(iid)?, token, body)?
        }
        ("POST", ["webhooks", app, token]) => i::followup(state, snowflake(app)?, token, body)?,
        ("GET" | "PATCH" | "DELETE", ["webhooks", app, token, "messages", mid]) => {
            i::webhook_message(state, method, snowflake(app)?, token, mid, body)?
        }
        _ => not_found(),
    })
}

/// `GET /users/{id}`: the fixed users and anyone with a DM channel.
fn user(state: &State, id: u64) -> Reply {
    let has_dm = state.channels.values().any(|c| c.recipient == Some(id));
    if has_dm || [OWNER_ID, STRANGER_ID, super::BOT_ID].contains(&id) {
        ok(objects::user(id))
    } else {
        fail(404, 10013, "Unknown User")
    }
}

/// `POST /users/@me/channels {recipient_id}`: the DM channel with that user.
fn open_dm(state: &mut State, body: &Value) -> Result<Reply, Reply> {
    let recipient = match &body["recipient_id"] {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    };
    let Some(recipient) = recipient else {
        return Err(Reply::Json(
            400,
            objects::invalid_form(
                "recipient_id",
                "BASE_TYPE_REQUIRED",
                "This field is required",
            ),
        ));
    };
    if recipient == super::BOT_ID {
        return Err(fail(400, 50007, "Cannot send messages to this user"));
    }
    let channel = state.dm_channel_for(recipient);
    Ok(state
        .channel_json(channel)
        .map_or_else(|| fail(404, 10003, "Unknown Channel"), ok))
}

/// `GET /attachments/{id}/{filename}`: the bytes of a user's attachment.
fn attachment(state: &State, id: &str) -> Reply {
    let found = id
        .parse::<u64>()
        .ok()
        .and_then(|id| state.attachments.get(&id));
    match found {
        Some((_, content_type, bytes)) => Reply::Bytes(content_type.clone(), bytes.clone()),
        None => not_found(),
    }
}

/// Checks that `app` is the fake application's id.
pub fn own_app(app: u64) -> Result<(), Reply> {
    if app == APP_ID {
        Ok(())
    } else {
        Err(fail(404, 10002, "Unknown Application"))
    }
}

/// A `{"id": ...}` lookup used by several routes.
pub fn id_of(v: &Value) -> Option<u64> {
    match v {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

/// A message body error: empty message.
pub fn empty_message() -> Reply {
    fail(400, 50006, "Cannot send an empty message")
}
