//! Approvals by reaction (SPEC §11): in `default` mode a tool outside the allowed set posts a
//! prompt with ✅ ❌ 🔓; the owner's ✅ lets it run. A prompt whose turn was interrupted is
//! marked cancelled, and a ✅ on it runs nothing.

use serde_json::json;

use crate::bot::{said, Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_reaction_lets_the_tool_run_and_one_on_an_interrupted_turn_runs_nothing() {
    let home = Home::new();
    // Inside the data directory: the OS sandbox keeps even an approved command out of HOME.
    let target = home.data.join("marker-approved");
    let command = format!("touch {}", target.display());
    let abandoned = home.data.join("marker-abandoned");
    let second = format!("touch {}", abandoned.display());
    let mock = MockModelApi::start(move |req| {
        if req.latest_user_text().contains("never mind") {
            Reply::Text("ok, dropped it".into())
        } else if !req.tool_results().is_empty() {
            Reply::Text("finished with the file".into())
        } else if req.latest_user_text().contains("make the marker") {
            Reply::ToolUse {
                name: "Bash".into(),
                input: json!({"command": command, "description": "create the marker file"}),
            }
        } else if req.latest_user_text().contains("make another marker") {
            Reply::ToolUse {
                name: "Bash".into(),
                input: json!({"command": second, "description": "create another marker"}),
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

    // A prompt whose turn is interrupted is marked cancelled; a later ✅ runs nothing.
    fake.send_dm(OWNER_ID, "make another marker").await;
    let prompt = fake
        .wait_for("the second prompt", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID).into_iter().find(|m| {
                m.content.contains("permission needed")
                    && m.content.contains("marker-abandoned")
                    && f.reactions_by_bot(m.id).len() == 3
            })
        })
        .await;
    fake.send_dm(OWNER_ID, "never mind").await;
    said(&fake, "ok, dropped it").await;
    let cancelled = fake
        .wait_for("the prompt marked cancelled", LIMIT, |f| {
            f.message(prompt.id)
                .filter(|m| m.content.contains("— cancelled"))
        })
        .await;
    assert!(
        cancelled.content.contains("nothing ran"),
        "{}",
        cancelled.content
    );
    fake.react(OWNER_ID, prompt.id, "\u{2705}").await;
    // The reaction is handled in order with a later message: once that is answered, the
    // reaction has been seen.
    fake.send_dm(OWNER_ID, "never mind, really").await;
    fake.wait_for("the next answer", LIMIT, |f| {
        (f.bot_messages(DM_CHANNEL_ID)
            .iter()
            .filter(|m| m.content.contains("ok, dropped it"))
            .count()
            == 2)
            .then_some(())
    })
    .await;
    let after = fake.message(prompt.id).expect("the prompt");
    assert_eq!(after.content, cancelled.content, "the ✅ changed nothing");
    assert!(!abandoned.exists(), "nothing ran");
    assert!(bot.stop().await);
}
