//! Nothing dropped at shutdown (issue 28): a line the owner sent before SIGTERM is answered
//! before the goodbye; one that cannot be answered is named in it.

use std::time::Duration;

use crate::bot::{greetings, Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_mid_answer_posts_the_answer_then_the_goodbye() {
    let mock = MockModelApi::start(|_| Reply::SlowText {
        chunks: vec!["still ".into(), "thinking, ".into(), "done now".into()],
        delay: Duration::from_millis(700),
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.send_dm(OWNER_ID, "hello there").await;
    mock.first_agent_request(|r| r.mentions("hello there"), LIMIT)
        .await
        .expect("the turn reached the model");
    assert!(bot.stop().await, "a clean exit on SIGTERM");
    let posted: Vec<String> = fake
        .bot_messages(DM_CHANNEL_ID)
        .iter()
        .filter(|m| !m.deleted)
        .map(|m| m.content.clone())
        .collect();
    let answer = posted.iter().position(|c| c.contains("done now"));
    let goodbye = posted
        .iter()
        .position(|c| c == "shutting down: terminated (SIGTERM)");
    assert!(
        matches!((answer, goodbye), (Some(a), Some(g)) if a < g),
        "the answer, then a goodbye naming nothing: {posted:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_the_cli_cannot_answer_is_named_in_the_goodbye() {
    let mock = MockModelApi::start(|_| Reply::ApiError {
        status: 401,
        kind: "authentication_error".into(),
        message: "invalid x-api-key".into(),
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let greeted = greetings(&fake);
    let bot = Bot::spawn(&home, &mock, &fake, &[("CLAUDE_CODE_MAX_RETRIES", "0")]);
    fake.wait_for("the greeting", LIMIT, |f| {
        (greetings(f) > greeted).then_some(())
    })
    .await;
    fake.send_dm(OWNER_ID, "hello there").await;
    mock.first_agent_request(|r| r.mentions("hello there"), LIMIT)
        .await
        .expect("the turn reached the model");
    assert!(bot.stop().await, "a clean exit on SIGTERM");
    let goodbye = fake
        .bot_messages(DM_CHANNEL_ID)
        .iter()
        .any(|m| m.content == "shutting down: terminated (SIGTERM); not answered: \"hello there\"");
    assert!(
        goodbye,
        "{:#?}",
        fake.bot_messages(DM_CHANNEL_ID)
            .iter()
            .map(|m| m.content.clone())
            .collect::<Vec<_>>()
    );
}
