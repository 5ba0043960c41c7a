//! Snooze on Discord (SPEC §16): a `[bg]` ping and a foreground reminder's answer carry the three
//! snooze buttons; pressing one writes a reminder with the same prompt and settings and answers
//! "snoozed until …" — also after the bot restarted — and a second press says it already is.

use serde_json::{json, Value};

use crate::bot::{Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, Message, DM_CHANNEL_ID, OWNER_ID};
use crate::support::home::background_reminder;
use crate::support::mock_model_api::{MockModelApi, Reply};

/// `(label, custom id)` of each button on `m`.
fn buttons(m: &Message) -> Vec<(String, String)> {
    m.components
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|row| row["components"].as_array().cloned().unwrap_or_default())
        .map(|b| {
            let s = |k: &str| b[k].as_str().unwrap_or_default().to_owned();
            (s("label"), s("custom_id"))
        })
        .collect()
}

fn custom_id(m: &Message, label: &str) -> String {
    buttons(m)
        .into_iter()
        .find(|(l, _)| l == label)
        .map(|(_, id)| id)
        .unwrap_or_else(|| panic!("no {label:?} button on {:?}", buttons(m)))
}

/// The text the bot answered a click with (its ephemeral follow-up).
async fn answer(fake: &FakeDiscord, click: u64) -> String {
    fake.wait_for("the click's answer", LIMIT, |f| {
        f.interaction_responses(click)
            .iter()
            .find_map(|body: &Value| {
                body.get("content")
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned)
            })
    })
    .await
}

/// A foreground reminder due `seconds` from now.
fn foreground_reminder(seconds: i64, id: &str, body: &str) -> String {
    let at = (chrono::Utc::now() + chrono::Duration::seconds(seconds))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    format!("---\nid: \"{id}\"\nrun-at: \"{at}\"\nbackground: false\n---\n{body}\n")
}

/// The reminder files' texts.
fn reminders(home: &Home) -> Vec<String> {
    std::fs::read_dir(home.data.join("reminders"))
        .map(|d| {
            d.filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snooze_buttons_write_the_reminder_again_also_after_a_restart() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if !req.tool_results().is_empty() {
            Reply::Text("pinged".into())
        } else if text.contains("[reminder-bg:c5000001]") {
            Reply::ToolUse {
                name: "mcp__discord__ping_user".into(),
                input: json!({"message": "time to stand up and stretch"}),
            }
        } else if text.contains("[reminder:c5000002]") {
            Reply::Text("your week: three meetings, one deadline".into())
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    home.write(
        "reminders/stretch.md",
        &background_reminder(3, "c5000001", "nudge me to stretch"),
    );
    home.write(
        "reminders/week.md",
        &foreground_reminder(3, "c5000002", "plan my week"),
    );
    let bot = Bot::start(&home, &mock, &fake).await;
    let ping = fake
        .wait_for("the [bg] ping", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.content == "[bg] time to stand up and stretch")
        })
        .await;
    let labels: Vec<String> = buttons(&ping).into_iter().map(|(l, _)| l).collect();
    assert_eq!(labels, ["15 min", "1 hour", "tomorrow 9:00"]);
    let answer_message = fake
        .wait_for("the reminder's answer with its buttons", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.content.contains("your week: three meetings") && !buttons(m).is_empty())
        })
        .await;
    assert_eq!(
        buttons(&answer_message)
            .into_iter()
            .map(|(l, _)| l)
            .collect::<Vec<_>>(),
        ["15 min", "1 hour", "tomorrow 9:00"]
    );
    fake.wait_for("both reminders used up", LIMIT, |_| {
        reminders(&home).is_empty().then_some(())
    })
    .await;
    fake.wait_for("the background job's end", LIMIT, |_| {
        bot.log()
            .iter()
            .any(|l| l.contains("background job finished"))
            .then_some(())
    })
    .await;
    assert!(bot.stop().await, "a clean exit");

    // A new process: the buttons still work.
    let bot = Bot::start(&home, &mock, &fake).await;
    let click = fake
        .click_button(OWNER_ID, ping.id, &custom_id(&ping, "15 min"))
        .await;
    let said = answer(&fake, click).await;
    assert!(said.starts_with("snoozed until "), "{said}");
    let written = reminders(&home);
    assert_eq!(written.len(), 1, "{written:?}");
    assert!(
        written[0].contains("background: true") && written[0].ends_with("\nnudge me to stretch\n"),
        "the same prompt and settings: {}",
        written[0]
    );
    let click = fake
        .click_button(OWNER_ID, ping.id, &custom_id(&ping, "1 hour"))
        .await;
    assert_eq!(answer(&fake, click).await, format!("already {said}."));
    let click = fake
        .click_button(
            OWNER_ID,
            answer_message.id,
            &custom_id(&answer_message, "tomorrow 9:00"),
        )
        .await;
    assert_eq!(answer(&fake, click).await, "snoozed until tomorrow 9:00 AM");
    let written = reminders(&home);
    assert_eq!(written.len(), 2, "{written:?}");
    assert!(
        written.iter().any(|r| r.contains("T09:00:00")
            && r.ends_with("\nplan my week\n")
            && r.contains("\nbackground: false\n")),
        "{written:?}"
    );
    assert!(bot.stop().await);
}
