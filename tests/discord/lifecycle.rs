//! The bot's life on Discord: a gateway reconnect does not initialise twice, a Discord outage
//! at start is waited out (the owner lookup's and `GET /gateway`'s), the presence says "Watching your DMs", and startup failures a new
//! user can fix (a bad token, the Message Content intent off, no owner) end the process with
//! instructions.

use crate::bot::{greetings, said, Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, Options, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_reconnect_does_not_rerun_initialisation() {
    let mock = MockModelApi::start(|_req| Reply::Text("still here".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.wait_for("commands registered", LIMIT, |f| {
        (!f.command_overwrites().is_empty()).then_some(())
    })
    .await;
    fake.invalidate_session().await;
    fake.wait_for("a second READY", LIMIT, |f| {
        (f.ready_count() >= 2).then_some(())
    })
    .await;
    fake.send_dm(OWNER_ID, "are you there?").await;
    said(&fake, "still here").await;
    assert_eq!(fake.identify_count(), 2, "identified again");
    assert_eq!(
        fake.command_overwrites().len(),
        1,
        "commands registered once"
    );
    assert_eq!(greetings(&fake), 1, "greeted once");
    let opened_dm = fake
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/users/@me/channels"))
        .count();
    assert_eq!(opened_dm, 1, "the DM channel opened once");
    assert!(bot.stop().await);
}

async fn startup_failure(options: Options) -> (Option<i32>, String) {
    let mock = MockModelApi::start(|_req| Reply::Text("hi".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start_with(options).await;
    let home = Home::new();
    let bot = Bot::spawn(&home, &mock, &fake, &[]);
    let (code, log) = bot.exit().await;
    (code, log.join("\n"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_token_says_how_to_get_a_new_one() {
    let (code, log) = startup_failure(Options {
        reject_token: true,
        ..Options::default()
    })
    .await;
    assert_eq!(code, Some(1), "{log}");
    assert!(
        log.contains("Discord rejected DISCORD_TOKEN") && log.contains("Reset Token"),
        "{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_message_content_intent_says_where_to_turn_it_on() {
    let (code, log) = startup_failure(Options {
        close_code_after_identify: Some(4014),
        ..Options::default()
    })
    .await;
    assert_eq!(code, Some(1), "{log}");
    assert!(log.contains("Message Content Intent"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_application_without_an_owner_is_refused() {
    let (code, log) = startup_failure(Options {
        no_owner: true,
        ..Options::default()
    })
    .await;
    assert_eq!(code, Some(1), "{log}");
    assert!(log.contains("no owner"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_runs_the_binary_again_in_the_same_process() {
    let mock = MockModelApi::start(|_req| Reply::Text("ok".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    let pid = bot.pid();
    let asked = fake.slash(OWNER_ID, "restart", serde_json::json!([])).await;
    fake.wait_for("the restart answered", LIMIT, |f| {
        f.interaction_responses(asked)
            .iter()
            .any(|b| b.to_string().contains("restarting..."))
            .then_some(())
    })
    .await;
    fake.wait_for("a second greeting", LIMIT, |f| {
        (greetings(f) >= 2).then_some(())
    })
    .await;
    let goodbye = fake
        .bot_messages(DM_CHANNEL_ID)
        .iter()
        .any(|m| m.content == "shutting down: restart requested");
    assert!(goodbye, "the owner was told");
    assert_eq!(fake.identify_count(), 2, "a new gateway session");
    assert_eq!(bot.pid(), pid, "the same process, re-executed");
    assert!(
        std::fs::read_to_string(home.state("bot.pid")).is_ok_and(|p| p.trim() == pid.to_string()),
        "the pid file names the running bot"
    );
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_is_refused_while_an_answer_is_being_written() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("long story") {
            Reply::SlowText {
                chunks: (0..20).map(|i| format!("line {i}\n")).collect(),
                delay: std::time::Duration::from_millis(300),
            }
        } else {
            Reply::Text("ok".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.send_dm(OWNER_ID, "tell me a long story").await;
    fake.wait_for("the answer streaming", LIMIT, |f| {
        f.bot_messages(DM_CHANNEL_ID)
            .iter()
            .any(|m| m.content.starts_with("line 0"))
            .then_some(())
    })
    .await;
    let asked = fake.slash(OWNER_ID, "update", serde_json::json!([])).await;
    fake.wait_for("the refusal", LIMIT, |f| {
        f.interaction_responses(asked)
            .iter()
            .any(|b| b.to_string().contains("busy answering"))
            .then_some(())
    })
    .await;
    assert_eq!(fake.identify_count(), 1, "no restart");
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_discord_outage_at_start_is_waited_out_and_the_bot_watches_the_dms() {
    let mock = MockModelApi::start(|_req| Reply::Text("hi".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start_with(Options {
        unavailable_first: 1,
        ..Options::default()
    })
    .await;
    let home = Home::new();
    // Starts only once the 503 has been waited out (5 s).
    let bot = Bot::start(&home, &mock, &fake).await;
    let log = bot.log().join("\n");
    assert!(
        log.contains("Discord API error (503 Service Unavailable) — retrying in 5s (attempt 1/5)"),
        "{log}"
    );
    let identify = fake.identifies().pop().expect("identified");
    let activity = &identify["presence"]["activities"][0];
    assert_eq!(activity["name"], "your DMs", "{identify}");
    assert_eq!(activity["type"], 3, "watching: {identify}");
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_503_for_the_gateway_address_at_start_is_waited_out_and_a_dm_is_answered() {
    let mock = MockModelApi::start(|_req| Reply::Text("hi from the gateway".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start_with(Options {
        gateway_unavailable_first: 1,
        ..Options::default()
    })
    .await;
    let home = Home::new();
    // Starts only once the 503 has been waited out (5 s), connecting to the fake's gateway.
    let bot = Bot::start(&home, &mock, &fake).await;
    let log = bot.log().join("\n");
    assert!(
        log.contains("Discord API error (503 Service Unavailable) — retrying in 5s (attempt 1/5)")
            && log.contains("GET /gateway"),
        "{log}"
    );
    fake.send_dm(OWNER_ID, "hello?").await;
    said(&fake, "hi from the gateway").await;
    assert!(bot.stop().await);
}
