//! A fake Discord on 127.0.0.1 for tier-3 tests: the REST API (`/api/v10/...`, reached through
//! serenity's `HttpBuilder::proxy`) and a `ws://` gateway, both in one background thread.
//!
//! Tests drive it as the owner would use Discord (a DM, a button click, a slash command, a
//! reaction) and observe what the bot did: every REST call, the messages it sent and edited,
//! its reactions and interaction responses. Objects carry every field serenity requires
//! (see `objects.rs`); errors have Discord's codes and shapes.

mod drive;
mod gateway;
mod multipart;
mod objects;
mod rest;
mod rest_interactions;
mod rest_messages;
mod state;

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde_json::Value;

use state::State;

/// The bot's user id.
pub const BOT_ID: u64 = 1_200_000_000_000_000_001;
/// The application's id (READY, application info, command registration, webhooks).
pub const APP_ID: u64 = 1_200_000_000_000_000_002;
/// The owner: the application owner, and the person in [`DM_CHANNEL_ID`].
pub const OWNER_ID: u64 = 1_100_000_000_000_000_001;
/// Somebody who is not the owner.
pub const STRANGER_ID: u64 = 1_100_000_000_000_000_002;
/// The owner's DM channel with the bot.
pub const DM_CHANNEL_ID: u64 = 1_300_000_000_000_000_001;
/// The stranger's DM channel with the bot.
pub const STRANGER_DM_CHANNEL_ID: u64 = 1_300_000_000_000_000_002;
/// The one guild, where [`FakeDiscord::slash_in_guild`] happens.
pub const GUILD_ID: u64 = 1_400_000_000_000_000_001;
/// The guild's text channel.
pub const GUILD_CHANNEL_ID: u64 = 1_400_000_000_000_000_002;

/// How the fake misbehaves or paces itself.
#[derive(Debug, Clone)]
pub struct Options {
    /// Every REST call but `GET /gateway` answers 401, and IDENTIFY is closed with 4004.
    /// (`GET /gateway` stays open as on Discord: serenity falls back to the real gateway when
    /// it fails.)
    pub reject_token: bool,
    /// Close the connection with this code instead of sending READY (4014: disallowed intents).
    pub close_code_after_identify: Option<u16>,
    /// Application info without an owner (and no team).
    pub no_owner: bool,
    /// The heartbeat interval sent in HELLO.
    pub heartbeat_interval_ms: u64,
    /// Interaction callbacks later than this after INTERACTION_CREATE get 10062 "Unknown
    /// interaction", as on Discord (3000). 0 turns the deadline off.
    pub ack_deadline_ms: u64,
    /// The first this many application-info calls answer 503 Service Unavailable (an outage).
    pub unavailable_first: u32,
    /// The first this many `GET /gateway` (or `/gateway/bot`) calls answer 503.
    pub gateway_unavailable_first: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            reject_token: false,
            close_code_after_identify: None,
            no_owner: false,
            heartbeat_interval_ms: 41_250,
            ack_deadline_ms: 3_000,
            unavailable_first: 0,
            gateway_unavailable_first: 0,
        }
    }
}

/// One REST call as it arrived.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path without the query (`/api/v10/channels/1/messages`).
    pub path: String,
    /// The raw query string, empty when none.
    pub query: String,
    /// The JSON body (`payload_json` of a multipart body); `Null` when empty, a string when
    /// it was not JSON.
    pub body: Value,
    /// When its body had been read.
    pub at: Instant,
}

/// One edit of a bot message.
#[derive(Debug, Clone)]
pub struct Edit {
    pub at: Instant,
    /// The new content, when the edit set one.
    pub content: Option<String>,
    /// The whole PATCH body.
    pub body: Value,
}

/// A message as it stands now.
#[derive(Debug, Clone)]
pub struct Message {
    pub id: u64,
    pub channel_id: u64,
    pub content: String,
    /// The embeds array (Discord-normalised: `type: "rich"`).
    pub embeds: Value,
    /// The components array as last sent.
    pub components: Value,
    /// `message_reference.message_id`.
    pub reference: Option<u64>,
    /// Message flags (64 ephemeral, 128 "thinking…").
    pub flags: u64,
    pub created: Instant,
    pub edits: Vec<Edit>,
    pub deleted: bool,
    pub reactions_by_bot: Vec<String>,
    /// The attachment objects (for the bytes: [`FakeDiscord::attachment`]).
    pub attachments: Vec<Value>,
}

/// A file on a user's DM.
#[derive(Debug, Clone)]
pub struct Attachment {
    pub filename: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// A DM from a user, for [`FakeDiscord::send_dm_with`].
#[derive(Debug, Clone, Default)]
pub struct Dm {
    pub author: u64,
    pub content: String,
    pub attachments: Vec<Attachment>,
    /// Makes it a reply to this stored message.
    pub reply_to: Option<u64>,
}

/// The running fake; clones share it, and the last one dropped stops the servers.
#[derive(Clone)]
pub struct FakeDiscord {
    inner: Arc<Inner>,
}

struct Inner {
    state: Arc<Mutex<State>>,
    base_url: String,
    stop: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.lock().take() {
            let _ = stop.send(());
        }
    }
}

impl FakeDiscord {
    /// Starts both servers on 127.0.0.1 with default options.
    pub async fn start() -> FakeDiscord {
        Self::start_with(Options::default()).await
    }

    /// Starts both servers on 127.0.0.1 on random ports.
    pub async fn start_with(opts: Options) -> FakeDiscord {
        let rest = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the fake REST port");
        let gw = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the fake gateway port");
        gw.set_nonblocking(true)
            .expect("make the gateway listener non-blocking");
        let base_url = format!("http://{}", rest.local_addr().expect("REST address"));
        let gateway_url = format!("ws://{}", gw.local_addr().expect("gateway address"));
        let state = Arc::new(Mutex::new(State::new(opts, base_url.clone(), gateway_url)));
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let (up_tx, up_rx) = tokio::sync::oneshot::channel::<()>();
        let shared = Arc::clone(&state);
        std::thread::Builder::new()
            .name("fake-discord".into())
            .spawn(move || run_servers(rest, gw, shared, up_tx, stop_rx))
            .expect("start the fake Discord thread");
        up_rx.await.expect("the fake Discord servers started");
        FakeDiscord {
            inner: Arc::new(Inner {
                state,
                base_url,
                stop: Mutex::new(Some(stop_tx)),
            }),
        }
    }

    /// `http://127.0.0.1:PORT`: the value for `OLLIM_DISCORD_PROXY` / `HttpBuilder::proxy`.
    pub fn base_url(&self) -> String {
        self.inner.base_url.clone()
    }

    /// The `ws://` URL that `GET /gateway` hands out.
    pub fn gateway_url(&self) -> String {
        self.inner.state.lock().gateway_url.clone()
    }

    fn state(&self) -> parking_lot::MutexGuard<'_, State> {
        self.inner.state.lock()
    }

    /// Every REST call so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.state().requests.clone()
    }

    /// Messages the bot created in `channel` (interaction responses included), oldest first.
    pub fn bot_messages(&self, channel: u64) -> Vec<Message> {
        self.state()
            .messages
            .values()
            .filter(|m| m.channel_id == channel && state::by_bot(m))
            .map(state::StoredMessage::public)
            .collect()
    }

    /// Any stored message (a user's or the bot's) by id.
    pub fn message(&self, id: u64) -> Option<Message> {
        self.state()
            .messages
            .get(&id)
            .map(state::StoredMessage::public)
    }

    /// An attachment's file (a user's, or one the bot uploaded) by its id.
    pub fn attachment(&self, id: u64) -> Option<Attachment> {
        self.state()
            .attachments
            .get(&id)
            .map(|(filename, content_type, bytes)| Attachment {
                filename: filename.clone(),
                content_type: content_type.clone(),
                bytes: bytes.clone(),
            })
    }

    /// Emoji the bot has on `message_id` now (added minus removed).
    pub fn reactions_by_bot(&self, message_id: u64) -> Vec<String> {
        self.state()
            .messages
            .get(&message_id)
            .map(|m| m.reactions_by_bot.clone())
            .unwrap_or_default()
    }

    /// Callback bodies, then `@original` edits and followups, in arrival order.
    pub fn interaction_responses(&self, interaction_id: u64) -> Vec<Value> {
        self.state()
            .interactions
            .get(&interaction_id)
            .map(|rec| rec.responses.clone())
            .unwrap_or_default()
    }

    /// How many IDENTIFYs arrived.
    pub fn identify_count(&self) -> usize {
        self.state().identifies.len()
    }

    /// The `d` of every IDENTIFY (token, intents, properties), in order.
    pub fn identifies(&self) -> Vec<Value> {
        self.state().identifies.clone()
    }

    /// How many READYs were sent.
    pub fn ready_count(&self) -> usize {
        self.state().ready_count
    }

    /// How many heartbeats (op 1) arrived, over all connections.
    pub fn heartbeat_count(&self) -> usize {
        self.state().heartbeats
    }

    /// Every frame the gateway sent (HELLO, dispatches with their `s`, op 7/9, ACKs), in order.
    pub fn gateway_frames(&self) -> Vec<Value> {
        self.state().frames.clone()
    }

    /// Bodies of every bulk command overwrite, global and guild.
    pub fn command_overwrites(&self) -> Vec<Value> {
        self.state().overwrites.clone()
    }

    /// Polls `f` every 20 ms until it returns `Some`; panics naming `what` (with every REST call
    /// so far) after `timeout`.
    pub async fn wait_for<T>(
        &self,
        what: &str,
        timeout: Duration,
        mut f: impl FnMut(&FakeDiscord) -> Option<T>,
    ) -> T {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(v) = f(self) {
                return v;
            }
            if Instant::now() >= deadline {
                panic!(
                    "fake Discord: timed out after {timeout:?} waiting for {what}\n{}",
                    self.dump()
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// A readable list of the REST calls and the gateway counters, for failure messages.
    pub fn dump(&self) -> String {
        let s = self.state();
        let mut out = format!(
            "identify_count={} ready_count={} session={} requests ({}):\n",
            s.identifies.len(),
            s.ready_count,
            s.current.is_some(),
            s.requests.len()
        );
        for r in &s.requests {
            let mut body = r.body.to_string();
            if body.len() > 300 {
                let cut = (0..=300)
                    .rev()
                    .find(|&i| body.is_char_boundary(i))
                    .unwrap_or(0);
                body.truncate(cut);
                body.push('…');
            }
            let q = if r.query.is_empty() {
                String::new()
            } else {
                format!("?{}", r.query)
            };
            out.push_str(&format!("  {} {}{} {}\n", r.method, r.path, q, body));
        }
        out
    }
}

/// The background thread: an actix system running the REST server and the gateway until
/// the stop signal.
fn run_servers(
    rest: std::net::TcpListener,
    gw: std::net::TcpListener,
    state: Arc<Mutex<State>>,
    up: tokio::sync::oneshot::Sender<()>,
    stop: tokio::sync::oneshot::Receiver<()>,
) {
    actix_rt::System::new().block_on(async move {
        let server = rest::server(rest, Arc::clone(&state)).expect("start the fake REST server");
        let handle = server.handle();
        actix_rt::spawn(server);
        let listener =
            tokio::net::TcpListener::from_std(gw).expect("adopt the fake gateway listener");
        let gateway = tokio::spawn(gateway::serve(listener, state));
        let _ = up.send(());
        let _ = stop.await;
        gateway.abort();
        handle.stop(false).await;
    });
}
