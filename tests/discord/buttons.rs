//! The agent's `agent:` buttons on Discord (the original's UX audit, #22 #23 #36): a button
//! runs its prompt once however often it is tapped, and is greyed out once used; a tap on an
//! expired one says so and greys it out too; a click that starts a turn shows "typing…" as a
//! DM does.

use serde_json::{json, Value};

use crate::bot::{said, Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, Message, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

/// Everything the bot answered to an interaction, joined.
fn answered(fake: &FakeDiscord, interaction: u64) -> Option<String> {
    let texts: Vec<String> = fake
        .interaction_responses(interaction)
        .iter()
        .filter_map(|r| r.get("content").and_then(Value::as_str).map(str::to_owned))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

fn typing_calls(fake: &FakeDiscord) -> usize {
    fake.requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/typing"))
        .count()
}

/// Whether the button `custom_id` on `message_id` is shown greyed out.
fn greyed(fake: &FakeDiscord, message_id: u64, custom_id: &str) -> bool {
    fake.message(message_id).is_some_and(|m| {
        m.components
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|row| row["components"].as_array().cloned().unwrap_or_default())
            .any(|b| b["custom_id"] == custom_id && b["disabled"] == true)
    })
}

/// A model that answers "what next" with a "Next step" embed of two buttons, "Draft it"
/// (`agent:draft the email to Jo`) and `second`, says "pick one" after the tool, and answers
/// the draft prompt.
async fn next_step_mock(second: Value) -> MockModelApi {
    MockModelApi::start(move |req| {
        let text = req.latest_user_text();
        if text.contains("draft the email to Jo") {
            Reply::Text("drafted: dear Jo".into())
        } else if !req.tool_results().is_empty() {
            Reply::Text("pick one".into())
        } else if text.contains("what next") {
            Reply::ToolUse {
                name: "mcp__discord__discord_embed".into(),
                input: json!({
                    "title": "Next step",
                    "buttons": [
                        {"label": "Draft it", "action": "agent:draft the email to Jo"},
                        second.clone()
                    ]
                }),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap()
}

/// Asks for the "Next step" embed and waits until it and the model's "pick one" are posted:
/// the message and its two buttons' custom ids.
async fn next_step_embed(fake: &FakeDiscord) -> (Message, String, String) {
    fake.send_dm(OWNER_ID, "what next").await;
    let embed = fake
        .wait_for("the embed", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.embeds.to_string().contains("Next step"))
        })
        .await;
    said(fake, "pick one").await;
    let id_of = |i: usize| {
        embed.components[0]["components"][i]["custom_id"]
            .as_str()
            .expect("a button")
            .to_owned()
    };
    let (first, second) = (id_of(0), id_of(1));
    (embed, first, second)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_button_runs_once_greys_out_and_an_expired_one_says_so() {
    let mock = next_step_mock(json!({"label": "Plan", "action": "agent:plan the week"})).await;
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    let (embed, draft, plan) = next_step_embed(&fake).await;

    // A double tap: both clicks arrive before the first is answered.
    let typing_before = typing_calls(&fake);
    let first = fake.click_button(OWNER_ID, embed.id, &draft).await;
    let second = fake.click_button(OWNER_ID, embed.id, &draft).await;
    said(&fake, "drafted: dear Jo").await;
    let refusal = fake
        .wait_for("the second tap's answer", LIMIT, |f| {
            answered(f, second).or_else(|| answered(f, first))
        })
        .await;
    assert!(refusal.contains("already used"), "{refusal}");
    let ran = mock
        .agent_requests()
        .iter()
        .filter(|r| r.latest_user_text().contains("draft the email to Jo"))
        .count();
    assert_eq!(ran, 1, "the prompt ran once");
    fake.wait_for("the used button greyed out", LIMIT, |f| {
        greyed(f, embed.id, &draft).then_some(())
    })
    .await;
    assert!(
        !greyed(&fake, embed.id, &plan),
        "the other button still works"
    );
    assert!(
        typing_calls(&fake) > typing_before,
        "the click that started a turn showed typing"
    );

    // A button past its 7 days: its inquiry is backdated.
    let inquiry = plan.trim_start_matches("act:agent:").to_owned();
    let path = home.state("inquiries.json");
    let mut stored: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("inquiries")).expect("json");
    stored[&inquiry]["ts"] = json!(1_000_000_000.0);
    std::fs::write(&path, stored.to_string()).expect("backdate");
    let late = fake.click_button(OWNER_ID, embed.id, &plan).await;
    let expired = fake
        .wait_for("the expired tap's answer", LIMIT, |f| answered(f, late))
        .await;
    assert!(expired.contains("has expired"), "{expired}");
    fake.wait_for("the expired button greyed out", LIMIT, |f| {
        greyed(f, embed.id, &plan).then_some(())
    })
    .await;
    assert!(
        !mock
            .agent_requests()
            .iter()
            .any(|r| r.latest_user_text().contains("plan the week")),
        "an expired button runs nothing"
    );
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_buttons_past_their_seven_days_grey_out_without_a_tap() {
    let mock = next_step_mock(json!({"label": "Later", "action": "dismiss"})).await;
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    let (embed, draft, later) = next_step_embed(&fake).await;
    let path = home.state("agent_buttons.json");
    let key = embed.id.to_string();
    let recorded = fake
        .wait_for("the message's buttons recorded", LIMIT, |_| {
            let text = std::fs::read_to_string(&path).ok()?;
            let stored: Value = serde_json::from_str(&text).ok()?;
            stored.get(&key).is_some().then_some(stored)
        })
        .await;
    assert!(bot.stop().await);
    assert!(
        !greyed(&fake, embed.id, &draft),
        "fresh buttons stay usable"
    );

    // Eight days later, as the bot starts again: its buttons grey out, nobody tapping them.
    let mut backdated = recorded;
    backdated[&key] = json!(chrono::Utc::now().timestamp() - 8 * 24 * 3600);
    std::fs::write(&path, backdated.to_string()).expect("backdate");
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.wait_for("the expired button greyed out", LIMIT, |f| {
        greyed(f, embed.id, &draft).then_some(())
    })
    .await;
    assert!(
        !greyed(&fake, embed.id, &later),
        "only the agent's buttons expire"
    );
    assert!(fake
        .requests()
        .iter()
        .all(|r| !r.path.contains("/interactions/")));
    assert!(bot.stop().await);
}
