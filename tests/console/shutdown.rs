//! Nothing dropped at shutdown (issue 28): lines sent before end of input or SIGTERM are
//! answered before the bot leaves, or named in its last line as not answered; it always exits.

use std::time::Duration;

use crate::bot::{Bot, Home, LIMIT};
use crate::support::mock_model_api::{MockModelApi, Reply};

const SHUTDOWN: &str = "input ended — shutting down";

#[tokio::test]
async fn lines_before_end_of_input_are_answered_then_the_bot_exits() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if text.contains("remind me") {
            Reply::Text("sure, noted".into())
        } else {
            Reply::Text("hi there".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.expect("i'm your assistant").await;
    bot.say("hello").await;
    bot.say("remind me to water the plants").await;
    let seen = bot.finish().await;
    let last = seen.last().expect("some output");
    assert!(last.contains(SHUTDOWN), "{seen:#?}");
    assert!(!last.contains("not answered"), "{seen:#?}");
    assert!(
        seen.iter().any(|l| l.contains("sure, noted")),
        "the second line's answer came before the exit: {seen:#?}"
    );
    assert!(
        mock.agent_requests()
            .iter()
            .any(|r| r.mentions("hello") && r.mentions("water the plants")),
        "the model saw both lines"
    );
}

#[tokio::test]
async fn lines_the_cli_cannot_answer_are_named_at_shutdown() {
    let mock = MockModelApi::start(|_| Reply::Text("unreachable".into()))
        .await
        .unwrap();
    let home = Home::new();
    // No key and a fresh HOME: the CLI has no credentials at all.
    let mut bot = Bot::start_with(&home, &mock, &[("ANTHROPIC_API_KEY", "")]).await;
    bot.expect("i'm your assistant").await;
    bot.say("hello").await;
    bot.say("remind me to water the plants tomorrow morning before work please")
        .await;
    let seen = bot.finish().await;
    let last = seen.last().expect("some output");
    assert!(last.contains(SHUTDOWN), "{seen:#?}");
    assert!(
        last.contains("not answered: \"hello\", \"remind me to water the plants tomorrow m…\""),
        "both lines named, the long one shortened: {last}"
    );
}

#[tokio::test]
async fn sigterm_mid_turn_lets_the_answer_finish_then_exits_cleanly() {
    let mock = MockModelApi::start(|_| Reply::SlowText {
        chunks: vec!["still ".into(), "thinking, ".into(), "done now".into()],
        delay: Duration::from_millis(700),
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.expect("i'm your assistant").await;
    bot.say("hello").await;
    mock.first_agent_request(|r| r.mentions("hello"), LIMIT)
        .await
        .expect("the turn reached the model");
    // `terminate` also checks the exit status is 0.
    let seen = bot.terminate().await;
    assert!(
        seen.iter().any(|l| l.contains("done now")),
        "the answer in flight arrived: {seen:#?}"
    );
    let last = seen.last().expect("some output");
    assert!(
        last.contains("terminated (SIGTERM) — shutting down") && !last.contains("not answered"),
        "{seen:#?}"
    );
}
