//! The console as the DM channel for background work and permissions: a background embed with
//! a button, pressing it, a struck-through denial, and an approval answered at the prompt.

use std::time::Duration;

use serde_json::json;

use crate::bot::{Bot, Home};
use crate::support::home::background_reminder as reminder_in;
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test]
async fn a_background_embed_shows_its_button_and_pressing_it_resumes_that_fork() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if !req.tool_results().is_empty() {
            Reply::Text("sent".into())
        } else if text.contains("[reminder-bg:b0000001]") {
            Reply::ToolUse {
                name: "mcp__discord__discord_embed".into(),
                input: json!({
                    "title": "Inbox",
                    "description": "2 emails need you",
                    "buttons": [{"label": "Draft reply", "action": "agent:draft a reply to Jo"}]
                }),
            }
        } else if text.contains("[fork-started]") && text.contains("draft a reply to Jo") {
            Reply::Text("drafting the reply to Jo now".into())
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    std::fs::create_dir_all(home.data.join("reminders")).unwrap();
    std::fs::write(
        home.data.join("reminders/inbox.md"),
        reminder_in(4, "b0000001", "check the inbox"),
    )
    .unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.expect("Inbox").await;
    bot.expect("Draft reply").await;
    bot.say("/button 1").await;
    bot.expect("Forked Session").await;
    bot.expect("drafting the reply to Jo now").await;
    bot.finish().await;
    // The press took the stored prompt: the button runs once.
    let inquiries = std::fs::read_to_string(home.state("inquiries.json")).unwrap();
    assert!(!inquiries.contains("draft a reply to Jo"), "{inquiries}");
}

fn touch_script(
    target: String,
) -> impl Fn(&crate::support::mock_model_api::ModelRequest) -> Reply + Send + Sync {
    move |req| {
        if !req.tool_results().is_empty() {
            Reply::Text("finished with the file".into())
        } else if req.latest_user_text().contains("make the marker") {
            Reply::ToolUse {
                name: "Bash".into(),
                input: json!({"command": format!("touch {target}"), "description": "create the marker file"}),
            }
        } else {
            Reply::Text("hi".into())
        }
    }
}

#[tokio::test]
async fn a_tool_outside_the_allowed_set_is_denied_and_shown_struck_through() {
    let home = Home::new();
    let target = home.home.join("marker-denied");
    let mock = MockModelApi::start(touch_script(target.display().to_string()))
        .await
        .unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("make the marker").await;
    let line = bot.expect("~~Bash(touch").await;
    // The owner is told why, and what would let it run.
    assert!(
        line.contains(
            "— denied: not allowed in don't-ask mode; switch /permissions to \"ask first\""
        ),
        "{line}"
    );
    bot.expect("finished with the file").await;
    bot.finish().await;
    assert!(!target.exists());
}

#[tokio::test]
async fn in_default_mode_an_approval_at_the_prompt_lets_the_tool_run() {
    let home = Home::new();
    // Inside the data directory: the OS sandbox keeps even an approved command out of HOME.
    let target = home.data.join("marker-approved");
    let mock = MockModelApi::start(touch_script(target.display().to_string()))
        .await
        .unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("/permissions default").await;
    bot.expect("permission mode: ask first").await;
    bot.say("make the marker").await;
    bot.expect("answer y (allow)").await;
    bot.say("y").await;
    bot.expect("finished with the file").await;
    bot.finish().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(target.exists(), "the approved command ran");
}

#[tokio::test]
async fn a_forks_permission_mode_leaves_the_main_session_alone() {
    let home = Home::new();
    let target = home.home.join("marker-scoped");
    let target_text = target.display().to_string();
    let mock = MockModelApi::start(move |req| {
        if req.latest_user_text().contains("[fork-started]") {
            Reply::Text("fork ready".into())
        } else {
            touch_script(target_text.clone())(req)
        }
    })
    .await
    .unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("/fork scratch").await;
    bot.expect("fork ready").await;
    bot.say("/permissions default").await;
    bot.expect("permission mode: ask first — you're asked before a tool that isn't allowed runs (this fork only)")
        .await;
    bot.say("/exit-fork").await;
    bot.expect("Fork Ended — discarded").await;
    bot.say("make the marker").await;
    bot.expect("~~Bash(touch").await;
    bot.expect("finished with the file").await;
    let seen = bot.finish().await;
    assert!(
        !seen.iter().any(|l| l.contains("answer y (allow)")),
        "the main session did not ask: {seen:#?}"
    );
    assert!(!target.exists());
}

#[tokio::test]
async fn a_background_ping_can_be_snoozed_from_the_console_and_ping_budget_shows_quiet_hours() {
    let mock = MockModelApi::start(|req| {
        if !req.tool_results().is_empty() {
            Reply::Text("pinged".into())
        } else if req.latest_user_text().contains("[reminder-bg:b0000002]") {
            Reply::ToolUse {
                name: "mcp__discord__ping_user".into(),
                input: json!({"message": "water?"}),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    std::fs::create_dir_all(home.data.join("reminders")).unwrap();
    std::fs::write(
        home.data.join("reminders/water.md"),
        reminder_in(4, "b0000002", "ask about water"),
    )
    .unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.expect("[bg] water?").await;
    bot.expect("-# snooze with /snooze 15m, /snooze 1h or /snooze tomorrow")
        .await;
    bot.say("/snooze 2h").await;
    bot.expect("usage: /snooze 15m|1h|tomorrow").await;
    bot.say("/snooze 1h").await;
    bot.expect("snoozed until ").await;
    bot.say("/config quiet_hours 22:00-07:30").await;
    bot.expect("quiet_hours set to 22:00-07:30").await;
    bot.say("/ping-budget").await;
    bot.expect("quiet hours: 22:00-07:30").await;
    bot.finish().await;
    let written: Vec<String> = std::fs::read_dir(home.data.join("reminders"))
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    assert!(
        written[0].ends_with("\nask about water\n"),
        "{}",
        written[0]
    );
}
