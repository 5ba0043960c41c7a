//! Onboarding on Discord (SPEC §17): the first greeting's "Get started — 3 questions" button
//! and `/setup` both start setup in the conversation with the setup prompt.

use serde_json::json;

use crate::bot::{said, Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_greeting_button_and_slash_setup_start_setup_in_the_conversation() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("[setup]") {
            Reply::Text("quick or full?".into())
        } else {
            Reply::Text("ok".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    let greeting = said(&fake, "i'm your assistant").await;
    let button = &greeting.components[0]["components"][0];
    assert_eq!(button["label"], "Get started — 3 questions", "{button}");
    assert_eq!(button["custom_id"], "setup:start");

    fake.click_button(OWNER_ID, greeting.id, "setup:start")
        .await;
    said(&fake, "quick or full?").await;
    let asked = mock
        .agent_requests()
        .into_iter()
        .find(|r| r.latest_user_text().contains("[setup]"))
        .expect("the setup prompt reached the model");
    let text = asked.latest_user_text();
    assert!(text.contains("update_names"), "{text}");
    assert!(text.contains("- Google: not set up"), "{text}");

    let before = mock
        .agent_requests()
        .iter()
        .filter(|r| r.latest_user_text().contains("[setup]"))
        .count();
    fake.slash(OWNER_ID, "setup", json!([])).await;
    fake.wait_for("a second setup turn", LIMIT, |_| {
        let now = mock
            .agent_requests()
            .iter()
            .filter(|r| r.latest_user_text().contains("[setup]"))
            .count();
        (now > before).then_some(())
    })
    .await;
    assert!(bot.stop().await);
}
