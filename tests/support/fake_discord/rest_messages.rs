//! The fake's channel-message routes: send, fetch, history, edit, delete and reactions, with
//! Discord's checks (empty or over-long messages, unknown replies, other users' messages in a
//! DM, emoji that are names rather than Unicode) and the gateway events Discord sends back.

use serde_json::{json, Value};

use super::multipart::File;
use super::objects::{self, is_snowflake, sf};
use super::rest::{empty_message, fail, ok, Reply};
use std::time::Instant;

use super::state::{self, NewMessage, State, EPHEMERAL, LOADING, SUPPRESS_EMBEDS};
use super::Edit;
use super::BOT_ID;

type Routed = Result<Reply, Reply>;

/// Fails with 10003 unless the channel exists.
pub fn known_channel(state: &State, cid: u64) -> Result<(), Reply> {
    if state.channels.contains_key(&cid) {
        Ok(())
    } else {
        Err(fail(404, 10003, "Unknown Channel"))
    }
}

/// The live message `mid` in channel `cid`, or 10008.
fn live(state: &State, cid: u64, mid: u64) -> Result<(), Reply> {
    known_channel(state, cid)?;
    match state.messages.get(&mid) {
        Some(m) if m.channel_id == cid && !m.deleted => Ok(()),
        _ => Err(fail(404, 10008, "Unknown Message")),
    }
}

/// `GET /channels/{id}/messages`: newest first, honouring `limit`, `before` and `after`.
pub fn history(state: &State, cid: u64, query: &str) -> Routed {
    known_channel(state, cid)?;
    let param = |key: &str| {
        query.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k == key).then(|| v.parse::<u64>().ok()).flatten()
        })
    };
    let limit = param("limit").unwrap_or(50).clamp(1, 100) as usize;
    let before = param("before").unwrap_or(u64::MAX);
    let after = param("after").unwrap_or(0);
    let list: Vec<Value> = state
        .messages
        .values()
        .rev()
        .filter(|m| m.channel_id == cid && !m.deleted && m.id < before && m.id > after)
        .filter(|m| m.flags & EPHEMERAL == 0)
        .take(limit)
        .map(|m| objects::message(state, m))
        .collect();
    Ok(ok(Value::Array(list)))
}

/// `GET /channels/{cid}/messages/{mid}`.
pub fn get(state: &State, cid: u64, mid: u64) -> Routed {
    live(state, cid, mid)?;
    Ok(state
        .message_json(mid)
        .map_or_else(|| fail(404, 10008, "Unknown Message"), ok))
}

/// Discord normalises embeds: every embed gets `type: "rich"`, every field `inline`.
pub fn normalize_embeds(v: &Value) -> Value {
    let Some(list) = v.as_array() else {
        return json!([]);
    };
    let out = list
        .iter()
        .map(|e| {
            let mut e = e.clone();
            if e.is_object() && e.get("type").is_none() {
                e["type"] = json!("rich");
            }
            if let Some(fields) = e.get_mut("fields").and_then(Value::as_array_mut) {
                for f in fields.iter_mut().filter(|f| f.is_object()) {
                    if f.get("inline").is_none() {
                        f["inline"] = json!(false);
                    }
                }
            }
            e
        })
        .collect();
    Value::Array(out)
}

fn too_long(field: &str, max: usize) -> Reply {
    Reply::Json(
        400,
        objects::invalid_form(
            field,
            "BASE_TYPE_MAX_LENGTH",
            &format!("Must be {max} or fewer in length."),
        ),
    )
}

/// Discord's limits on a message body: content, embeds and components.
pub fn check_body(body: &Value) -> Result<(), Reply> {
    if !body.is_object() {
        return Err(fail(400, 50109, "The request body contains invalid JSON."));
    }
    let chars = |v: &Value| v.as_str().map_or(0, |s| s.chars().count());
    if chars(&body["content"]) > 2000 {
        return Err(too_long("content", 2000));
    }
    let embeds = body["embeds"].as_array().map_or(&[][..], Vec::as_slice);
    if embeds.len() > 10 {
        return Err(too_long("embeds", 10));
    }
    for (n, e) in embeds.iter().enumerate() {
        if chars(&e["title"]) > 256 {
            return Err(too_long(&format!("embeds.{n}.title"), 256));
        }
        if chars(&e["description"]) > 4096 {
            return Err(too_long(&format!("embeds.{n}.description"), 4096));
        }
        for (k, f) in e["fields"].as_array().into_iter().flatten().enumerate() {
            if chars(&f["name"]) > 256 || chars(&f["value"]) > 1024 {
                return Err(too_long(&format!("embeds.{n}.fields.{k}.value"), 1024));
            }
        }
    }
    check_components(&body["components"])
}

/// Action rows holding buttons (2) or select menus (3, 5-8), as Discord accepts them.
fn check_components(v: &Value) -> Result<(), Reply> {
    let bad = |path: String, message: &str| {
        Err(Reply::Json(
            400,
            objects::invalid_form(&path, "COMPONENT_INVALID", message),
        ))
    };
    let Some(rows) = v.as_array() else {
        return Ok(());
    };
    if rows.len() > 5 {
        return Err(too_long("components", 5));
    }
    for (r, row) in rows.iter().enumerate() {
        if row["type"] != 1 {
            return bad(format!("components.{r}.type"), "Expected an action row");
        }
        let items = row["components"].as_array().map_or(&[][..], Vec::as_slice);
        if items.is_empty() || items.len() > 5 {
            return bad(format!("components.{r}.components"), "1 to 5 components");
        }
        for (c, item) in items.iter().enumerate() {
            let path = format!("components.{r}.components.{c}");
            match item["type"].as_u64() {
                Some(2) => {
                    let link = item["style"] == 5;
                    let id = item["custom_id"].as_str().unwrap_or("");
                    if !link && (id.is_empty() || id.chars().count() > 100) {
                        return bad(format!("{path}.custom_id"), "1 to 100 characters");
                    }
                    if item["label"]
                        .as_str()
                        .is_some_and(|l| l.chars().count() > 80)
                    {
                        return Err(too_long(&format!("{path}.label"), 80));
                    }
                }
                Some(3 | 5..=8) => {}
                _ => return bad(format!("{path}.type"), "Unknown component type"),
            }
        }
    }
    Ok(())
}

/// Stores uploaded files as attachments served by the fake.
pub fn store_files(state: &mut State, files: Vec<File>) -> Vec<Value> {
    files
        .into_iter()
        .map(|f| {
            let id = state.next_id();
            let v = objects::attachment(
                &state.base_url,
                id,
                &f.filename,
                &f.content_type,
                f.bytes.len(),
            );
            state
                .attachments
                .insert(id, (f.filename, f.content_type, f.bytes));
            v
        })
        .collect()
}

/// The message fields of a body (for channel messages and interaction responses).
pub fn new_message(state: &mut State, cid: u64, body: &Value, files: Vec<File>) -> NewMessage {
    let mut new = NewMessage::text(cid, BOT_ID, body["content"].as_str().unwrap_or(""));
    new.embeds = normalize_embeds(&body["embeds"]);
    new.components = state::components_or_empty(&body["components"]);
    new.attachments = store_files(state, files);
    new.flags = body["flags"].as_u64().unwrap_or(0) & (SUPPRESS_EMBEDS | EPHEMERAL | 4096);
    new
}

/// True when a message would show nothing.
pub fn is_empty(new: &NewMessage) -> bool {
    new.content.trim().is_empty()
        && new.embeds.as_array().is_none_or(Vec::is_empty)
        && new.attachments.is_empty()
}

/// `POST /channels/{id}/messages`: stores the bot's message and echoes it on the gateway.
pub fn create(state: &mut State, cid: u64, body: &Value, files: Vec<File>) -> Routed {
    known_channel(state, cid)?;
    check_body(body)?;
    let reference = match body["message_reference"]["message_id"].as_str() {
        Some(id) => {
            let found = id.parse::<u64>().ok().filter(|id| {
                state
                    .messages
                    .get(id)
                    .is_some_and(|m| m.channel_id == cid && !m.deleted)
            });
            if found.is_none() && body["message_reference"]["fail_if_not_exists"] != false {
                return Err(Reply::Json(
                    400,
                    objects::invalid_form(
                        "message_reference",
                        "MESSAGE_REFERENCE_UNKNOWN_MESSAGE",
                        "Unknown message",
                    ),
                ));
            }
            found
        }
        None => None,
    };
    let mut new = new_message(state, cid, body, files);
    new.flags &= !EPHEMERAL;
    if is_empty(&new) {
        return Err(empty_message());
    }
    new.reference = reference;
    new.kind = if reference.is_some() { 19 } else { 0 };
    let id = state.insert_message(new);
    state.dispatch_message("MESSAGE_CREATE", id);
    Ok(state
        .message_json(id)
        .map_or_else(|| fail(404, 10008, "Unknown Message"), ok))
}

/// Applies content/embeds/components/flags from an edit body and records the edit.
pub fn apply_edit(state: &mut State, id: u64, body: &Value) {
    let Some(m) = state.messages.get_mut(&id) else {
        return;
    };
    if let Some(content) = body.get("content") {
        m.content = content.as_str().unwrap_or("").to_owned();
    }
    if let Some(embeds) = body.get("embeds") {
        m.embeds = normalize_embeds(embeds);
    }
    if let Some(components) = body.get("components") {
        m.components = state::components_or_empty(components);
    }
    if let Some(attachments) = body.get("attachments").and_then(Value::as_array) {
        let keep: Vec<&Value> = attachments.iter().map(|a| &a["id"]).collect();
        m.attachments.retain(|a| keep.contains(&&a["id"]));
    }
    if let Some(flags) = body.get("flags").and_then(Value::as_u64) {
        m.flags = (m.flags & (EPHEMERAL | LOADING)) | (flags & SUPPRESS_EMBEDS);
    }
    m.flags &= !LOADING;
    m.edited_timestamp = Some(objects::now_timestamp());
    m.edits.push(Edit {
        at: Instant::now(),
        content: body
            .get("content")
            .map(|c| c.as_str().unwrap_or("").to_owned()),
        body: body.clone(),
    });
}

/// Applies an edit to a bot message and echoes MESSAGE_UPDATE; shared with webhook edits.
pub fn apply_bot_edit(state: &mut State, mid: u64, body: &Value) -> Routed {
    check_body(body)?;
    apply_edit(state, mid, body);
    let json = state.message_json(mid).unwrap_or(Value::Null);
    if state
        .messages
        .get(&mid)
        .is_some_and(|m| m.flags & EPHEMERAL == 0)
    {
        state.dispatch("MESSAGE_UPDATE", json.clone());
    }
    Ok(ok(json))
}

/// `PATCH /channels/{cid}/messages/{mid}`.
pub fn edit(state: &mut State, cid: u64, mid: u64, body: &Value) -> Routed {
    live(state, cid, mid)?;
    if !state.messages.get(&mid).is_some_and(state::by_bot) {
        return Err(fail(
            403,
            50005,
            "Cannot edit a message authored by another user",
        ));
    }
    apply_bot_edit(state, mid, body)
}

/// Marks a message deleted and echoes MESSAGE_DELETE.
pub fn remove(state: &mut State, mid: u64) {
    let Some(m) = state.messages.get_mut(&mid) else {
        return;
    };
    m.deleted = true;
    let d = json!({ "id": sf(mid), "channel_id": sf(m.channel_id) });
    if m.flags & EPHEMERAL == 0 {
        state.dispatch("MESSAGE_DELETE", d);
    }
}

/// `DELETE /channels/{cid}/messages/{mid}`: the bot may delete only its own messages in a DM.
pub fn delete(state: &mut State, cid: u64, mid: u64) -> Routed {
    live(state, cid, mid)?;
    let own = state.messages.get(&mid).is_some_and(state::by_bot);
    if !own && state.guild_of(cid).is_none() {
        return Err(fail(403, 50003, "Cannot execute action on a DM channel"));
    }
    remove(state, mid);
    Ok(Reply::Empty(204))
}

/// A reaction emoji Discord accepts in a DM: Unicode, or `name:id` of a custom emoji.
fn valid_emoji(text: &str) -> bool {
    let custom = text
        .rsplit_once(':')
        .is_some_and(|(name, id)| !name.is_empty() && is_snowflake(id));
    custom || !text.is_ascii()
}

/// `PUT|DELETE /channels/{cid}/messages/{mid}/reactions/{emoji}/{@me|user}`.
pub fn reaction(
    state: &mut State,
    add: bool,
    cid: u64,
    mid: u64,
    emoji: &str,
    who: &str,
) -> Routed {
    live(state, cid, mid)?;
    if !valid_emoji(emoji) {
        return Err(fail(400, 10014, "Unknown Emoji"));
    }
    let Some(m) = state.messages.get_mut(&mid) else {
        return Err(fail(404, 10008, "Unknown Message"));
    };
    if who != "@me" {
        let user = super::rest::snowflake(who)?;
        if add {
            return Err(super::rest::not_found());
        }
        if m.channel_id != super::GUILD_CHANNEL_ID {
            return Err(fail(403, 50003, "Cannot execute action on a DM channel"));
        }
        m.user_reactions
            .retain(|(u, e)| !(*u == user && e == emoji));
        return Ok(Reply::Empty(204));
    }
    let had = m.reactions_by_bot.iter().any(|e| e == emoji);
    match (add, had) {
        (true, false) => m.reactions_by_bot.push(emoji.to_owned()),
        (false, true) => m.reactions_by_bot.retain(|e| e != emoji),
        _ => return Ok(Reply::Empty(204)),
    }
    let snapshot = m.clone();
    let d = state.reaction_event(BOT_ID, &snapshot, emoji);
    let t = if add {
        "MESSAGE_REACTION_ADD"
    } else {
        "MESSAGE_REACTION_REMOVE"
    };
    state.dispatch(t, d);
    Ok(Reply::Empty(204))
}
