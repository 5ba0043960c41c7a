//! A turn that fails because of the account, not the bot, says what to do: not signed in (or a
//! refused sign-in), out of credit, rate-limited. The real CLI meets real HTTP errors from the
//! mock API; `CLAUDE_CODE_MAX_RETRIES=0` (the CLI's own setting) skips its minutes of retries.

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

async fn failing_with(status: u16, kind: &str, message: &str, expected: &str) {
    let (kind, message) = (kind.to_owned(), message.to_owned());
    let mock = MockModelApi::start(move |_| Reply::ApiError {
        status,
        kind: kind.clone(),
        message: message.clone(),
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start_with(&home, &mock, &[("CLAUDE_CODE_MAX_RETRIES", "0")]).await;
    bot.expect("i'm your assistant").await;
    bot.say("hello?").await;
    let line = bot.expect(expected).await;
    assert!(line.starts_with("-# "), "{line}");
    let seen = bot.finish().await;
    assert!(
        !seen.iter().any(|l| l.contains("something went wrong")),
        "{seen:#?}"
    );
}

#[tokio::test]
async fn a_refused_sign_in_says_how_to_sign_in() {
    failing_with(
        401,
        "authentication_error",
        "invalid x-api-key",
        // The bot is not on the test's PATH: the hint names the binary, which runs as shown.
        &format!(
            "run `{} auth login` where the bot runs",
            env!("CARGO_BIN_EXE_ollim-bot")
        ),
    )
    .await;
}

#[tokio::test]
async fn no_credit_says_so() {
    failing_with(
        402,
        "billing_error",
        "Your credit balance is too low to access the Anthropic API.",
        "out of credit",
    )
    .await;
}

#[tokio::test]
async fn a_rate_limit_says_to_wait() {
    failing_with(
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit",
        "rate-limited right now",
    )
    .await;
}

#[tokio::test]
async fn no_sign_in_at_all_says_how_to_sign_in() {
    let mock = MockModelApi::start(|_| Reply::Text("unreachable".into()))
        .await
        .unwrap();
    let home = Home::new();
    // No key and a fresh HOME: the CLI has no credentials at all.
    let mut bot = Bot::start_with(&home, &mock, &[("ANTHROPIC_API_KEY", "")]).await;
    bot.expect("i'm your assistant").await;
    bot.say("hello?").await;
    bot.expect("claude isn't signed in").await;
    bot.finish().await;
    assert!(
        mock.agent_requests().is_empty(),
        "nothing reached the model"
    );
}
