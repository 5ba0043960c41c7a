//! The trust boundary on Discord (SPEC §20): what the bot posts and logs never carries the
//! Discord token or a webhook secret, and the agent's deletes ask the owner (refused in
//! background jobs).

use serde_json::json;

use crate::bot::{greetings, Bot, Home, LIMIT, TOKEN};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::fake_google::FakeGoogle;
use crate::support::home::background_reminder;
use crate::support::mock_model_api::{MockModelApi, Reply};

const HOOK_SECRET: &str = "whsec-redact-me-42";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_and_a_webhook_secret_are_redacted_in_dms_and_the_log() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("leak") {
            Reply::Text(format!(
                "the token is {TOKEN} and the hook's is {HOOK_SECRET}"
            ))
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::spawn(&home, &mock, &fake, &[("WEBHOOK_SECRET", HOOK_SECRET)]);
    fake.wait_for("the greeting", LIMIT, |f| (greetings(f) > 0).then_some(()))
        .await;
    fake.send_dm(OWNER_ID, "leak please").await;
    let reply = fake
        .wait_for("the redacted answer", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| !m.deleted && m.content.contains("the hook's is"))
        })
        .await;
    assert_eq!(
        reply.content.trim_end(),
        "the token is [redacted] and the hook's is [redacted]"
    );
    assert!(!posted_with_secret(&fake), "{}", fake.dump());
    let log = bot.log().join("\n");
    assert!(!log.contains(TOKEN), "the token reached the log");
    assert!(
        !log.contains(HOOK_SECRET),
        "the webhook secret reached the log"
    );
    assert!(bot.stop().await);
}

/// True when any message the bot posted or edited carried a secret.
fn posted_with_secret(fake: &FakeDiscord) -> bool {
    fake.bot_messages(DM_CHANNEL_ID).iter().any(|m| {
        m.content.contains(TOKEN)
            || m.content.contains(HOOK_SECRET)
            || m.edits.iter().any(|e| {
                e.content
                    .as_deref()
                    .is_some_and(|c| c.contains(TOKEN) || c.contains(HOOK_SECRET))
            })
    })
}

/// The `custom_id`s of a message's buttons.
fn button_ids(m: &crate::support::fake_discord::Message) -> Vec<String> {
    m.components
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|row| row["components"].as_array().cloned().unwrap_or_default())
        .filter_map(|b| b["custom_id"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_delete_asks_the_owner_and_a_background_jobs_is_refused() {
    let google = FakeGoogle::start();
    let dentist = google.add_task("Dentist", Some("2026-07-03"), false);
    let gym = google.add_task("Gym", None, false);
    let home = Home::new();
    let (access, refresh) = google.grant();
    home.write(
        "state/token.json",
        &google.token_file(&access, &refresh, "2099-01-01T00:00:00Z"),
    );
    home.write("state/credentials.json", &google.client_file());
    home.write(
        "tool-policy.yaml",
        "main_session:\n  additional_allowed: [\"Bash(ollim-bot tasks *)\"]\nbg_forks:\n  additional_allowed: [\"Bash(ollim-bot tasks *)\"]\n",
    );
    let delete = |id: &str| Reply::ToolUse {
        name: "Bash".into(),
        input: json!({"command": format!("ollim-bot tasks delete {id}"), "description": "delete"}),
    };
    let (dentist_id, gym_id) = (dentist.clone(), gym.clone());
    let mock = MockModelApi::start(move |req| {
        let text = req.latest_user_text();
        if !req.tool_results().is_empty() {
            Reply::Text("handled".into())
        } else if text.contains("[reminder-bg:b0000031]") {
            delete(&gym_id)
        } else if text.contains("drop the dentist") {
            delete(&dentist_id)
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let bot = Bot::spawn(
        &home,
        &mock,
        &fake,
        &[("OLLIM_GOOGLE_API_BASE", google.base_url().as_str())],
    );
    fake.wait_for("the greeting", LIMIT, |f| (greetings(f) > 0).then_some(()))
        .await;

    // A background job cannot delete: told so, and the task stays.
    home.write(
        "reminders/tidy.md",
        &background_reminder(2, "b0000031", "tidy the task list"),
    );
    let refused = mock
        .first_agent_request(|r| !r.tool_results().is_empty(), LIMIT)
        .await
        .expect("the background job's delete came back");
    let (_, text, _) = refused.tool_results().remove(0);
    assert!(
        text.contains("background jobs cannot delete tasks or events"),
        "{text}"
    );

    // The conversation's delete asks; nothing is deleted until Delete.
    fake.send_dm(OWNER_ID, "drop the dentist please").await;
    let question = fake
        .wait_for("the question", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.embeds.to_string().contains("Delete 'Dentist'"))
        })
        .await;
    assert!(
        question
            .embeds
            .to_string()
            .contains("Delete 'Dentist' (due 2026-07-03)?"),
        "{}",
        question.embeds
    );
    let told = mock
        .first_agent_request(
            |r| {
                r.tool_results()
                    .iter()
                    .any(|(_, t, _)| t.contains("asked the owner to confirm"))
            },
            LIMIT,
        )
        .await;
    assert!(told.is_some(), "the agent was told the owner is asked");
    let titles: Vec<String> = google
        .tasks()
        .iter()
        .map(|t| t["title"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(titles, ["Dentist", "Gym"], "nothing deleted yet");
    let ids = button_ids(&question);
    assert_eq!(ids.len(), 2, "Delete and Keep: {ids:?}");
    let click = fake.click_button(OWNER_ID, question.id, &ids[0]).await;
    fake.wait_for("the result", LIMIT, |f| {
        f.interaction_responses(click)
            .iter()
            .any(|b| {
                b.to_string()
                    .contains("deleted 'Dentist' (due 2026-07-03).")
            })
            .then_some(())
    })
    .await;
    let titles: Vec<String> = google
        .tasks()
        .iter()
        .map(|t| t["title"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(titles, ["Gym"], "Delete deleted the dentist only");
    assert!(bot.stop().await);
}
