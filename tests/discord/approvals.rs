//! Approvals by reaction (SPEC §11): in `default` mode a tool outside the allowed set posts a
//! prompt with ✅ ❌ 🔓; the owner's ✅ lets it run.

use serde_json::json;

use crate::bot::{said, Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_default_mode_an_approval_reaction_lets_the_tool_run() {
    let home = Home::new();
    let target = home.home.join("marker-approved");
    let command = format!("touch {}", target.display());
    let mock = MockModelApi::start(move |req| {
        if !req.tool_results().is_empty() {
            Reply::Text("finished with the file".into())
        } else if req.latest_user_text().contains("make the marker") {
            Reply::ToolUse {
                name: "Bash".into(),
                input: json!({"command": command, "description": "create the marker file"}),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let bot = Bot::start(&home, &mock, &fake).await;
    // Choices are sent by index: don't ask, ask first, allow file edits, allow everything.
    let set = fake
        .slash(
            OWNER_ID,
            "permissions",
            json!([{"name": "mode", "type": 4, "value": 1}]),
        )
        .await;
    fake.wait_for("the mode switched", LIMIT, |f| {
        f.interaction_responses(set)
            .iter()
            .any(|b| b.to_string().contains("permission mode: ask first"))
            .then_some(())
    })
    .await;
    fake.send_dm(OWNER_ID, "make the marker").await;
    let prompt = fake
        .wait_for("the approval prompt with its reactions", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID).into_iter().find(|m| {
                m.content.contains("permission needed") && f.reactions_by_bot(m.id).len() == 3
            })
        })
        .await;
    assert!(prompt.content.contains("Bash(touch"), "{}", prompt.content);
    assert!(!target.exists(), "nothing runs before the answer");
    fake.react(OWNER_ID, prompt.id, "\u{2705}").await;
    said(&fake, "finished with the file").await;
    assert!(target.exists(), "the approved command ran");
    let edited = fake
        .bot_messages(DM_CHANNEL_ID)
        .into_iter()
        .find(|m| m.id == prompt.id)
        .expect("the prompt");
    assert!(edited.content.ends_with("— allowed"), "{}", edited.content);
    assert!(bot.stop().await);
}
