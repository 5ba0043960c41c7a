//! A minimal real serenity client (no poise, no ollim code) wired to the fake Discord through
//! `HttpBuilder::proxy`: an event handler that reports what it sees and answers DMs, clicks and
//! slash commands, plus a capture of serenity's own warnings.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;
use serenity::all::{
    ClientBuilder, CommandDataOptionValue, Context, CreateInteractionResponse,
    CreateInteractionResponseFollowup, CreateInteractionResponseMessage, EditMessage, EventHandler,
    GatewayIntents, Http, HttpBuilder, Interaction, Message, Reaction, Ready, ShardManager,
};
use serenity::async_trait;
use serenity::model::event::GatewayEvent;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::support::fake_discord::FakeDiscord;

pub const WAIT: Duration = Duration::from_secs(10);
/// Re-identifying after op 9 takes serenity about 5-10 s.
pub const REIDENTIFY_WAIT: Duration = Duration::from_secs(40);

/// What the handler saw and did, reported to the test.
#[derive(Debug)]
pub enum Seen {
    Ready,
    Dm {
        content: String,
        attachment: Option<Vec<u8>>,
        replied_to: Option<u64>,
    },
    Clicked {
        custom_id: String,
        second_ack_code: Option<isize>,
    },
    Slash {
        name: String,
        in_guild: bool,
        capacity: Option<i64>,
    },
    Reaction {
        user: u64,
        emoji: String,
    },
    Failed(String),
}

struct Handler {
    seen: mpsc::UnboundedSender<Seen>,
}

/// The Discord error code of a failed REST call.
pub fn discord_code(err: &serenity::Error) -> Option<isize> {
    match err {
        serenity::Error::Http(serenity::http::HttpError::UnsuccessfulRequest(resp)) => {
            Some(resp.error.code)
        }
        _ => None,
    }
}

#[async_trait]
impl EventHandler for Handler {
    async fn ready(&self, _ctx: Context, _ready: Ready) {
        let _ = self.seen.send(Seen::Ready);
    }

    async fn message(&self, ctx: Context, msg: Message) {
        if msg.author.bot {
            return;
        }
        let attachment = match msg.attachments.first() {
            Some(a) => a.download().await.ok(),
            None => None,
        };
        let replied_to = msg.referenced_message.as_ref().map(|m| m.id.get());
        let _ = self.seen.send(Seen::Dm {
            content: msg.content.clone(),
            attachment,
            replied_to,
        });
        if let Some(text) = msg.content.strip_prefix("echo ") {
            let result = async {
                let mut reply = msg
                    .channel_id
                    .say(&ctx.http, format!("you said {text}"))
                    .await?;
                reply
                    .edit(
                        &ctx,
                        EditMessage::new().content(format!("you said {text}!")),
                    )
                    .await
            };
            if let Err(e) = result.await {
                let _ = self.seen.send(Seen::Failed(format!("reply/edit: {e:?}")));
            }
        }
    }

    async fn interaction_create(&self, ctx: Context, interaction: Interaction) {
        match interaction {
            Interaction::Component(c) => {
                let answer = |text: &str| {
                    CreateInteractionResponse::Message(
                        CreateInteractionResponseMessage::new().content(text),
                    )
                };
                if let Err(e) = c.create_response(&ctx.http, answer("clicked")).await {
                    let _ = self
                        .seen
                        .send(Seen::Failed(format!("click response: {e:?}")));
                }
                let second = c.create_response(&ctx.http, answer("again")).await;
                let _ = self.seen.send(Seen::Clicked {
                    custom_id: c.data.custom_id.clone(),
                    second_ack_code: second.err().as_ref().and_then(discord_code),
                });
            }
            Interaction::Command(c) => {
                let capacity = c.data.options.iter().find_map(|o| match o.value {
                    CommandDataOptionValue::Integer(n) if o.name == "capacity" => Some(n),
                    _ => None,
                });
                let result = if c.guild_id.is_some() {
                    let ephemeral = CreateInteractionResponseMessage::new()
                        .content("DMs only")
                        .ephemeral(true);
                    c.create_response(&ctx.http, CreateInteractionResponse::Message(ephemeral))
                        .await
                } else {
                    let followup = CreateInteractionResponseFollowup::new().content("capacity set");
                    match c.defer(&ctx.http).await {
                        Ok(()) => c.create_followup(&ctx.http, followup).await.map(|_| ()),
                        Err(e) => Err(e),
                    }
                };
                if let Err(e) = result {
                    let _ = self.seen.send(Seen::Failed(format!("slash: {e:?}")));
                }
                let _ = self.seen.send(Seen::Slash {
                    name: c.data.name.clone(),
                    in_guild: c.guild_id.is_some(),
                    capacity,
                });
            }
            _ => {}
        }
    }

    async fn reaction_add(&self, _ctx: Context, reaction: Reaction) {
        let _ = self.seen.send(Seen::Reaction {
            user: reaction.user_id.map_or(0, |u| u.get()),
            emoji: reaction.emoji.to_string(),
        });
    }
}

/// A running serenity client wired to the fake.
pub struct Bot {
    pub http: Arc<Http>,
    seen: mpsc::UnboundedReceiver<Seen>,
    shards: Arc<ShardManager>,
    pub task: JoinHandle<serenity::Result<()>>,
}

impl Bot {
    pub async fn start(fake: &FakeDiscord) -> Bot {
        let (tx, seen) = mpsc::unbounded_channel();
        let http = HttpBuilder::new("fake-token")
            .proxy(fake.base_url())
            .ratelimiter_disabled(true)
            .build();
        let intents = GatewayIntents::DIRECT_MESSAGES
            | GatewayIntents::DIRECT_MESSAGE_REACTIONS
            | GatewayIntents::MESSAGE_CONTENT;
        let mut client = ClientBuilder::new_with_http(http, intents)
            .event_handler(Handler { seen: tx })
            .await
            .expect("build the serenity client");
        let http = Arc::clone(&client.http);
        let shards = Arc::clone(&client.shard_manager);
        let task = tokio::spawn(async move { client.start().await });
        Bot {
            http,
            seen,
            shards,
            task,
        }
    }

    /// The next report that `pick` accepts (others are skipped); a `Failed` report fails.
    pub async fn expect<T>(&mut self, what: &str, mut pick: impl FnMut(Seen) -> Option<T>) -> T {
        self.expect_within(what, WAIT, &mut pick).await
    }

    pub async fn expect_within<T>(
        &mut self,
        what: &str,
        wait: Duration,
        mut pick: impl FnMut(Seen) -> Option<T>,
    ) -> T {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let next = tokio::time::timeout_at(deadline, self.seen.recv()).await;
            match next {
                Ok(Some(Seen::Failed(why))) => panic!("the serenity handler failed: {why}"),
                Ok(Some(seen)) => {
                    if let Some(v) = pick(seen) {
                        return v;
                    }
                }
                Ok(None) => panic!("the handler went away while waiting for {what}"),
                Err(_) => panic!("timed out waiting for {what}"),
            }
        }
    }

    pub async fn stop(self) {
        self.shards.shutdown_all().await;
        self.task.abort();
    }
}

/// serenity's warnings, written to a buffer (each test runs in its own process under nextest;
/// under `cargo test` the first test to ask installs the subscriber and the others share it).
pub fn capture_serenity_warnings() -> Arc<Mutex<Vec<u8>>> {
    static BUFFER: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    let buffer = BUFFER.get_or_init(|| Arc::new(Mutex::new(Vec::new())));
    let sink = Arc::clone(buffer);
    let _ = tracing_subscriber::fmt()
        .with_env_filter("serenity=warn")
        .with_ansi(false)
        .with_writer(move || SharedWriter(Arc::clone(&sink)))
        .try_init();
    Arc::clone(buffer)
}

struct SharedWriter(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for SharedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every gateway frame the fake sent reads as a serenity `GatewayEvent`, and serenity warned
/// about no frame it could not read and no unexpected success status.
pub fn assert_serenity_reads_everything(fake: &FakeDiscord, warnings: &Mutex<Vec<u8>>) {
    for frame in fake.gateway_frames() {
        if let Err(e) = serde_json::from_value::<GatewayEvent>(frame.clone()) {
            panic!("serenity cannot read {frame}: {e}");
        }
    }
    let log = String::from_utf8_lossy(&warnings.lock()).into_owned();
    for bad in [
        "Err deserializing",
        "Mismatched successful response",
        "Sequence off",
    ] {
        assert!(!log.contains(bad), "serenity warned: {log}");
    }
}
