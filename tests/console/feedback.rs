//! What the conversation shows besides its answer (SPEC §17 "Conversation feedback"), through
//! the real CLI: the context usage line once the context fills up, and a tool call whose result
//! was an error struck through, and what a subagent is doing.

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test]
async fn a_filling_context_is_shown_under_the_answer_with_its_share_of_the_window() {
    let mock = MockModelApi::start(|_| Reply::Text("sure thing".into()))
        .await
        .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("hello").await;
    bot.expect("sure thing").await;
    // Opus and Sonnet have a million-token window; 850k of it is 85 %.
    mock.report_input_tokens(850_000);
    bot.say("and again").await;
    bot.expect("sure thing").await;
    let line = bot.expect("context:").await;
    let model = mock.agent_requests().last().unwrap().body["model"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        model.contains("sonnet") || model.contains("opus"),
        "the default model: {model}"
    );
    assert_eq!(
        line.trim(),
        "-# *context: 85% (850k) — compaction soon, /compact recommended*"
    );
    let seen = bot.finish().await;
    let warnings = seen.iter().filter(|l| l.contains("context:")).count();
    assert_eq!(warnings, 1, "no line for the small first turn: {seen:#?}");
}

#[tokio::test]
async fn a_tool_call_that_fails_is_struck_through_with_error() {
    let mock = MockModelApi::start(|req| {
        if req.tool_results().is_empty() {
            Reply::ToolUse {
                name: "Read".into(),
                input: serde_json::json!({"file_path": "notes/missing.md"}),
            }
        } else {
            Reply::Text("that file is not there".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("read my notes").await;
    let line = bot.expect("— error").await;
    assert_eq!(line.trim(), "-# *~~Read(notes/missing.md)~~ — error*");
    bot.expect("that file is not there").await;
    bot.finish().await;
}

#[tokio::test]
async fn while_a_subagent_works_the_status_names_it_and_its_current_tool() {
    let mock = MockModelApi::start(|req| {
        let main = req.mentions("ask the guide");
        match (main, req.tool_results().is_empty()) {
            (true, true) => Reply::ToolUse {
                name: "Agent".into(),
                input: serde_json::json!({
                    "subagent_type": "general-purpose",
                    "description": "search for docs",
                    "prompt": "SUBTASK look through the notes",
                }),
            },
            (true, false) => Reply::Text("the guide is done".into()),
            (false, true) => Reply::ToolUse {
                name: "Glob".into(),
                input: serde_json::json!({"pattern": "**/*.md"}),
            },
            (false, false) => Reply::Text("found nothing much".into()),
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("ask the guide about the docs").await;
    let line = bot.expect(" · ").await;
    assert_eq!(line.trim(), "-# *general-purpose(search for docs) · Glob*");
    bot.expect("the guide is done").await;
    bot.finish().await;
}
