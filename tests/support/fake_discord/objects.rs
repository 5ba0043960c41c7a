//! JSON builders for the Discord objects the fake hands out: users, channels, messages,
//! reactions, interactions, application info, commands, READY and error bodies. Every object
//! carries the fields serenity 0.12 insists on; a missing one makes serenity drop the object.

use serde_json::{json, Value};

use super::state::{State, StoredMessage};
use super::{APP_ID, BOT_ID, GUILD_CHANNEL_ID, GUILD_ID, OWNER_ID, STRANGER_ID};

/// Permissions granted to the bot in a DM: view, send, embed, attach, history, react.
pub const DM_PERMISSIONS: &str = "117824";

/// The size limit Discord reports for attachments (10 MiB).
const ATTACHMENT_SIZE_LIMIT: u64 = 10 * 1024 * 1024;

/// Snowflakes travel as strings.
pub fn sf(id: u64) -> Value {
    Value::String(id.to_string())
}

/// A Discord error body: `{code, message}`.
pub fn error(code: u64, message: &str) -> Value {
    json!({ "code": code, "message": message })
}

/// A form-validation error (code 50035) naming one field.
pub fn invalid_form(field: &str, error_code: &str, message: &str) -> Value {
    json!({
        "code": 50035,
        "message": "Invalid Form Body",
        "errors": { field: { "_errors": [{ "code": error_code, "message": message }] } },
    })
}

/// The public user object for a known or made-up id.
pub fn user(id: u64) -> Value {
    let (name, global, bot) = match id {
        BOT_ID => ("ollim-bot".to_owned(), "ollim-bot".to_owned(), true),
        OWNER_ID => ("owner".to_owned(), "Owner".to_owned(), false),
        STRANGER_ID => ("stranger".to_owned(), "Stranger".to_owned(), false),
        other => (format!("user{other}"), format!("User {other}"), false),
    };
    json!({
        "id": sf(id),
        "username": name,
        "discriminator": "0",
        "global_name": global,
        "avatar": null,
        "bot": bot,
        "public_flags": 0,
        "flags": 0,
    })
}

/// `GET /users/@me`: the bot as its own current user.
pub fn current_user() -> Value {
    let mut me = user(BOT_ID);
    me["verified"] = json!(true);
    me["mfa_enabled"] = json!(false);
    me["locale"] = json!("en-US");
    me
}

/// A DM channel with one recipient.
pub fn dm_channel(id: u64, recipient: u64, last_message_id: Option<u64>) -> Value {
    json!({
        "id": sf(id),
        "type": 1,
        "last_message_id": last_message_id.map(sf),
        "recipients": [user(recipient)],
        "flags": 0,
    })
}

/// The one guild text channel, used by guild slash commands.
pub fn guild_channel() -> Value {
    json!({
        "id": sf(GUILD_CHANNEL_ID),
        "type": 0,
        "guild_id": sf(GUILD_ID),
        "name": "general",
        "position": 0,
        "permission_overwrites": [],
        "nsfw": false,
        "topic": null,
        "parent_id": null,
        "last_message_id": null,
        "rate_limit_per_user": 0,
        "flags": 0,
    })
}

/// A guild member wrapping `user`.
pub fn member(user_id: u64) -> Value {
    json!({
        "user": user(user_id),
        "nick": null,
        "avatar": null,
        "roles": [],
        "joined_at": "2024-01-01T00:00:00.000000+00:00",
        "deaf": false,
        "mute": false,
        "flags": 0,
        "pending": false,
        "permissions": "2248473465835073",
    })
}

/// A reaction emoji: Unicode, or `name:id` for a custom one.
pub fn emoji(text: &str) -> Value {
    let parts: Vec<&str> = text.split(':').collect();
    match parts.as_slice() {
        [name, id] | [_, name, id] if is_snowflake(id) => {
            json!({ "id": id, "name": name, "animated": parts.len() == 3 })
        }
        _ => json!({ "id": null, "name": text }),
    }
}

/// True for a non-empty run of ASCII digits.
pub fn is_snowflake(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// A Discord timestamp string for "now".
pub fn now_timestamp() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, false)
}

/// The full message object, `referenced_message` included one level deep.
pub fn message(state: &State, m: &StoredMessage) -> Value {
    let mut v = message_shallow(state, m);
    if let Some(ref_id) = m.reference {
        v["message_reference"] = json!({
            "type": 0,
            "message_id": sf(ref_id),
            "channel_id": sf(m.channel_id),
        });
        v["referenced_message"] = match state.messages.get(&ref_id) {
            Some(r) if !r.deleted => message_shallow(state, r),
            _ => Value::Null,
        };
    }
    v
}

fn message_shallow(state: &State, m: &StoredMessage) -> Value {
    let mut v = json!({
        "id": sf(m.id),
        "channel_id": sf(m.channel_id),
        "author": user(m.author),
        "content": m.content,
        "timestamp": m.timestamp,
        "edited_timestamp": m.edited_timestamp,
        "tts": false,
        "mention_everyone": false,
        "mentions": [],
        "mention_roles": [],
        "attachments": m.attachments,
        "embeds": m.embeds,
        "components": m.components,
        "pinned": false,
        "type": m.kind,
        "flags": m.flags,
    });
    let reactions = reactions(m);
    if !reactions.is_empty() {
        v["reactions"] = Value::Array(reactions);
    }
    if let Some(interaction) = &m.interaction {
        v["application_id"] = sf(APP_ID);
        v["webhook_id"] = sf(APP_ID);
        v["interaction_metadata"] = interaction.clone();
    }
    if let Some(guild) = state.guild_of(m.channel_id) {
        v["guild_id"] = sf(guild);
    }
    v
}

/// The `reactions` array of a message: one entry per emoji, `me` for the bot's own.
fn reactions(m: &StoredMessage) -> Vec<Value> {
    let mut order: Vec<&str> = Vec::new();
    for (_, e) in &m.user_reactions {
        if !order.contains(&e.as_str()) {
            order.push(e);
        }
    }
    for e in &m.reactions_by_bot {
        if !order.contains(&e.as_str()) {
            order.push(e);
        }
    }
    order
        .into_iter()
        .map(|e| {
            let me = m.reactions_by_bot.iter().any(|b| b == e);
            let users = m.user_reactions.iter().filter(|(_, x)| x == e).count();
            let count = users + usize::from(me);
            json!({
                "count": count,
                "count_details": { "burst": 0, "normal": count },
                "me": me,
                "me_burst": false,
                "burst_colors": [],
                "emoji": emoji(e),
            })
        })
        .collect()
}

/// An attachment object served by the fake at `base/attachments/<id>/<filename>`.
pub fn attachment(base: &str, id: u64, filename: &str, content_type: &str, size: usize) -> Value {
    let url = format!("{base}/attachments/{id}/{filename}");
    json!({
        "id": sf(id),
        "filename": filename,
        "size": size,
        "url": url,
        "proxy_url": url,
        "content_type": content_type,
    })
}

/// The interaction envelope shared by commands and components; `channel` picks DM or guild.
pub fn interaction(
    id: u64,
    kind: u8,
    token: &str,
    user_id: u64,
    channel_id: u64,
    in_guild: bool,
    data: Value,
) -> Value {
    let mut v = json!({
        "id": sf(id),
        "application_id": sf(APP_ID),
        "type": kind,
        "data": data,
        "channel_id": sf(channel_id),
        "token": token,
        "version": 1,
        "app_permissions": DM_PERMISSIONS,
        "locale": "en-US",
        "entitlements": [],
        "authorizing_integration_owners": {},
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
    });
    if in_guild {
        v["guild_id"] = sf(GUILD_ID);
        v["guild_locale"] = json!("en-US");
        v["channel"] = guild_channel();
        v["member"] = member(user_id);
        v["context"] = json!(0);
    } else {
        v["channel"] = dm_channel(channel_id, user_id, None);
        v["user"] = user(user_id);
        v["context"] = json!(1);
    }
    v
}

/// The `interaction_metadata` of a message that answers an interaction.
pub fn interaction_metadata(id: u64, kind: u8, user_id: u64) -> Value {
    json!({
        "id": sf(id),
        "type": kind,
        "user": user(user_id),
        "authorizing_integration_owners": {},
    })
}

/// `GET /oauth2/applications/@me`.
pub fn application_info(with_owner: bool) -> Value {
    json!({
        "id": sf(APP_ID),
        "name": "ollim-bot",
        "icon": null,
        "description": "",
        "rpc_origins": [],
        "bot_public": false,
        "bot_require_code_grant": false,
        "verify_key": "0000000000000000000000000000000000000000000000000000000000000000",
        "owner": if with_owner { user(OWNER_ID) } else { Value::Null },
        "team": null,
        "flags": 0,
        "bot": user(BOT_ID),
    })
}

/// One registered command as Discord echoes it: the sent fields plus ids and defaults.
pub fn command(sent: &Value, id: u64, guild: Option<u64>, version: u64) -> Value {
    let mut v = match sent {
        Value::Object(map) => Value::Object(map.clone()),
        _ => json!({}),
    };
    v["id"] = sf(id);
    v["application_id"] = sf(APP_ID);
    v["version"] = sf(version);
    if v["type"].is_null() {
        v["type"] = json!(1);
    }
    for (key, default) in [
        ("description", json!("")),
        ("options", json!([])),
        ("default_member_permissions", Value::Null),
        ("nsfw", json!(false)),
    ] {
        if v.get(key).is_none() {
            v[key] = default;
        }
    }
    if let Some(g) = guild {
        v["guild_id"] = sf(g);
    } else if v.get("dm_permission").is_none() {
        v["dm_permission"] = json!(true);
    }
    v
}

/// The READY payload for one session.
pub fn ready(session_id: &str, gateway_url: &str) -> Value {
    json!({
        "v": 10,
        "user": current_user(),
        "guilds": [],
        "session_id": session_id,
        "resume_gateway_url": gateway_url,
        "shard": [0, 1],
        "application": { "id": sf(APP_ID), "flags": 0 },
        "private_channels": [],
        "relationships": [],
        "presences": [],
        "guild_join_requests": [],
        "geo_ordered_rtc_regions": [],
        "user_settings": {},
    })
}

/// `GET /gateway` and `GET /gateway/bot`.
pub fn gateway(url: &str) -> Value {
    json!({
        "url": url,
        "shards": 1,
        "session_start_limit": {
            "total": 1000,
            "remaining": 999,
            "reset_after": 14_400_000,
            "max_concurrency": 1,
        },
    })
}
