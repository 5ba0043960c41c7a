//! Webhooks: the page lists the spec, and each request to the webhook server with the answer it
//! got — one accepted (whose job reaches the model and is listed when it ends), one refused
//! for its token.

use std::time::Duration;

use crate::bot::{Bot, LIMIT};
use crate::browser::Browser;
use crate::fixtures::{HOOK, HOOK_SECRET};
use crate::support::mock_model_api::MockModelApi;

/// POSTs `body` to the hook with `token`; the answer's status.
async fn post(bot: &Bot, token: &str, body: &str) -> u16 {
    let url = format!("http://127.0.0.1:{}/hook/{HOOK}", bot.hook_port);
    let client = reqwest::Client::new();
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let sent = client
            .post(&url)
            .bearer_auth(token)
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await;
        match sent {
            Ok(answer) => return answer.status().as_u16(),
            // The server starts with the bot; until it listens, try again.
            Err(e) if e.is_connect() && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("POST {url}: {e}"),
        }
    }
}

pub async fn the_webhooks_page_shows_the_spec_and_each_requests_answer(
    browser: &Browser,
    bot: &Bot,
    mock: &MockModelApi,
) {
    assert_eq!(post(bot, HOOK_SECRET, r#"{"status": "failed"}"#).await, 202);
    assert_eq!(
        post(bot, "not-the-secret", r#"{"status": "ok"}"#).await,
        401
    );
    let tag = format!("[webhook:{HOOK}]");
    mock.first_agent_request(|r| r.mentions(&tag), LIMIT)
        .await
        .unwrap_or_else(|| panic!("the accepted request's job never reached the model"));

    browser
        .open(&bot.url("/webhooks"), "main#page-webhooks")
        .await;
    assert!(browser.text("h1").await.contains("Webhooks"));
    browser.wait_for(&format!("tr.hook#hook-{HOOK}")).await;
    let statuses = {
        let mut found = Vec::new();
        for cell in browser
            .client
            .find_all(fantoccini::Locator::Css(&format!(
                "tr.verdict[data-hook=\"{HOOK}\"] span.status"
            )))
            .await
            .unwrap_or_else(|e| panic!("the verdicts: {e}"))
        {
            found.push(cell.text().await.unwrap_or_default());
        }
        found.sort();
        found
    };
    assert_eq!(statuses, ["202", "401"], "one accepted, one refused");
    // What the accepted one did, once its job has ended.
    let deadline = tokio::time::Instant::now() + LIMIT;
    while browser.count("main#page-webhooks tr.run").await == 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the webhook's job never showed: {}",
            browser.page_text().await
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        browser
            .open(&bot.url("/webhooks"), "main#page-webhooks")
            .await;
    }
    browser.screenshot("webhooks").await;
}
