//! A reply to a background message whose fork can no longer be resumed (SPEC §5): the DM says
//! the fork expired and where the reply goes instead, and the reply reaches the main
//! conversation with the message it answers quoted — even after newer background messages were
//! recorded, and even when no record of the old message is left at all.

use serde_json::{json, Value};

use crate::bot::{said, Bot, Home, LIMIT};
use crate::support::fake_discord::{Dm, FakeDiscord, Message, DM_CHANNEL_ID, OWNER_ID};
use crate::support::home::background_reminder as reminder_in;
use crate::support::mock_model_api::{MockModelApi, Reply};

/// The first words of the line telling the owner the fork is gone.
const EXPIRED: &str = "the fork that sent this message has expired";

async fn ping(fake: &FakeDiscord, home: &Home, text: &str) -> Message {
    let ping = fake
        .wait_for(text, LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.content == text)
        })
        .await;
    fake.wait_for("the fork message record", LIMIT, |_| {
        std::fs::read_to_string(home.state("fork_messages.json"))
            .ok()
            .filter(|s| s.contains(&ping.id.to_string()))
    })
    .await;
    ping
}

async fn reply(fake: &FakeDiscord, to: u64, content: &str) {
    fake.send_dm_with(Dm {
        author: OWNER_ID,
        content: content.into(),
        attachments: Vec::new(),
        reply_to: Some(to),
    })
    .await;
}

fn expired_lines(fake: &FakeDiscord) -> usize {
    fake.bot_messages(DM_CHANNEL_ID)
        .iter()
        .filter(|m| m.content.contains(EXPIRED))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_to_an_expired_fork_says_so_and_goes_to_the_main_conversation() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if !req.tool_results().is_empty() {
            Reply::Text("pinged".into())
        } else if text.contains("[reminder-bg:e0000001]") {
            Reply::ToolUse {
                name: "mcp__discord__ping_user".into(),
                input: json!({"message": "time to stretch?"}),
            }
        } else if text.contains("[reminder-bg:e0000002]") {
            Reply::ToolUse {
                name: "mcp__discord__ping_user".into(),
                input: json!({"message": "water?"}),
            }
        } else {
            Reply::Text("noted in the main conversation".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    home.write(
        "reminders/stretch.md",
        &reminder_in(3, "e0000001", "ask about stretching"),
    );
    let bot = Bot::start(&home, &mock, &fake).await;
    let old = ping(&fake, &home, "[bg] time to stretch?").await;
    // Eight days pass for that record.
    let path = home.state("fork_messages.json");
    let mut records: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for r in &mut records {
        let ts = r["ts"].as_f64().unwrap();
        r["ts"] = json!(ts - 8.0 * 86_400.0);
    }
    std::fs::write(&path, serde_json::to_string(&records).unwrap()).unwrap();
    // A newer background message is recorded after it.
    home.write(
        "reminders/water.md",
        &reminder_in(2, "e0000002", "ask about water"),
    );
    let newer = ping(&fake, &home, "[bg] water?").await;

    reply(&fake, old.id, "done, both arms").await;
    said(&fake, EXPIRED).await;
    let req = fake
        .wait_for("the reply in the main conversation", LIMIT, |_| {
            mock.agent_requests()
                .into_iter()
                .find(|r| r.latest_user_text().contains("done, both arms"))
        })
        .await;
    let text = req.latest_user_text();
    assert!(
        text.contains("> [bg] time to stretch?\n\ndone, both arms"),
        "{text}"
    );
    assert!(!text.contains("[fork-started]"), "not a fork: {text}");
    assert!(!text.contains("water?"), "never the newer message: {text}");
    said(&fake, "noted in the main conversation").await;

    // With no record left at all, a `[bg]` message still reads as a gone fork's.
    std::fs::remove_file(&path).unwrap();
    reply(&fake, newer.id, "had a glass").await;
    fake.wait_for("a second expired line", LIMIT, |f| {
        (expired_lines(f) == 2).then_some(())
    })
    .await;
    fake.wait_for("the second reply, quoted", LIMIT, |_| {
        mock.agent_requests().into_iter().find(|r| {
            r.latest_user_text()
                .contains("> [bg] water?\n\nhad a glass")
        })
    })
    .await;
    assert!(bot.stop().await);
}
