//! Talking to the bot: streamed replies, the saved and resumed session, pending updates.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test]
async fn reply_streams_to_the_console_as_it_is_written() {
    let mock = MockModelApi::start(|_| Reply::SlowText {
        chunks: vec![
            "line one\n".into(),
            "line two\n".into(),
            "line three".into(),
        ],
        delay: Duration::from_millis(700),
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.expect("i'm your assistant").await;
    bot.say("tell me three lines").await;
    bot.expect("line one").await;
    let first = Instant::now();
    bot.expect("line three").await;
    assert!(
        first.elapsed() >= Duration::from_millis(1000),
        "line one should be shown while the rest is still being written"
    );
    let sent = mock.agent_requests();
    let text = sent.last().unwrap().latest_user_text();
    let line = text
        .lines()
        .find(|l| l.ends_with("] tell me three lines"))
        .unwrap_or_else(|| panic!("the message with its header: {text}"));
    assert!(line.starts_with("[20"), "timestamp header: {line}");
    assert!(
        line.contains(" EST]") || line.contains(" EDT]"),
        "zone abbreviation: {line}"
    );
    bot.finish().await;
}

#[tokio::test]
async fn session_id_is_saved_and_a_restarted_bot_resumes_it() {
    let mock = MockModelApi::start(|req| {
        let latest = req.latest_user_text();
        if latest.contains("what was the word") {
            let remembered = req.mentions("the word is pineapple");
            Reply::Text(
                if remembered {
                    "it was pineapple"
                } else {
                    "no idea"
                }
                .into(),
            )
        } else {
            Reply::Text("noted".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("the word is pineapple").await;
    bot.expect("noted").await;
    bot.finish().await;
    let saved = std::fs::read_to_string(home.state("sessions.json")).expect("session id saved");
    assert_eq!(saved.trim().len(), 36, "a session uuid: {saved:?}");

    let mut again = Bot::start(&home, &mock).await;
    let back = again.expect("hey, i'm back").await;
    let release = back
        .strip_prefix("hey, i'm back (ollim-bot v")
        .and_then(|rest| rest.strip_suffix("). picking up where we left off."))
        .unwrap_or_else(|| panic!("the greeting names the release: {back}"));
    assert!(
        release.starts_with(env!("CARGO_PKG_VERSION")) || !release.contains("+dev"),
        "{back}"
    );
    again.say("what was the word?").await;
    again.expect("it was pineapple").await;
    again.finish().await;
    let resumed = std::fs::read_to_string(home.state("sessions.json")).unwrap();
    assert_eq!(
        resumed.trim(),
        saved.trim(),
        "resume keeps the same session"
    );
}

#[tokio::test]
async fn pending_updates_reach_the_model_once() {
    let mock = MockModelApi::start(|_| Reply::Text("ok".into()))
        .await
        .unwrap();
    let home = Home::new();
    std::fs::create_dir_all(home.data.join("state")).unwrap();
    let update =
        json!([{"ts": "2026-03-02T08:00:00-05:00", "message": "inbox triage: 2 items need you"}]);
    std::fs::write(home.state("pending_updates.json"), update.to_string()).unwrap();

    let mut bot = Bot::start(&home, &mock).await;
    bot.say("morning").await;
    bot.expect("catching up on background activity").await;
    bot.expect("ok").await;
    bot.say("anything else?").await;
    bot.expect("ok").await;
    bot.finish().await;

    let sent: Vec<String> = mock
        .agent_requests()
        .iter()
        .map(|r| r.latest_user_text())
        .collect();
    let first = sent
        .iter()
        .find(|t| t.contains("morning"))
        .expect("first message sent");
    assert!(
        first.contains("RECENT BACKGROUND UPDATES (mention key findings in your response):\n- (")
            && first.contains("ago) inbox triage: 2 items need you\n\n"),
        "{first}"
    );
    let second = sent
        .iter()
        .find(|t| t.contains("anything else?"))
        .expect("second sent");
    assert!(
        !second.contains("RECENT BACKGROUND UPDATES"),
        "consumed once: {second}"
    );
    assert!(
        !home.state("pending_updates.json").exists(),
        "queue emptied on disk"
    );
}

#[tokio::test]
async fn the_model_receives_the_profile_and_every_section_in_its_system_prompt() {
    let mock = MockModelApi::start(|_| Reply::Text("hello Sam".into()))
        .await
        .unwrap();
    let home = Home::new();
    std::fs::create_dir_all(&home.data).unwrap();
    std::fs::write(
        home.data.join("USER.md"),
        "# About Sam\nSam drinks too much coffee.\n",
    )
    .unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("hi").await;
    bot.expect("hello Sam").await;
    bot.finish().await;

    let identity =
        std::fs::read_to_string(home.data.join("IDENTITY.md")).expect("IDENTITY.md created");
    assert!(
        identity.contains("Ollie") && identity.contains("Sam"),
        "{identity}"
    );
    let system = mock
        .agent_requests()
        .last()
        .expect("a model call")
        .system_text();
    let profile_at = system
        .find("I am Ollie, Sam's personal assistant")
        .expect("identity in the prompt");
    let user_at = system
        .find("Sam drinks too much coffee.")
        .expect("USER.md in the prompt");
    assert!(profile_at < user_at, "IDENTITY.md comes before USER.md");
    let mut last = user_at;
    for header in [
        "## Capturing tasks",
        "## How to answer",
        "## Configuration notes",
        "## Skills",
        "## Google Tasks",
        "## Google Calendar",
        "## Routines and reminders",
        "## Subagents",
        "## Discord embeds",
        "## Web and docs",
        "## Interactive forks",
        "## Background forks",
        "## Webhooks",
    ] {
        let at = system
            .find(header)
            .unwrap_or_else(|| panic!("{header} missing from the system prompt"));
        assert!(at > last, "{header} out of order");
        last = at;
    }
    assert!(
        !system.contains("{USER_NAME}") && !system.contains("{BOT_NAME}"),
        "placeholders filled"
    );
    assert!(
        system.contains("When Sam refers to something you do not see here")
            && system.contains("`ollim-bot memory search WORDS`"),
        "the prompt says when to search memory (SPEC §18)"
    );
    let agents = home.data.join(".claude/agents");
    for name in [
        "ollim-bot-guide",
        "gmail-reader",
        "history-reviewer",
        "responsiveness-reviewer",
        "user-proxy",
    ] {
        assert!(
            agents.join(format!("{name}.md")).is_file(),
            "{name} subagent installed"
        );
    }
    assert!(!agents.join("guide.md").exists(), "the guide's old name");
    let settings = std::fs::read_to_string(home.data.join(".claude/settings.json")).unwrap();
    let settings: serde_json::Value = serde_json::from_str(&settings).unwrap();
    assert_eq!(
        settings["autoMemoryEnabled"], false,
        "the cli's auto-memory off"
    );
    assert!(
        system.contains("`ollim-bot-guide`"),
        "the prompt names the guide"
    );
}
