//! The fake Discord proven against a minimal real serenity client: the client connects
//! through `HttpBuilder::proxy`, gets READY, DMs, button clicks, slash commands and reactions,
//! and what it does back shows up in the fake's records; bad tokens and disallowed intents
//! fail `client.start()` as on Discord.

use serde_json::json;
use serenity::all::{
    ChannelId, Command, CommandOptionType, CreateActionRow, CreateButton, CreateCommand,
    CreateCommandOption, CreateMessage, HttpBuilder, MessageId, ReactionType,
};

use crate::serenity_client::{
    assert_serenity_reads_everything, capture_serenity_warnings, discord_code, Bot, Seen,
    REIDENTIFY_WAIT, WAIT,
};
use crate::support::fake_discord::{
    Attachment, Dm, FakeDiscord, Options, BOT_ID, DM_CHANNEL_ID, GUILD_CHANNEL_ID, OWNER_ID,
};

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
    let fake = FakeDiscord::start_with(Options {
        heartbeat_interval_ms: 200,
        ..Options::default()
    })
    .await;
    let mut bot = Bot::start(&fake).await;
    bot.expect("READY", |s| matches!(s, Seen::Ready).then_some(()))
        .await;
    let command = CreateCommand::new("capacity")
        .description("Set the ping budget")
        .add_option(CreateCommandOption::new(
            CommandOptionType::Integer,
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

    // The short interval from HELLO makes serenity heartbeat, and every beat is acknowledged.
    fake.wait_for("two heartbeats", WAIT, |f| {
        (f.heartbeat_count() >= 2).then_some(())
    })
    .await;
    assert_eq!(
        fake.ready_count(),
        1,
        "acknowledged heartbeats keep the session"
    );
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
