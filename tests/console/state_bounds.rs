//! State files past their bounds reach the model bounded: a runaway pending-updates file.

use serde_json::json;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test]
async fn a_hundred_thousand_updates_and_a_five_megabyte_one_reach_the_next_message_bounded() {
    let mock = MockModelApi::start(|_| Reply::Text("ok".into()))
        .await
        .unwrap();
    let home = Home::new();
    std::fs::create_dir_all(home.data.join("state")).unwrap();
    let mut updates: Vec<_> = (0..100_000)
        .map(|n| json!({"ts": "2026-03-02T08:00:00-05:00", "message": format!("finding {n}")}))
        .collect();
    updates.push(json!({"ts": "2026-03-02T08:00:00-05:00", "message": "y".repeat(5 << 20)}));
    std::fs::write(
        home.state("pending_updates.json"),
        serde_json::to_vec(&updates).unwrap(),
    )
    .unwrap();

    let mut bot = Bot::start(&home, &mock).await;
    bot.say("morning").await;
    bot.expect("ok").await;
    bot.finish().await;

    let sent = mock
        .agent_requests()
        .iter()
        .map(|r| r.latest_user_text())
        .find(|t| t.contains("morning"))
        .expect("the message reached the model");
    assert!(
        sent.contains("(99992 earlier update(s) omitted — cap reached)"),
        "{}",
        &sent[..sent.len().min(2000)]
    );
    assert!(sent.contains("ago) finding 99999\n"));
    assert!(sent.contains(&format!("… [cut: {} more characters]", (5 << 20) - 4000)));
    assert!(
        sent.chars().count() < 10_000,
        "ten short entries at most, got {} characters",
        sent.chars().count()
    );
}
