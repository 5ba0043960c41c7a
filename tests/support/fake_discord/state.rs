//! The fake Discord's memory: channels, messages (the owner's and the bot's), attachments,
//! registered commands, interactions, the gateway session that is current, and every REST call.
//! Shared by the REST server, the gateway and the test-facing API behind one mutex.

use std::collections::{BTreeMap, HashMap};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedSender;

use super::objects;
use super::STRANGER_ID;
use super::{Edit, Message, Options, Request};
use super::{BOT_ID, DM_CHANNEL_ID, GUILD_CHANNEL_ID, GUILD_ID, OWNER_ID, STRANGER_DM_CHANNEL_ID};

/// Discord's epoch (2015-01-01) in Unix milliseconds, for snowflakes.
const DISCORD_EPOCH_MS: u64 = 1_420_070_400_000;

/// Generated ids start above this, clear of the fixed ids of users and channels.
const ID_FLOOR: u64 = 1_450_000_000_000_000_000;

/// Something for the gateway connection to write.
#[derive(Debug)]
pub enum Outbound {
    /// An op-0 dispatch; the connection gives it the next sequence number.
    Dispatch { t: String, d: Value },
    /// A raw frame such as op 7 or op 9.
    Frame(Value),
}

/// The identified gateway connection that dispatches go to.
#[derive(Clone)]
pub struct Session {
    pub conn: u64,
    pub tx: UnboundedSender<Outbound>,
}

/// A channel the fake knows: a DM with `recipient`, or the guild channel.
#[derive(Debug, Clone, Copy)]
pub struct Channel {
    pub recipient: Option<u64>,
    pub guild: Option<u64>,
}

/// A message as stored, whoever wrote it.
#[derive(Debug, Clone)]
pub struct StoredMessage {
    pub id: u64,
    pub channel_id: u64,
    pub author: u64,
    pub content: String,
    pub embeds: Value,
    pub components: Value,
    pub attachments: Vec<Value>,
    pub reference: Option<u64>,
    pub kind: u8,
    pub flags: u64,
    pub timestamp: String,
    pub edited_timestamp: Option<String>,
    pub created: Instant,
    pub edits: Vec<Edit>,
    pub deleted: bool,
    pub reactions_by_bot: Vec<String>,
    pub user_reactions: Vec<(u64, String)>,
    /// `interaction_metadata` when the message answers an interaction.
    pub interaction: Option<Value>,
}

impl StoredMessage {
    /// The test-facing view.
    pub fn public(&self) -> Message {
        Message {
            id: self.id,
            channel_id: self.channel_id,
            content: self.content.clone(),
            embeds: self.embeds.clone(),
            components: self.components.clone(),
            reference: self.reference,
            flags: self.flags,
            created: self.created,
            edits: self.edits.clone(),
            deleted: self.deleted,
            reactions_by_bot: self.reactions_by_bot.clone(),
            attachments: self.attachments.clone(),
        }
    }
}

/// One interaction the fake sent, and what the bot answered.
#[derive(Debug, Clone)]
pub struct InteractionRec {
    pub token: String,
    /// 2 for a command, 3 for a component.
    pub kind: u8,
    pub user: u64,
    pub channel_id: u64,
    /// The message whose component was used.
    pub message_id: Option<u64>,
    pub created: Instant,
    pub acknowledged: bool,
    /// The message `@original` refers to, once there is one.
    pub original: Option<u64>,
    /// Callback bodies, `@original` edits and followups, in order.
    pub responses: Vec<Value>,
}

/// Everything the fake remembers.
pub struct State {
    pub opts: Options,
    pub base_url: String,
    pub gateway_url: String,
    pub requests: Vec<Request>,
    last_id: u64,
    pub channels: BTreeMap<u64, Channel>,
    pub messages: BTreeMap<u64, StoredMessage>,
    /// Attachment id → (filename, content type, bytes).
    pub attachments: HashMap<u64, (String, String, Vec<u8>)>,
    /// (guild or `None` for global, name) → the command as echoed.
    pub commands: BTreeMap<(Option<u64>, String), Value>,
    pub overwrites: Vec<Value>,
    pub interactions: BTreeMap<u64, InteractionRec>,
    pub identifies: Vec<Value>,
    pub ready_count: usize,
    pub heartbeats: usize,
    /// Every frame the gateway sent, on any connection.
    pub frames: Vec<Value>,
    pub current: Option<Session>,
    pub next_conn: u64,
}

impl State {
    pub fn new(opts: Options, base_url: String, gateway_url: String) -> Self {
        let mut channels = BTreeMap::new();
        for (id, user) in [
            (DM_CHANNEL_ID, OWNER_ID),
            (STRANGER_DM_CHANNEL_ID, STRANGER_ID),
        ] {
            channels.insert(
                id,
                Channel {
                    recipient: Some(user),
                    guild: None,
                },
            );
        }
        channels.insert(
            GUILD_CHANNEL_ID,
            Channel {
                recipient: None,
                guild: Some(GUILD_ID),
            },
        );
        State {
            opts,
            base_url,
            gateway_url,
            requests: Vec::new(),
            last_id: ID_FLOOR,
            channels,
            messages: BTreeMap::new(),
            attachments: HashMap::new(),
            commands: BTreeMap::new(),
            overwrites: Vec::new(),
            interactions: BTreeMap::new(),
            identifies: Vec::new(),
            ready_count: 0,
            heartbeats: 0,
            frames: Vec::new(),
            current: None,
            next_conn: 0,
        }
    }

    /// A fresh snowflake: time-based like Discord's, and always rising.
    pub fn next_id(&mut self) -> u64 {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let from_time = ms.saturating_sub(DISCORD_EPOCH_MS) << 22;
        self.last_id = from_time.max(self.last_id + 1);
        self.last_id
    }

    /// The guild a channel belongs to, if any.
    pub fn guild_of(&self, channel: u64) -> Option<u64> {
        self.channels.get(&channel).and_then(|c| c.guild)
    }

    /// The DM channel with `user`, created on first use.
    pub fn dm_channel_for(&mut self, user: u64) -> u64 {
        match user {
            OWNER_ID => return DM_CHANNEL_ID,
            STRANGER_ID => return STRANGER_DM_CHANNEL_ID,
            _ => {}
        }
        let existing = self
            .channels
            .iter()
            .find(|(_, c)| c.recipient == Some(user))
            .map(|(id, _)| *id);
        existing.unwrap_or_else(|| {
            let id = self.next_id();
            self.channels.insert(
                id,
                Channel {
                    recipient: Some(user),
                    guild: None,
                },
            );
            id
        })
    }

    /// The channel object for `id`, if the fake knows it.
    pub fn channel_json(&self, id: u64) -> Option<Value> {
        let channel = self.channels.get(&id)?;
        let last = self
            .messages
            .values()
            .rev()
            .find(|m| m.channel_id == id && !m.deleted)
            .map(|m| m.id);
        Some(match channel.recipient {
            Some(user) => objects::dm_channel(id, user, last),
            None => objects::guild_channel(),
        })
    }

    /// Stores a new message and returns its id.
    pub fn insert_message(&mut self, new: NewMessage) -> u64 {
        let id = self.next_id();
        let message = StoredMessage {
            id,
            channel_id: new.channel_id,
            author: new.author,
            content: new.content,
            embeds: new.embeds,
            components: new.components,
            attachments: new.attachments,
            reference: new.reference,
            kind: new.kind,
            flags: new.flags,
            timestamp: objects::now_timestamp(),
            edited_timestamp: None,
            created: Instant::now(),
            edits: Vec::new(),
            deleted: false,
            reactions_by_bot: Vec::new(),
            user_reactions: Vec::new(),
            interaction: new.interaction,
        };
        self.messages.insert(id, message);
        id
    }

    /// The full JSON of a stored message.
    pub fn message_json(&self, id: u64) -> Option<Value> {
        self.messages.get(&id).map(|m| objects::message(self, m))
    }

    /// Sends a dispatch to the current session; false when there is none to take it.
    pub fn dispatch(&mut self, t: &str, d: Value) -> bool {
        let Some(session) = &self.current else {
            return false;
        };
        let sent = session
            .tx
            .send(Outbound::Dispatch { t: t.to_owned(), d })
            .is_ok();
        if !sent {
            self.current = None;
        }
        sent
    }

    /// MESSAGE_CREATE for a stored message, unless it is ephemeral (Discord sends none then).
    pub fn dispatch_message(&mut self, t: &str, id: u64) {
        let Some(m) = self.messages.get(&id) else {
            return;
        };
        if m.flags & EPHEMERAL != 0 {
            return;
        }
        let json = objects::message(self, m);
        self.dispatch(t, json);
    }

    /// The reaction event payload for `user` and `emoji` on a stored message.
    pub fn reaction_event(&self, user: u64, message: &StoredMessage, emoji: &str) -> Value {
        let mut d = json!({
            "user_id": objects::sf(user),
            "channel_id": objects::sf(message.channel_id),
            "message_id": objects::sf(message.id),
            "emoji": objects::emoji(emoji),
            "burst": false,
            "burst_colors": [],
            "type": 0,
            "message_author_id": objects::sf(message.author),
        });
        if let Some(guild) = self.guild_of(message.channel_id) {
            d["guild_id"] = objects::sf(guild);
            d["member"] = objects::member(user);
        }
        d
    }

    /// The interaction whose token this is.
    pub fn interaction_by_token(&self, token: &str) -> Option<u64> {
        self.interactions
            .iter()
            .find(|(_, rec)| rec.token == token)
            .map(|(id, _)| *id)
    }

    /// A registered command's id by name: global first, then guild commands.
    pub fn command_id(&self, name: &str) -> Option<u64> {
        let global = self.commands.get(&(None, name.to_owned()));
        let any = global.or_else(|| {
            self.commands
                .iter()
                .find(|((_, n), _)| n == name)
                .map(|(_, c)| c)
        });
        any.and_then(|c| c["id"].as_str()?.parse().ok())
    }
}

/// Message flag: only the invoking user sees it.
pub const EPHEMERAL: u64 = 1 << 6;
/// Message flag: the "is thinking…" placeholder of a deferred interaction.
pub const LOADING: u64 = 1 << 7;
/// Message flag: no link previews.
pub const SUPPRESS_EMBEDS: u64 = 1 << 2;

/// A components value as stored: the array sent, or `[]`.
pub fn components_or_empty(v: &Value) -> Value {
    if v.is_array() {
        v.clone()
    } else {
        json!([])
    }
}

/// What [`State::insert_message`] needs.
pub struct NewMessage {
    pub channel_id: u64,
    pub author: u64,
    pub content: String,
    pub embeds: Value,
    pub components: Value,
    pub attachments: Vec<Value>,
    pub reference: Option<u64>,
    pub kind: u8,
    pub flags: u64,
    pub interaction: Option<Value>,
}

impl NewMessage {
    /// A plain message by `author` in `channel_id`.
    pub fn text(channel_id: u64, author: u64, content: &str) -> Self {
        NewMessage {
            channel_id,
            author,
            content: content.to_owned(),
            embeds: json!([]),
            components: json!([]),
            attachments: Vec::new(),
            reference: None,
            kind: 0,
            flags: 0,
            interaction: None,
        }
    }
}

/// Whether the bot wrote this message.
pub fn by_bot(m: &StoredMessage) -> bool {
    m.author == BOT_ID
}
