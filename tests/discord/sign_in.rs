//! Signing Claude Code in from the DM: with a `claude` that reports signed-out (a fake for the
//! `auth` commands, handing everything else to the real CLI against the mock), the bot DMs the
//! owner "claude login required — …" with the link from the login flow before anything else,
//! passes the code the owner sends to the flow, relays its answers, and once signed in greets
//! and answers as usual. The codes never reach the conversation.

use crate::bot::{greetings, said, Bot, Home, LIMIT};
use crate::support::claude_cli;
use crate::support::fake_claude::{FakeClaude, LOGIN_CODE, LOGIN_URL};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_out_cli_gets_a_login_link_in_the_dm_and_the_bot_goes_on_once_signed_in() {
    let mock = MockModelApi::start(|_| Reply::Text("all set".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let real = claude_cli::binary();
    // The conversation's CLI still reaches the mock with its key; the bot itself sees none, so
    // the start asks `claude auth status`, which the fake answers "signed out".
    let claude = FakeClaude::new(
        false,
        "2.1.330",
        Some(&real),
        &[("ANTHROPIC_API_KEY", "sk-test")],
    );
    let bin = claude.bin().display().to_string();
    let bot = Bot::spawn(
        &home,
        &mock,
        &fake,
        &[("OLLIM_CLAUDE_BIN", &bin), ("ANTHROPIC_API_KEY", "")],
    );
    let asked = said(&fake, "claude login required — ").await;
    assert!(asked.content.contains(LOGIN_URL), "{}", asked.content);
    assert_eq!(greetings(&fake), 0, "nothing starts before the sign-in");
    fake.send_dm(OWNER_ID, "not-the-code").await;
    said(&fake, "Invalid code. Please try again.").await;
    assert!(!claude.is_signed_in());
    fake.send_dm(OWNER_ID, LOGIN_CODE).await;
    said(&fake, "signed in — starting up.").await;
    assert!(claude.is_signed_in());
    fake.wait_for("the greeting", LIMIT, |f| (greetings(f) == 1).then_some(()))
        .await;
    fake.send_dm(OWNER_ID, "hello again").await;
    said(&fake, "all set").await;
    let sent: Vec<String> = mock
        .agent_requests()
        .iter()
        .map(|r| r.latest_user_text())
        .collect();
    assert!(
        sent.iter()
            .all(|t| !t.contains(LOGIN_CODE) && !t.contains("not-the-code")),
        "codes went to the conversation: {sent:#?}"
    );
    let order: Vec<String> = fake
        .bot_messages(DM_CHANNEL_ID)
        .into_iter()
        .map(|m| m.content)
        .collect();
    let login = order
        .iter()
        .position(|m| m.starts_with("claude login required"));
    let greeting = order
        .iter()
        .position(|m| m.starts_with("hi! i'm your assistant"));
    assert!(login < greeting, "{order:#?}");
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_waiting_for_sign_in_still_stops_on_sigterm() {
    let mock = MockModelApi::start(|_| Reply::Text("unused".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let claude = FakeClaude::new(false, "2.1.330", None, &[]);
    let bin = claude.bin().display().to_string();
    let bot = Bot::spawn(
        &home,
        &mock,
        &fake,
        &[("OLLIM_CLAUDE_BIN", &bin), ("ANTHROPIC_API_KEY", "")],
    );
    said(&fake, "claude login required — ").await;
    assert!(bot.stop().await, "a clean exit while waiting");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_lost_while_running_gets_the_login_link_in_the_dm_once() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("after signing in") {
            Reply::Text("welcome back".into())
        } else if req.latest_user_text().contains("first try") {
            Reply::ApiError {
                status: 401,
                kind: "authentication_error".into(),
                message: "invalid x-api-key".into(),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let real = claude_cli::binary();
    // Signed in at the start; the model then refuses the sign-in.
    let claude = FakeClaude::new(
        true,
        "2.1.330",
        Some(&real),
        &[("ANTHROPIC_API_KEY", "sk-test")],
    );
    let bin = claude.bin().display().to_string();
    let bot = Bot::spawn(
        &home,
        &mock,
        &fake,
        &[
            ("OLLIM_CLAUDE_BIN", &bin),
            ("ANTHROPIC_API_KEY", ""),
            // The CLI's own setting: no minutes of retries on the 401.
            ("CLAUDE_CODE_MAX_RETRIES", "0"),
        ],
    );
    fake.wait_for("the greeting", LIMIT, |f| (greetings(f) == 1).then_some(()))
        .await;
    let asked_before = |f: &FakeDiscord| {
        f.bot_messages(DM_CHANNEL_ID)
            .iter()
            .filter(|m| m.content.starts_with("claude login required — "))
            .count()
    };
    assert_eq!(asked_before(&fake), 0);
    fake.send_dm(OWNER_ID, "first try").await;
    said(&fake, "isn't signed in").await;
    let asked = said(&fake, "claude login required — ").await;
    assert!(asked.content.contains(LOGIN_URL), "{}", asked.content);
    fake.send_dm(OWNER_ID, LOGIN_CODE).await;
    said(&fake, "signed in again").await;
    fake.send_dm(OWNER_ID, "after signing in").await;
    said(&fake, "welcome back").await;
    assert_eq!(asked_before(&fake), 1, "one link for one loss");
    assert!(
        mock.agent_requests()
            .iter()
            .all(|r| !r.latest_user_text().contains(LOGIN_CODE)),
        "the code went to the conversation"
    );
    assert!(bot.stop().await);
}
