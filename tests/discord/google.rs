//! Google on Discord, with a fake Google on 127.0.0.1: `/google-auth` finished by the browser's
//! redirect, or by the redirect URL pasted as a DM (never sent to the agent; a foreign state is
//! refused), and a Google button answered ephemerally with its pending update queued.

use serde_json::{json, Value};

use crate::bot::{said, Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::fake_google::FakeGoogle;
use crate::support::mock_model_api::{MockModelApi, Reply};

fn answers(fake: &FakeDiscord, interaction: u64) -> Vec<Value> {
    fake.interaction_responses(interaction)
}

fn content(body: &Value) -> String {
    body.get("data")
        .and_then(|d| d.get("content"))
        .or_else(|| body.get("content"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

async fn started(google: &FakeGoogle, home: &Home) -> (MockModelApi, FakeDiscord, Bot) {
    let mock = MockModelApi::start(|_req| Reply::Text("ok".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start().await;
    home.write("state/credentials.json", &google.client_file());
    let bot = Bot::spawn(
        home,
        &mock,
        &fake,
        &[("OLLIM_GOOGLE_API_BASE", google.base_url().as_str())],
    );
    fake.wait_for("the greeting", LIMIT, |f| {
        (crate::bot::greetings(f) > 0).then_some(())
    })
    .await;
    (mock, fake, bot)
}

/// `/google-auth`'s answer: the consent URL.
async fn consent_url(fake: &FakeDiscord) -> String {
    let asked = fake.slash(OWNER_ID, "google-auth", json!([])).await;
    let text = fake
        .wait_for("the consent url", LIMIT, |f| {
            answers(f, asked)
                .iter()
                .map(content)
                .find(|t| t.starts_with("click to connect google:"))
        })
        .await;
    assert!(
        text.ends_with("\n-# on another device? paste the redirect url here · 5 min timeout"),
        "{text}"
    );
    text.lines()
        .nth(1)
        .expect("the url on the second line")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn google_auth_on_discord_is_finished_by_the_browser() {
    let google = FakeGoogle::start();
    let home = Home::new();
    let (_mock, fake, bot) = started(&google, &home).await;
    let url = consent_url(&fake).await;
    let redirect = google.consent(&url).await;
    let page = reqwest::get(&redirect).await.unwrap();
    assert_eq!(page.status(), 200);
    said(&fake, "google connected.").await;
    assert!(home.state("token.json").exists());
    let again = fake.slash(OWNER_ID, "google-auth", json!([])).await;
    fake.wait_for("already connected", LIMIT, |f| {
        answers(f, again)
            .iter()
            .any(|b| content(b) == "google already connected.")
            .then_some(())
    })
    .await;
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_pasted_as_a_dm_finishes_google_auth_and_is_not_sent_to_the_agent() {
    let google = FakeGoogle::start();
    let home = Home::new();
    let (mock, fake, bot) = started(&google, &home).await;
    let url = consent_url(&fake).await;
    let redirect = google.consent(&url).await;
    let state = url::Url::parse(&redirect)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    fake.send_dm(OWNER_ID, &redirect.replace(&state, "forged"))
        .await;
    said(&fake, "google auth refused").await;
    assert!(!home.state("token.json").exists());
    let pasted = fake.send_dm(OWNER_ID, &redirect).await;
    said(&fake, "google connected.").await;
    let token: Value =
        serde_json::from_str(&std::fs::read_to_string(home.state("token.json")).unwrap()).unwrap();
    assert!(token["refresh_token"]
        .as_str()
        .unwrap()
        .starts_with("1//fake-refresh-"));
    assert!(
        fake.reactions_by_bot(pasted).is_empty(),
        "the pasted url is not handled as a message to answer"
    );
    let code = redirect
        .split("code=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap();
    assert!(
        !mock
            .all_requests()
            .iter()
            .any(|r| r.mentions(code) || r.mentions("127.0.0.1:")),
        "the redirect never reached the model"
    );
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_button_completes_the_task_answers_ephemerally_and_queues_an_update() {
    let google = FakeGoogle::start();
    let milk = google.add_task("Buy milk", None, false);
    let home = Home::new();
    let (access, refresh) = google.grant();
    home.write(
        "state/token.json",
        &google.token_file(&access, &refresh, "2099-01-01T00:00:00Z"),
    );
    home.write("state/credentials.json", &google.client_file());
    let action = format!("task_done:{milk}");
    let mock = MockModelApi::start(move |req| {
        if !req.tool_results().is_empty() {
            Reply::Text("there it is".into())
        } else if req.latest_user_text().contains("my tasks") {
            Reply::ToolUse {
                name: "mcp__discord__discord_embed".into(),
                input: json!({
                    "title": "Tasks",
                    "description": "1 open",
                    "buttons": [{"label": "Done", "action": action}]
                }),
            }
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
    fake.wait_for("the greeting", LIMIT, |f| {
        (crate::bot::greetings(f) > 0).then_some(())
    })
    .await;
    fake.send_dm(OWNER_ID, "show my tasks").await;
    let embed = fake
        .wait_for("the embed", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.embeds.to_string().contains("Tasks"))
        })
        .await;
    let custom_id = embed.components[0]["components"][0]["custom_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let click = fake.click_button(OWNER_ID, embed.id, &custom_id).await;
    let reply = fake
        .wait_for("the ephemeral answer", LIMIT, |f| {
            answers(f, click)
                .into_iter()
                .find(|b| content(b) == "done ✓")
        })
        .await;
    let flags = reply["flags"]
        .as_u64()
        .or_else(|| reply["data"]["flags"].as_u64())
        .unwrap_or(0);
    assert_eq!(flags & 64, 64, "ephemeral: {reply}");
    assert_eq!(google.tasks()[0]["status"], "completed");
    let updates = std::fs::read_to_string(home.state("pending_updates.json")).unwrap();
    assert!(
        updates.contains(r#"User completed task \"Buy milk\""#),
        "{updates}"
    );
    assert!(bot.stop().await);
}
