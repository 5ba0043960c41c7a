//! `update_names` (SPEC §17) called by the real CLI in a running bot: the names land in the
//! `.env` of the bot's working directory, every other line kept, and the model is told they
//! apply after `/restart`.

use serde_json::json;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test]
async fn update_names_writes_the_env_file_and_says_restart() {
    let mock = MockModelApi::start(|req| {
        if let Some((_, output, is_error)) = req.tool_results().first() {
            let verdict = if *is_error { "failed" } else { "said" };
            return Reply::Text(format!("tool {verdict}: {}", output.replace('\n', " | ")));
        }
        if req.latest_user_text().contains("call me Alex") {
            return Reply::ToolUse {
                name: "mcp__discord__update_names".into(),
                input: json!({"user_name": "Alex", "bot_name": "Pip"}),
            };
        }
        Reply::Text("ok".into())
    })
    .await
    .unwrap();
    let home = Home::new();
    let cwd = home.home.join("checkout");
    std::fs::create_dir_all(&cwd).unwrap();
    let env = cwd.join(".env");
    std::fs::write(
        &env,
        "# my settings\nOLLIM_USER_NAME=Sam\nOLLIM_BOT_NAME=Ollie\nOLLIM_TIMEZONE=America/New_York\n",
    )
    .unwrap();
    let mut bot = Bot::start_in(&home, &mock, &cwd).await;
    bot.say("call me Alex, and you are Pip").await;
    let said = bot.expect("tool ").await;
    assert!(said.starts_with("tool said:"), "{said}");
    assert!(said.contains("after /restart"), "{said}");
    let offered = mock.agent_requests()[0].tool_names();
    assert!(
        offered.iter().any(|t| t == "mcp__discord__update_names"),
        "{offered:?}"
    );
    bot.finish().await;
    assert_eq!(
        std::fs::read_to_string(&env).unwrap(),
        "# my settings\nOLLIM_USER_NAME=Alex\nOLLIM_BOT_NAME=Pip\nOLLIM_TIMEZONE=America/New_York\n"
    );
}
