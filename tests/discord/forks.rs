//! Interactive forks on Discord: the fork's answers and the "Fork Ended" embed that closes it
//! are recorded in `state/fork_messages.json`, and replying to the closing embed opens the fork
//! again on its own session (with what was said in it); the agent's `save_context` posts the
//! yellow save question with Confirm (green), Report Instead (blurple) and Dismiss (grey), and
//! clicking Confirm saves.

use serde_json::json;

use crate::bot::{said, Bot, Home, LIMIT};
use crate::support::fake_discord::{Dm, FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

fn recorded(home: &Home, message_id: u64) -> bool {
    std::fs::read_to_string(home.state("fork_messages.json"))
        .is_ok_and(|s| s.contains(&format!("\"message_id\": {message_id},")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replying_to_an_interactive_forks_end_resumes_that_fork() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if text.contains("[fork-started]") && text.contains("earlier fork") {
            Reply::Text(format!(
                "back in the trip fork, it remembers lisbon: {}",
                req.mentions("lisbon please")
            ))
        } else if text.contains("[fork-started]") {
            Reply::Text("trip fork here: which city?".into())
        } else if !req.tool_results().is_empty() {
            Reply::Text("ok".into())
        } else if text.contains("lisbon please") {
            Reply::ToolUse {
                name: "mcp__discord__report_updates".into(),
                input: json!({"message": "picked lisbon"}),
            }
        } else if text.contains("plan a trip") {
            Reply::ToolUse {
                name: "mcp__discord__enter_fork".into(),
                input: json!({"topic": "trip"}),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.send_dm(OWNER_ID, "plan a trip").await;
    let answer = said(&fake, "trip fork here").await;
    fake.wait_for("the fork's answer recorded", LIMIT, |_| {
        recorded(&home, answer.id).then_some(())
    })
    .await;
    fake.send_dm(OWNER_ID, "lisbon please").await;
    let ended = fake
        .wait_for("the Fork Ended embed", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.embeds.to_string().contains("Fork Ended — summary queued"))
        })
        .await;
    fake.wait_for("the closing embed recorded", LIMIT, |_| {
        recorded(&home, ended.id).then_some(())
    })
    .await;
    fake.send_dm_with(Dm {
        author: OWNER_ID,
        content: "one more thing about the trip".into(),
        attachments: Vec::new(),
        reply_to: Some(ended.id),
    })
    .await;
    let back = said(&fake, "back in the trip fork").await;
    assert_eq!(
        back.content,
        "back in the trip fork, it remembers lisbon: true"
    );
    let forked = fake
        .bot_messages(DM_CHANNEL_ID)
        .iter()
        .filter(|m| m.embeds.to_string().contains("Forked Session"))
        .count();
    assert_eq!(forked, 2, "the reply opened the fork again");
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_save_question_is_a_yellow_embed_and_confirm_saves() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if !req.tool_results().is_empty() {
            Reply::Text("ok".into())
        } else if text.contains("[fork-started]") {
            Reply::Text("trip fork here: which city?".into())
        } else if text.contains("keep all of it") {
            Reply::ToolUse {
                name: "mcp__discord__save_context".into(),
                input: json!({}),
            }
        } else if text.contains("plan a trip") {
            Reply::ToolUse {
                name: "mcp__discord__enter_fork".into(),
                input: json!({"topic": "trip"}),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.send_dm(OWNER_ID, "plan a trip").await;
    said(&fake, "trip fork here").await;
    fake.send_dm(OWNER_ID, "keep all of it").await;
    let question = fake
        .wait_for("the save question", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID).into_iter().find(|m| {
                m.embeds
                    .to_string()
                    .contains("Save this fork to the main conversation?")
            })
        })
        .await;
    assert_eq!(question.embeds[0]["color"], 0xFEE75C, "{}", question.embeds);
    let buttons = &question.components[0]["components"];
    let shown: Vec<(String, u64)> = (0..3)
        .map(|i| {
            (
                buttons[i]["label"].as_str().unwrap_or_default().to_owned(),
                buttons[i]["style"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("Confirm".to_owned(), 3),
            ("Report Instead".to_owned(), 1),
            ("Dismiss".to_owned(), 2)
        ]
    );
    let confirm = buttons[0]["custom_id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    fake.click_button(OWNER_ID, question.id, &confirm).await;
    fake.wait_for("the saved fork", LIMIT, |f| {
        f.bot_messages(DM_CHANNEL_ID)
            .into_iter()
            .find(|m| m.embeds.to_string().contains("Fork Ended — saved to main"))
    })
    .await;
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clear_inside_a_fork_leaves_it_and_the_next_dm_reaches_the_fresh_conversation() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if text.contains("who is answering") {
            Reply::Text(if req.mentions("[fork-started]") {
                "the old fork answers".into()
            } else {
                "the fresh conversation answers".into()
            })
        } else if text.contains("[fork-started]") {
            Reply::Text("fork here".into())
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.slash(OWNER_ID, "fork", json!([])).await;
    said(&fake, "fork here").await;
    let clear = fake.slash(OWNER_ID, "clear", json!([])).await;
    fake.wait_for("the fork shown discarded", LIMIT, |f| {
        f.bot_messages(DM_CHANNEL_ID)
            .iter()
            .any(|m| m.embeds.to_string().contains("Fork Ended — discarded"))
            .then_some(())
    })
    .await;
    said(&fake, "conversation cleared").await;
    let told = fake
        .wait_for("/clear's answer", LIMIT, |f| {
            f.interaction_responses(clear)
                .iter()
                .filter_map(|r| r["content"].as_str().map(str::to_owned))
                .find(|t| !t.is_empty())
        })
        .await;
    assert!(told.contains("left the fork"), "{told}");
    fake.send_dm(OWNER_ID, "who is answering?").await;
    said(&fake, "the fresh conversation answers").await;
    assert!(bot.stop().await);
}
