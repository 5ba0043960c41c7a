//! `ollim-bot chat` (SPEC §17): with the console bot running, a chat line goes to the same
//! conversation over the control socket, and the bot keeps working; with no bot, chat runs the
//! conversation itself and holds the instance lock.

use serde_json::json;

use crate::bot::{children_named, Bot, Home, LIMIT};
use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

/// Remembers a word across turns, shows an embed when asked, answers everything else.
fn model(req: &ModelRequest) -> Reply {
    if !req.tool_results().is_empty() {
        return Reply::Text("embed sent".into());
    }
    let latest = req.latest_user_text();
    if latest.contains("what was the word") {
        let remembered = req.mentions("the word is pineapple");
        return Reply::Text(
            if remembered {
                "it was pineapple"
            } else {
                "no idea"
            }
            .into(),
        );
    }
    if latest.contains("show me an embed") {
        return Reply::ToolUse {
            name: "mcp__discord__discord_embed".into(),
            input: json!({"title": "Chat Embed", "description": "from chat"}),
        };
    }
    if latest.contains("clear the tmp dir") {
        return Reply::ToolUse {
            name: "Bash".into(),
            input: json!({"command": "rm -rf /tmp/nothing-here", "description": "remove"}),
        };
    }
    if latest.contains("still there") {
        return Reply::Text("still here".into());
    }
    Reply::Text("noted".into())
}

async fn start_chat(home: &Home, mock: &MockModelApi, args: &[&str]) -> Bot {
    Bot::start_command(home, mock, "chat", args, &[]).await
}

#[tokio::test]
async fn a_chat_line_reaches_the_running_bots_conversation_and_the_bot_keeps_working() {
    let mock = MockModelApi::start(model).await.unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.expect("i'm your assistant").await;
    bot.say("remember this: the word is pineapple").await;
    bot.expect("noted").await;

    let mut chat = start_chat(&home, &mock, &[]).await;
    chat.expect("talking to the bot running on").await;
    chat.say("what was the word?").await;
    let answer = chat.expect("it was").await;
    assert!(
        answer.contains("it was pineapple"),
        "the chat line went to the conversation with its earlier turns: {answer}"
    );
    assert!(
        answer.starts_with("you> "),
        "the answer follows the prompt: {answer}"
    );
    chat.say("show me an embed").await;
    chat.expect("[tool] ").await;
    chat.expect("[embed] Chat Embed").await;
    chat.expect("embed sent").await;
    // A denied tool says why, in chat as on the other surfaces.
    chat.say("clear the tmp dir").await;
    let denied = chat
        .expect("~~Bash(rm -rf /tmp/nothing-here)~~ — denied")
        .await;
    assert!(denied.contains("not allowed in don't-ask mode"), "{denied}");
    assert!(
        children_named(chat.pid(), "").is_empty(),
        "chat started no conversation of its own while a bot runs"
    );
    chat.finish().await;

    // The running bot showed the turn too, and still answers its own surface.
    bot.expect("it was pineapple").await;
    bot.say("still there?").await;
    bot.expect("still here").await;
    let bot_pid = bot.pid();
    let pid_file = std::fs::read_to_string(home.data.join("state/bot.pid")).unwrap_or_default();
    assert_eq!(
        pid_file.trim(),
        bot_pid.to_string(),
        "the bot keeps the instance"
    );
    bot.finish().await;
}

#[tokio::test]
async fn chat_without_a_bot_runs_the_conversation_itself_and_holds_the_lock() {
    let mock = MockModelApi::start(model).await.unwrap();
    let home = Home::new();
    let mut chat = start_chat(&home, &mock, &["--model", "claude-haiku-4-5"]).await;
    chat.expect("i'm your assistant").await;
    chat.say("show me an embed").await;
    chat.expect("[tool] ").await;
    chat.expect("[embed] Chat Embed").await;
    chat.expect("embed sent").await;
    let sent = mock.agent_requests();
    let models: Vec<String> = sent.iter().map(|r| r.body["model"].to_string()).collect();
    assert!(
        models.iter().any(|m| m.contains("claude-haiku-4-5")),
        "--model is the conversation's model: {models:?}"
    );

    // A bot started meanwhile finds the instance taken.
    let console = tokio::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("console")
        .envs(mock.cli_env(&home.home))
        .env("OLLIM_CLAUDE_BIN", crate::support::claude_cli::binary())
        .env("OLLIM_DATA_DIR", &home.data)
        .env("OLLIM_TIMEZONE", "America/New_York")
        .env("DASHBOARD_PORT", "off")
        .env_remove("DISCORD_TOKEN")
        .stdin(std::process::Stdio::null())
        .output();
    let console = tokio::time::timeout(LIMIT, console)
        .await
        .expect("the second bot ends")
        .expect("run the second bot");
    assert!(!console.status.success());
    let said = String::from_utf8_lossy(&console.stderr);
    assert!(said.contains("already running"), "{said}");
    chat.finish().await;
}
