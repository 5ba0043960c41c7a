//! An interactive fork on the console: the agent's `save_context` shows the save question with
//! its three buttons, and `/button 1` (Confirm) saves the fork.

use serde_json::json;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test]
async fn the_save_question_is_answered_with_button_one() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if !req.tool_results().is_empty() {
            Reply::Text("asked about saving".into())
        } else if text.contains("[fork-started]") {
            Reply::Text("fork ready".into())
        } else if text.contains("keep all of this") {
            Reply::ToolUse {
                name: "mcp__discord__save_context".into(),
                input: json!({}),
            }
        } else {
            Reply::Text("main says hello back".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("hello").await;
    bot.expect("main says hello back").await;
    let main = std::fs::read_to_string(home.state("sessions.json")).unwrap();
    bot.say("/fork plans").await;
    bot.expect("fork ready").await;
    bot.say("keep all of this").await;
    bot.expect("Save this fork to the main conversation?").await;
    bot.expect("[1] Confirm  [2] Report Instead  [3] Dismiss")
        .await;
    bot.expect("asked about saving").await;
    bot.say("/button 1").await;
    bot.expect("Fork Ended — saved to main").await;
    bot.finish().await;
    let now = std::fs::read_to_string(home.state("sessions.json")).unwrap();
    assert_ne!(now.trim(), main.trim(), "the fork is the main session now");
}
