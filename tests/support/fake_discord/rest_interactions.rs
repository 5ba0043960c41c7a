//! The fake's application-command and interaction routes: bulk command overwrites, interaction
//! callbacks (with the 3-second deadline and the one-acknowledgement rule), and the
//! interaction webhook (`@original` and followups), which turn into messages in the channel.

use std::time::Duration;

use serde_json::{json, Value};

use super::objects::{self, interaction_metadata};
use super::rest::{empty_message, fail, id_of, ok, own_app, Reply};
use super::rest_messages::{apply_bot_edit, check_body, is_empty, new_message, remove};
use super::state::{State, LOADING};

type Routed = Result<Reply, Reply>;

/// `GET|PUT /applications/{app}/commands` and the guild variant.
pub fn commands(
    state: &mut State,
    method: &str,
    app: u64,
    guild: Option<u64>,
    body: &Value,
) -> Routed {
    own_app(app)?;
    if method == "GET" {
        let list = state
            .commands
            .iter()
            .filter(|((g, _), _)| *g == guild)
            .map(|(_, c)| c.clone())
            .collect();
        return Ok(ok(Value::Array(list)));
    }
    let Some(list) = body.as_array() else {
        return Err(fail(400, 50109, "The request body contains invalid JSON."));
    };
    for (n, c) in list.iter().enumerate() {
        check_command(n, c)?;
    }
    state.overwrites.push(body.clone());
    let version = state.next_id();
    let mut echoed = Vec::new();
    let mut kept = Vec::new();
    for c in list {
        let name = c["name"].as_str().unwrap_or("").to_owned();
        let key = (guild, name);
        let id = match state.commands.get(&key).and_then(|old| id_of(&old["id"])) {
            Some(id) => id,
            None => state.next_id(),
        };
        let echo = objects::command(c, id, guild, version);
        echoed.push(echo.clone());
        kept.push((key, echo));
    }
    state.commands.retain(|(g, _), _| *g != guild);
    state.commands.extend(kept);
    Ok(ok(Value::Array(echoed)))
}

/// Discord's rules for a command: a lowercase name of 1-32, a description of 1-100 for
/// slash commands.
fn check_command(n: usize, c: &Value) -> Result<(), Reply> {
    let invalid = |field: &str, code: &str, message: &str| {
        Err(Reply::Json(
            400,
            objects::invalid_form(&format!("{n}.{field}"), code, message),
        ))
    };
    let name = c["name"].as_str().unwrap_or("");
    let name_ok = (1..=32).contains(&name.chars().count())
        && name
            .chars()
            .all(|ch| ch == '-' || ch == '_' || ch.is_alphanumeric() && !ch.is_uppercase());
    if !name_ok {
        return invalid(
            "name",
            "APPLICATION_COMMAND_INVALID_NAME",
            "Command name is invalid",
        );
    }
    let slash = c["type"].as_u64().unwrap_or(1) == 1;
    let description = c["description"].as_str().unwrap_or("").chars().count();
    if slash && !(1..=100).contains(&description) {
        return invalid(
            "description",
            "BASE_TYPE_BAD_LENGTH",
            "Must be between 1 and 100 in length.",
        );
    }
    Ok(())
}

/// The interaction behind `iid` if `token` matches and it is not past Discord's deadline.
fn interaction(state: &State, iid: u64, token: &str) -> Result<(), Reply> {
    let unknown = || Err(fail(404, 10062, "Unknown interaction"));
    let Some(rec) = state.interactions.get(&iid) else {
        return unknown();
    };
    if rec.token != token {
        return unknown();
    }
    let deadline = state.opts.ack_deadline_ms;
    if !rec.acknowledged && deadline > 0 && rec.created.elapsed() > Duration::from_millis(deadline)
    {
        return unknown();
    }
    Ok(())
}

/// `POST /interactions/{id}/{token}/callback`.
pub fn callback(state: &mut State, iid: u64, token: &str, body: &Value) -> Routed {
    interaction(state, iid, token)?;
    let Some(rec) = state.interactions.get(&iid).cloned() else {
        return Err(fail(404, 10062, "Unknown interaction"));
    };
    if rec.acknowledged {
        return Err(fail(
            400,
            40060,
            "Interaction has already been acknowledged.",
        ));
    }
    let data = &body["data"];
    let kind = body["type"].as_u64();
    let original = match kind {
        Some(4 | 5) => {
            if kind == Some(4) {
                check_body(data)?;
            }
            let mut new = new_message(state, rec.channel_id, data, Vec::new());
            if kind == Some(4) && is_empty(&new) {
                return Err(empty_message());
            }
            if kind == Some(5) {
                new.flags |= LOADING;
            }
            new.kind = if rec.kind == 2 { 20 } else { 0 };
            new.interaction = Some(interaction_metadata(iid, rec.kind, rec.user));
            let id = state.insert_message(new);
            state.dispatch_message("MESSAGE_CREATE", id);
            Some(id)
        }
        Some(6) if rec.kind == 3 => rec.message_id,
        Some(7) if rec.kind == 3 => {
            let Some(mid) = rec.message_id else {
                return Err(fail(404, 10008, "Unknown Message"));
            };
            apply_bot_edit(state, mid, data)?;
            Some(mid)
        }
        Some(8 | 9) => None,
        _ => {
            return Err(Reply::Json(
                400,
                objects::invalid_form(
                    "type",
                    "BASE_TYPE_CHOICES",
                    "Value must be one of {4, 5, 6, 7, 8, 9}.",
                ),
            ))
        }
    };
    if let Some(rec) = state.interactions.get_mut(&iid) {
        rec.acknowledged = true;
        rec.original = original;
        rec.responses.push(body.clone());
    }
    Ok(Reply::Empty(204))
}

/// The acknowledged interaction a webhook token belongs to.
fn webhook_interaction(state: &State, app: u64, token: &str) -> Result<u64, Reply> {
    own_app(app)?;
    let unknown = || fail(404, 10015, "Unknown Webhook");
    let iid = state.interaction_by_token(token).ok_or_else(unknown)?;
    match state.interactions.get(&iid) {
        Some(rec) if rec.acknowledged => Ok(iid),
        _ => Err(unknown()),
    }
}

fn record(state: &mut State, iid: u64, body: &Value) {
    if let Some(rec) = state.interactions.get_mut(&iid) {
        rec.responses.push(body.clone());
    }
}

/// `POST /webhooks/{app}/{token}`: a followup. The first one after a deferral fills the
/// "thinking" message, as on Discord.
pub fn followup(state: &mut State, app: u64, token: &str, body: &Value) -> Routed {
    let iid = webhook_interaction(state, app, token)?;
    check_body(body)?;
    let Some(rec) = state.interactions.get(&iid).cloned() else {
        return Err(fail(404, 10015, "Unknown Webhook"));
    };
    let loading = rec
        .original
        .and_then(|id| state.messages.get(&id))
        .filter(|m| m.flags & LOADING != 0)
        .map(|m| m.id);
    if let Some(mid) = loading {
        let reply = apply_bot_edit(state, mid, body)?;
        record(state, iid, body);
        return Ok(reply);
    }
    let mut new = new_message(state, rec.channel_id, body, Vec::new());
    if is_empty(&new) {
        return Err(empty_message());
    }
    new.kind = 0;
    new.interaction = Some(interaction_metadata(iid, rec.kind, rec.user));
    let id = state.insert_message(new);
    state.dispatch_message("MESSAGE_CREATE", id);
    record(state, iid, body);
    Ok(state
        .message_json(id)
        .map_or_else(|| fail(404, 10008, "Unknown Message"), ok))
}

/// `GET|PATCH|DELETE /webhooks/{app}/{token}/messages/{@original|id}`.
pub fn webhook_message(
    state: &mut State,
    method: &str,
    app: u64,
    token: &str,
    which: &str,
    body: &Value,
) -> Routed {
    let iid = webhook_interaction(state, app, token)?;
    let mid = if which == "@original" {
        state.interactions.get(&iid).and_then(|rec| rec.original)
    } else {
        which.parse::<u64>().ok()
    };
    let Some(mid) = mid.filter(|id| state.messages.get(id).is_some_and(|m| !m.deleted)) else {
        return Err(fail(404, 10008, "Unknown Message"));
    };
    match method {
        "GET" => Ok(state
            .message_json(mid)
            .map_or_else(|| fail(404, 10008, "Unknown Message"), ok)),
        "DELETE" => {
            remove(state, mid);
            record(state, iid, &json!({ "deleted": mid.to_string() }));
            Ok(Reply::Empty(204))
        }
        _ => {
            let reply = apply_bot_edit(state, mid, body)?;
            record(state, iid, body);
            Ok(reply)
        }
    }
}
