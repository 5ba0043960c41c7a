//! Driving the fake Discord as a person would: DMs (with attachments and replies), button
//! clicks, slash commands in a DM or a guild, reactions, and the gateway's session
//! invalidation and reconnect requests. Each becomes a gateway event on the current session.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::objects::{self, sf};
use super::state::{InteractionRec, NewMessage, Outbound, Session};
use super::{Dm, FakeDiscord, GUILD_CHANNEL_ID};

/// How long a driver waits for an identified gateway session (or a registered command).
const SESSION_WAIT: Duration = Duration::from_secs(30);

impl FakeDiscord {
    /// The current session, waiting up to 30 s; panics naming `what` when there is none.
    async fn session(&self, what: &str) -> Session {
        let deadline = Instant::now() + SESSION_WAIT;
        loop {
            if let Some(s) = self.state().current.clone() {
                if !s.tx.is_closed() {
                    return s;
                }
            }
            if Instant::now() >= deadline {
                panic!(
                    "fake Discord: no identified gateway session within {SESSION_WAIT:?} to \
                     deliver {what}; is the bot connected?\n{}",
                    self.dump()
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits for a session, then lets `build` store whatever the event needs and returns the
    /// dispatch to send; sent on that session.
    async fn dispatch_with<T>(
        &self,
        t: &str,
        build: impl FnOnce(&mut super::state::State) -> (Value, T),
    ) -> T {
        let session = self.session(t).await;
        let (d, out) = build(&mut self.state());
        let sent = session.tx.send(Outbound::Dispatch { t: t.to_owned(), d });
        if sent.is_err() {
            panic!(
                "fake Discord: the gateway session closed while delivering {t}\n{}",
                self.dump()
            );
        }
        out
    }

    /// The owner (or anyone) writes `content` in their DM with the bot; returns the message id.
    pub async fn send_dm(&self, author: u64, content: &str) -> u64 {
        self.send_dm_with(Dm {
            author,
            content: content.to_owned(),
            ..Dm::default()
        })
        .await
    }

    /// A DM with attachments and/or as a reply; returns the message id.
    pub async fn send_dm_with(&self, dm: Dm) -> u64 {
        self.dispatch_with("MESSAGE_CREATE", |s| {
            let channel = s.dm_channel_for(dm.author);
            if let Some(r) = dm.reply_to {
                assert!(
                    s.messages.contains_key(&r),
                    "fake Discord: send_dm_with replies to unknown message {r}"
                );
            }
            let mut new = NewMessage::text(channel, dm.author, &dm.content);
            for a in dm.attachments {
                let id = s.next_id();
                let v = objects::attachment(
                    &s.base_url,
                    id,
                    &a.filename,
                    &a.content_type,
                    a.bytes.len(),
                );
                new.attachments.push(v);
                s.attachments
                    .insert(id, (a.filename, a.content_type, a.bytes));
            }
            new.reference = dm.reply_to;
            new.kind = if dm.reply_to.is_some() { 19 } else { 0 };
            let id = s.insert_message(new);
            (s.message_json(id).unwrap_or(Value::Null), id)
        })
        .await
    }

    /// `user` clicks the button `custom_id` on `message_id`; returns the interaction id.
    /// Panics when the message has no such enabled button (Discord would show none).
    pub async fn click_button(&self, user: u64, message_id: u64, custom_id: &str) -> u64 {
        self.dispatch_with("INTERACTION_CREATE", |s| {
            let Some(message) = s.messages.get(&message_id).filter(|m| !m.deleted) else {
                panic!("fake Discord: click_button on unknown message {message_id}");
            };
            let buttons: Vec<&Value> = message
                .components
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|row| row["components"].as_array().into_iter().flatten())
                .filter(|c| c["type"] == 2)
                .collect();
            let usable = buttons
                .iter()
                .any(|b| b["custom_id"] == custom_id && b["disabled"] != true);
            assert!(
                usable,
                "fake Discord: message {message_id} has no enabled button {custom_id:?}; \
                 its components: {}",
                message.components
            );
            let channel = message.channel_id;
            let json = objects::message(s, message);
            let data = json!({ "custom_id": custom_id, "component_type": 2 });
            let (mut d, id) = new_interaction(s, 3, user, channel, data, Some(message_id));
            d["message"] = json;
            (d, id)
        })
        .await
    }

    /// `user` runs the slash command `name` in their DM; returns the interaction id.
    pub async fn slash(&self, user: u64, name: &str, options: Value) -> u64 {
        self.slash_at(user, name, options, false).await
    }

    /// `user` runs `name` in the guild channel (for the "DMs only" refusal).
    pub async fn slash_in_guild(&self, user: u64, name: &str, options: Value) -> u64 {
        self.slash_at(user, name, options, true).await
    }

    /// `user` is typing in `name`'s options (one of them `"focused": true`): an autocomplete
    /// interaction (type 4); returns its id (the choices are its response's `data.choices`).
    pub async fn autocomplete(&self, user: u64, name: &str, options: Value) -> u64 {
        self.interaction_at(user, name, options, false, 4).await
    }

    async fn slash_at(&self, user: u64, name: &str, options: Value, guild: bool) -> u64 {
        self.interaction_at(user, name, options, guild, 2).await
    }

    async fn interaction_at(
        &self,
        user: u64,
        name: &str,
        options: Value,
        guild: bool,
        kind: u8,
    ) -> u64 {
        let what = format!("the registration of command /{name}");
        let command = self
            .wait_for(&what, SESSION_WAIT, |f| f.state().command_id(name))
            .await;
        let options = if options.is_null() {
            json!([])
        } else {
            options
        };
        self.dispatch_with("INTERACTION_CREATE", |s| {
            let channel = if guild {
                GUILD_CHANNEL_ID
            } else {
                s.dm_channel_for(user)
            };
            let data = json!({ "id": sf(command), "name": name, "type": 1, "options": options });
            new_interaction(s, kind, user, channel, data, None)
        })
        .await
    }

    /// `user` reacts with the Unicode `emoji` on `message_id`.
    pub async fn react(&self, user: u64, message_id: u64, emoji: &str) {
        self.dispatch_with("MESSAGE_REACTION_ADD", |s| {
            let Some(m) = s.messages.get_mut(&message_id).filter(|m| !m.deleted) else {
                panic!("fake Discord: react on unknown message {message_id}");
            };
            m.user_reactions.push((user, emoji.to_owned()));
            let snapshot = m.clone();
            (s.reaction_event(user, &snapshot, emoji), ())
        })
        .await;
    }

    /// Op 9 (not resumable) on the current session: serenity identifies again about 5 s
    /// later, and READY fires again.
    pub async fn invalidate_session(&self) {
        self.end_session(
            "an invalid session (op 9)",
            json!({ "op": 9, "d": false, "s": null, "t": null }),
        )
        .await;
    }

    /// Op 7: serenity reconnects and tries to resume; the fake refuses, so it identifies anew.
    pub async fn request_reconnect(&self) {
        self.end_session(
            "a reconnect request (op 7)",
            json!({ "op": 7, "d": null, "s": null, "t": null }),
        )
        .await;
    }

    /// Sends `frame` and forgets the session at once, so later drivers wait for the next one.
    async fn end_session(&self, what: &str, frame: Value) {
        let session = self.session(what).await;
        {
            let mut s = self.state();
            if s.current.as_ref().is_some_and(|c| c.conn == session.conn) {
                s.current = None;
            }
        }
        let _ = session.tx.send(Outbound::Frame(frame));
    }
}

/// Records a new interaction and builds its INTERACTION_CREATE payload.
fn new_interaction(
    s: &mut super::state::State,
    kind: u8,
    user: u64,
    channel: u64,
    data: Value,
    message_id: Option<u64>,
) -> (Value, u64) {
    let id = s.next_id();
    let token = format!("fake-interaction-token-{id}");
    let in_guild = s.guild_of(channel).is_some();
    let d = objects::interaction(id, kind, &token, user, channel, in_guild, data);
    s.interactions.insert(
        id,
        InteractionRec {
            token,
            kind,
            user,
            channel_id: channel,
            message_id,
            created: Instant::now(),
            acknowledged: false,
            original: None,
            responses: Vec::new(),
        },
    );
    (d, id)
}
