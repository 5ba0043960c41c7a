//! What the DM shows besides the answer (SPEC §17 "Conversation feedback"): a tool call whose
//! result was an error struck through in the reply, and the context usage line under an answer
//! once the context fills up, and what a subagent is doing.

use serde_json::json;

use crate::bot::{said, Bot, Home};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_tool_is_struck_through_and_a_full_context_is_reported() {
    let mock = MockModelApi::start(|req| {
        if !req.tool_results().is_empty() {
            Reply::Text("that file is not there".into())
        } else if req.latest_user_text().contains("read my notes") {
            Reply::ToolUse {
                name: "Read".into(),
                input: json!({"file_path": "notes/missing.md"}),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    // 680k of the default model's million-token window.
    mock.report_input_tokens(680_000);
    fake.send_dm(OWNER_ID, "read my notes").await;
    let reply = said(&fake, "that file is not there").await;
    assert!(
        reply
            .content
            .contains("-# *~~Read(notes/missing.md)~~ — error*"),
        "{}",
        reply.content
    );
    let warning = said(&fake, "context:").await;
    assert_eq!(
        warning.content,
        "-# *context: 68% (680k) — consider /compact*"
    );
    let order: Vec<_> = fake
        .bot_messages(DM_CHANNEL_ID)
        .into_iter()
        .filter(|m| !m.deleted)
        .map(|m| m.id)
        .collect();
    let pos = |id| order.iter().position(|m| *m == id);
    assert!(
        pos(reply.id) < pos(warning.id),
        "the line comes after the answer"
    );
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_line_shows_what_a_subagent_is_doing() {
    let mock = MockModelApi::start(|req| {
        let main = req.mentions("ask the guide");
        match (main, req.tool_results().is_empty()) {
            (true, true) => Reply::ToolUse {
                name: "Agent".into(),
                input: json!({
                    "subagent_type": "general-purpose",
                    "description": "search for docs",
                    "prompt": "SUBTASK look through the notes",
                }),
            },
            (true, false) => Reply::Text("the guide is done".into()),
            (false, true) => Reply::ToolUse {
                name: "Glob".into(),
                input: json!({"pattern": "**/*.md"}),
            },
            (false, false) => Reply::Text("found nothing much".into()),
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.send_dm(OWNER_ID, "ask the guide about the docs").await;
    said(&fake, "the guide is done").await;
    let shown = fake.bot_messages(DM_CHANNEL_ID).into_iter().any(|m| {
        m.edits.iter().any(|e| {
            e.content
                .as_deref()
                .is_some_and(|c| c.starts_with("-# *general-purpose(search for docs) · Glob..."))
        })
    });
    assert!(shown, "{:#?}", fake.bot_messages(DM_CHANNEL_ID));
    assert!(bot.stop().await);
}
