//! An interactive fork left idle (SPEC §6): `/fork` when nothing runs says it is entering the
//! fork without claiming to interrupt anything; after `fork_idle_timeout` (here 1 minute) the
//! DM gets one line saying the fork has been idle for 1 minute (singular), and when the agent
//! then ends the fork — allowed after an idle nudge even though the owner never spoke in it —
//! the DM says it closed because it sat idle.

use serde_json::{json, Value};

use crate::bot::{said, Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

/// An idle minute and the check after it, with room to spare.
const IDLE_LIMIT: std::time::Duration = std::time::Duration::from_secs(150);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_fork_says_so_and_its_end_says_why() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if !req.tool_results().is_empty() {
            Reply::Text("closing up".into())
        } else if text.contains("[fork-timeout]") {
            Reply::ToolUse {
                name: "mcp__discord__exit_fork".into(),
                input: json!({}),
            }
        } else if text.contains("[fork-started]") {
            Reply::Text("side thread open".into())
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    home.write("state/config.json", r#"{"fork_idle_timeout": 1}"#);
    let bot = Bot::start(&home, &mock, &fake).await;
    let asked = fake.slash(OWNER_ID, "fork", json!([])).await;
    let answer = fake
        .wait_for("the /fork answer", LIMIT, |f| {
            f.interaction_responses(asked).iter().find_map(|body| {
                body.get("data")
                    .and_then(|d| d.get("content"))
                    .or_else(|| body.get("content"))
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned)
            })
        })
        .await;
    assert_eq!(answer, "entering fork.", "nothing was running to interrupt");
    said(&fake, "side thread open").await;
    let idle = fake
        .wait_for("the idle line", IDLE_LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.content.contains("fork idle"))
        })
        .await;
    assert_eq!(idle.content, "-# fork idle for 1 minute — checking in...");
    fake.wait_for("the Fork Ended embed", LIMIT, |f| {
        f.bot_messages(DM_CHANNEL_ID)
            .into_iter()
            .find(|m| m.embeds.to_string().contains("Fork Ended — discarded"))
    })
    .await;
    let lines: Vec<String> = fake
        .bot_messages(DM_CHANNEL_ID)
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l == "-# fork closed after 1 minute idle."),
        "the DM says why the fork ended: {lines:#?}"
    );
    assert!(bot.stop().await);
}
