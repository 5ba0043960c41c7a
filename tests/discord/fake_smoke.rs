//! The fake Discord against a minimal real serenity client (no poise, no ollim code): the
//! client connects through `HttpBuilder::proxy`, gets READY, DMs, button clicks, slash
//! commands and reactions, and what it does back shows up in the fake's records.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;

use serde_json::json;
use serenity::all::{
    ChannelId, ClientBuilder, Command, CommandDataOptionValue, Context, CreateActionRow,
    CreateButton, CreateCommand, CreateCommandOption, CreateInteractionResponse,
    CreateInteractionResponseFollowup, CreateInteractionResponseMessage, CreateMessage,
    EditMessage, EventHandler, GatewayIntents, Http, HttpBuilder, Interaction, Message, MessageId,
    Reaction, ReactionType, Ready, ShardManager,
};
use serenity::async_trait;
use serenity::model::event::GatewayEvent;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::support::fake_discord::{
    Attachment, Dm, FakeDiscord, Options, BOT_ID, DM_CHANNEL_ID, GUILD_CHANNEL_ID, OWNER_ID,
};

const WAIT: Duration = Duration::from_secs(10);
/// Re-identifying after op 9 takes serenity about 5-10 s.
const REIDENTIFY_WAIT: Duration = Duration::from_secs(40);

/// What the handler saw and did, reported to the test.
#[derive(Debug)]
enum Seen {
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
fn discord_code(err: &serenity::Error) -> Option<isize> {
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
struct Bot {
    http: Arc<Http>,
    seen: mpsc::UnboundedReceiver<Seen>,
    shards: Arc<ShardManager>,
    task: JoinHandle<serenity::Result<()>>,
}

impl Bot {
    async fn start(fake: &FakeDiscord) -> Bot {
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
    async fn expect<T>(&mut self, what: &str, mut pick: impl FnMut(Seen) -> Option<T>) -> T {
        self.expect_within(what, WAIT, &mut pick).await
    }

    async fn expect_within<T>(
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

    async fn stop(self) {
        self.shards.shutdown_all().await;
        self.task.abort();
    }
}

/// serenity's warnings, written to a buffer (each test runs in its own process under nextest;
/// under `cargo test` the first test to ask installs the subscriber and the others share it).
fn capture_serenity_warnings() -> Arc<Mutex<Vec<u8>>> {
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
fn assert_serenity_reads_everything(fake: &FakeDiscord, warnings: &Mutex<Vec<u8>>) {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serenity_client_meets_the_fake() {
    let warnings = capture_serenity_warnings();
    let fake = FakeDiscord::start().await;
    let mut bot = Bot::start(&fake).await;
    bot.expect("READY", |s| matches!(s, Seen::Ready).then_some(()))
        .await;
    assert_eq!(fake.identify_count(), 1);
    assert_eq!(fake.ready_count(), 1);

    // A DM reaches the handler; its reply and the edit land in the channel.
    let dm = fake.send_dm(OWNER_ID, "echo hello").await;
    let content = bot
        .expect("the DM", |s| match s {
            Seen::Dm { content, .. } => Some(content),
            _ => None,
        })
        .await;
    assert_eq!(content, "echo hello");
    let reply = fake
        .wait_for("the edited reply", WAIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| !m.edits.is_empty())
        })
        .await;
    assert_eq!(reply.content, "you said hello!");
    assert_eq!(reply.edits[0].content.as_deref(), Some("you said hello!"));
    let posts = fake
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/messages"))
        .count();
    assert_eq!(posts, 1, "one message sent");

    // The owner reacts (the handler sees it); the bot reacts through REST.
    fake.react(OWNER_ID, reply.id, "👍").await;
    let (user, emoji) = bot
        .expect("the owner's reaction", |s| match s {
            Seen::Reaction { user, emoji } if user == OWNER_ID => Some((user, emoji)),
            _ => None,
        })
        .await;
    assert_eq!((user, emoji.as_str()), (OWNER_ID, "👍"));
    ChannelId::new(DM_CHANNEL_ID)
        .create_reaction(
            &bot.http,
            MessageId::new(dm),
            ReactionType::Unicode("👀".into()),
        )
        .await
        .expect("add a reaction");
    assert_eq!(fake.reactions_by_bot(dm), vec!["👀".to_owned()]);
    let named = ChannelId::new(DM_CHANNEL_ID)
        .create_reaction(
            &bot.http,
            MessageId::new(dm),
            ReactionType::Unicode("eyes".into()),
        )
        .await
        .expect_err("a named emoji is refused");
    assert_eq!(discord_code(&named), Some(10014));

    // A button click reaches interaction_create; the response is recorded, a second one refused.
    let row = CreateActionRow::Buttons(vec![CreateButton::new("go").label("Go")]);
    let with_button = ChannelId::new(DM_CHANNEL_ID)
        .send_message(
            &bot.http,
            CreateMessage::new().content("pick").components(vec![row]),
        )
        .await
        .expect("send a message with a button");
    let click = fake
        .click_button(OWNER_ID, with_button.id.get(), "go")
        .await;
    let (custom_id, second) = bot
        .expect("the click", |s| match s {
            Seen::Clicked {
                custom_id,
                second_ack_code,
            } => Some((custom_id, second_ack_code)),
            _ => None,
        })
        .await;
    assert_eq!(custom_id, "go");
    assert_eq!(second, Some(40060));
    let responses = fake.interaction_responses(click);
    assert_eq!(responses.len(), 1);
    assert_eq!(responses[0]["type"], 4);
    assert_eq!(responses[0]["data"]["content"], "clicked");
    assert!(fake
        .bot_messages(DM_CHANNEL_ID)
        .iter()
        .any(|m| m.content == "clicked"));

    // A session invalidation makes serenity identify again.
    fake.invalidate_session().await;
    bot.expect_within("a second READY", REIDENTIFY_WAIT, |s| {
        matches!(s, Seen::Ready).then_some(())
    })
    .await;
    assert_eq!(fake.ready_count(), 2);
    assert_eq!(fake.identify_count(), 2);
    fake.send_dm(OWNER_ID, "still there?").await;
    bot.expect("a DM on the new session", |s| match s {
        Seen::Dm { content, .. } if content == "still there?" => Some(()),
        _ => None,
    })
    .await;

    // A reconnect request: serenity tries to resume, is refused, and identifies again.
    fake.request_reconnect().await;
    bot.expect_within("a third READY", REIDENTIFY_WAIT, |s| {
        matches!(s, Seen::Ready).then_some(())
    })
    .await;
    assert_eq!(fake.ready_count(), 3);
    assert!(fake
        .gateway_frames()
        .iter()
        .any(|f| f["op"] == 9 && f["d"] == false));

    // Deleting the bot's own message works; the owner's is refused in a DM.
    with_button
        .delete(&bot.http)
        .await
        .expect("delete the bot's message");
    assert!(fake
        .message(with_button.id.get())
        .is_some_and(|m| m.deleted));
    let theirs = ChannelId::new(DM_CHANNEL_ID)
        .delete_message(&bot.http, MessageId::new(dm))
        .await
        .expect_err("the owner's message stays");
    assert_eq!(discord_code(&theirs), Some(50003));

    bot.stop().await;
    assert_serenity_reads_everything(&fake, &warnings);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_commands_attachments_and_replies() {
    let warnings = capture_serenity_warnings();
    let fake = FakeDiscord::start().await;
    let mut bot = Bot::start(&fake).await;
    bot.expect("READY", |s| matches!(s, Seen::Ready).then_some(()))
        .await;
    let command = CreateCommand::new("capacity")
        .description("Set the ping budget")
        .add_option(CreateCommandOption::new(
            serenity::all::CommandOptionType::Integer,
            "capacity",
            "How many",
        ));
    let registered = Command::set_global_commands(&bot.http, vec![command])
        .await
        .expect("register the commands");
    assert_eq!(registered[0].name, "capacity");
    assert_eq!(fake.command_overwrites().len(), 1);

    // In a DM: deferred, then the followup fills the "thinking" message.
    let slash = fake
        .slash(
            OWNER_ID,
            "capacity",
            json!([{ "name": "capacity", "type": 4, "value": 5 }]),
        )
        .await;
    let (name, in_guild, capacity) = bot
        .expect("the slash command", |s| match s {
            Seen::Slash {
                name,
                in_guild,
                capacity,
            } => Some((name, in_guild, capacity)),
            _ => None,
        })
        .await;
    assert_eq!(
        (name.as_str(), in_guild, capacity),
        ("capacity", false, Some(5))
    );
    let responses = fake
        .wait_for("the followup", WAIT, |f| {
            let r = f.interaction_responses(slash);
            (r.len() == 2).then_some(r)
        })
        .await;
    assert_eq!(responses[0]["type"], 5);
    assert_eq!(responses[1]["content"], "capacity set");
    let answers = fake.bot_messages(DM_CHANNEL_ID);
    assert_eq!(
        answers.len(),
        1,
        "the followup edits the deferral: {answers:?}"
    );
    assert_eq!(answers[0].content, "capacity set");

    // In a guild: the handler sees the guild and refuses, ephemerally.
    fake.slash_in_guild(OWNER_ID, "capacity", json!([])).await;
    let in_guild = bot
        .expect("the guild slash command", |s| match s {
            Seen::Slash { in_guild, .. } => Some(in_guild),
            _ => None,
        })
        .await;
    assert!(in_guild);
    let refusal = fake
        .wait_for("the refusal", WAIT, |f| {
            f.bot_messages(GUILD_CHANNEL_ID).into_iter().next()
        })
        .await;
    assert_eq!(
        (refusal.content.as_str(), refusal.flags & 64),
        ("DMs only", 64)
    );

    // A DM with an attachment that replies to an earlier message.
    let first = fake.send_dm(OWNER_ID, "first").await;
    fake.send_dm_with(Dm {
        author: OWNER_ID,
        content: "see attached".into(),
        attachments: vec![Attachment {
            filename: "note.txt".into(),
            content_type: "text/plain".into(),
            bytes: b"hello file".to_vec(),
        }],
        reply_to: Some(first),
    })
    .await;
    let (bytes, replied_to) = bot
        .expect("the DM with an attachment", |s| match s {
            Seen::Dm {
                content,
                attachment,
                replied_to,
            } if content == "see attached" => Some((attachment, replied_to)),
            _ => None,
        })
        .await;
    assert_eq!(bytes.as_deref(), Some(&b"hello file"[..]));
    assert_eq!(replied_to, Some(first));
    bot.stop().await;
    assert_serenity_reads_everything(&fake, &warnings);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_errors_have_discords_shape() {
    let fake = FakeDiscord::start().await;
    let http = HttpBuilder::new("fake-token")
        .proxy(fake.base_url())
        .ratelimiter_disabled(true)
        .build();
    let me = http.get_current_user().await.expect("the bot user");
    assert_eq!((me.id.get(), me.bot), (BOT_ID, true));
    let dm = ChannelId::new(DM_CHANNEL_ID);
    // serenity's builders check the length themselves; the raw call does not.
    let long = http
        .send_message(dm, Vec::new(), &json!({ "content": "x".repeat(2001) }))
        .await
        .expect_err("too long");
    assert_eq!(discord_code(&long), Some(50035));
    let missing = dm
        .message(&http, MessageId::new(42))
        .await
        .expect_err("no such message");
    assert_eq!(discord_code(&missing), Some(10008));
    let empty = dm.say(&http, "").await.expect_err("empty");
    assert_eq!(discord_code(&empty), Some(50006));
    let info = http
        .get_current_application_info()
        .await
        .expect("application info");
    assert_eq!(info.owner.map(|o| o.id.get()), Some(OWNER_ID));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_token_fails_the_start() {
    let fake = FakeDiscord::start_with(Options {
        reject_token: true,
        ..Options::default()
    })
    .await;
    let bot = Bot::start(&fake).await;
    let err = bot.http.get_current_user().await.expect_err("401");
    assert_eq!(discord_code(&err), Some(0));
    let result = tokio::time::timeout(WAIT, bot.task)
        .await
        .expect("client.start() ends")
        .expect("the client task does not panic");
    match result {
        Err(serenity::Error::Gateway(serenity::gateway::GatewayError::InvalidAuthentication)) => {}
        other => panic!("expected invalid authentication, got {other:?}"),
    }
    assert_eq!(fake.ready_count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disallowed_intents_fail_the_start() {
    let fake = FakeDiscord::start_with(Options {
        close_code_after_identify: Some(4014),
        ..Options::default()
    })
    .await;
    let bot = Bot::start(&fake).await;
    let result = tokio::time::timeout(WAIT, bot.task)
        .await
        .expect("client.start() ends")
        .expect("the client task does not panic");
    match result {
        Err(serenity::Error::Gateway(
            serenity::gateway::GatewayError::DisallowedGatewayIntents,
        )) => {}
        other => panic!("expected disallowed intents, got {other:?}"),
    }
    assert_eq!(fake.identify_count(), 1);
}
