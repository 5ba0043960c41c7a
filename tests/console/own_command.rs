//! The agent runs `ollim-bot` through its Bash tool in a bot started as a user starts it: no
//! `PATH` entry for the binary prepared by the test (SPEC §4: "the agent itself uses this CLI").

use std::path::Path;

use serde_json::json;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

/// The test's own `PATH` without any directory holding an `ollim-bot` executable.
pub fn path_without_the_bot() -> String {
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<_> = std::env::split_paths(&inherited)
        .filter(|dir| !dir.join("ollim-bot").exists())
        .collect();
    let path = std::env::join_paths(kept).expect("PATH entries join");
    let path = path.into_string().expect("a UTF-8 PATH");
    let bot_dir = Path::new(env!("CARGO_BIN_EXE_ollim-bot")).parent().unwrap();
    assert!(
        !std::env::split_paths(&path).any(|d| d == bot_dir),
        "the bot's directory is off PATH"
    );
    path
}

#[tokio::test]
async fn the_agent_schedules_a_reminder_with_the_bots_own_command() {
    let mock = MockModelApi::start(|req| {
        if let Some((_, output, _)) = req.tool_results().first() {
            Reply::Text(format!("tool said: {output}"))
        } else if req.latest_user_text().contains("remind me in 20 minutes") {
            Reply::ToolUse {
                name: "Bash".into(),
                input: json!({
                    "command": "ollim-bot reminder add --delay 20 -m \"check the oven\"",
                    "description": "schedule the reminder"
                }),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let path = path_without_the_bot();
    let mut bot = Bot::start_with(&home, &mock, &[("PATH", path.as_str())]).await;
    bot.say("remind me in 20 minutes to check the oven").await;
    let said = bot.expect("tool said:").await;
    assert!(said.contains("scheduled"), "{said}");
    bot.finish().await;
    let files: Vec<_> = std::fs::read_dir(home.data.join("reminders"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert_eq!(files.len(), 1, "{files:#?}");
    assert!(files[0].contains("check the oven"), "{}", files[0]);
}
