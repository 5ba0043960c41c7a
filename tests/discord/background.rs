//! Background work on Discord: a background ping arrives as `[bg] …`, and replying to it opens an
//! interactive fork on that background fork's session once that fork has ended, so the session
//! holds everything it did (a second reply while the interactive fork runs is quoted into it
//! instead); a background embed's headings lose their emoji (title and field names, not the
//! text) and its button still works after the bot restarts; an `always` job's report is
//! announced with a silent line; a background file arrives with `[bg] …` words, from a job that
//! never named `send_file`.

use serde_json::json;

use crate::bot::{said, Bot, Home, LIMIT};
use crate::support::fake_discord::{Dm, FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::home::background_reminder as reminder_in;
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_ping_arrives_as_bg_and_a_reply_resumes_that_fork() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if text.contains("[fork-started]") && text.contains("earlier fork") {
            Reply::Text("back in the water thread".into())
        } else if !req.tool_results().is_empty() {
            // The background fork is still at work when the owner replies to its ping.
            Reply::SlowText {
                chunks: vec!["pinged, ".into(), "now wrapping up".into()],
                delay: std::time::Duration::from_millis(800),
            }
        } else if text.contains("[reminder-bg:c0000001]") {
            Reply::ToolUse {
                name: "mcp__discord__ping_user".into(),
                input: json!({"message": "did you drink water?"}),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    home.write(
        "reminders/water.md",
        &reminder_in(3, "c0000001", "ask about water"),
    );
    let bot = Bot::start(&home, &mock, &fake).await;
    let ping = fake
        .wait_for("the [bg] ping", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.content == "[bg] did you drink water?")
        })
        .await;
    // The message is recorded for replies before the reply comes.
    fake.wait_for("the fork message record", LIMIT, |_| {
        std::fs::read_to_string(home.state("fork_messages.json"))
            .ok()
            .filter(|s| s.contains(&ping.id.to_string()))
    })
    .await;
    fake.send_dm_with(Dm {
        author: OWNER_ID,
        content: "yes, two glasses".into(),
        attachments: Vec::new(),
        reply_to: Some(ping.id),
    })
    .await;
    fake.wait_for("the Forked Session embed", LIMIT, |f| {
        f.bot_messages(DM_CHANNEL_ID)
            .iter()
            .any(|m| m.embeds.to_string().contains("Forked Session"))
            .then_some(())
    })
    .await;
    said(&fake, "back in the water thread").await;
    let resumed = mock
        .agent_requests()
        .into_iter()
        .find(|r| r.latest_user_text().contains("yes, two glasses"))
        .expect("the reply reached the model");
    assert!(
        resumed.latest_user_text().contains("[fork-started]"),
        "opened as a fork"
    );
    // Told how old the ping is and that it cannot save over the main session.
    let opening = resumed.latest_user_text();
    assert!(
        opening.contains("seconds old.") || opening.contains("second old."),
        "{opening}"
    );
    assert!(opening.contains("save_context is unavailable"), "{opening}");
    let history = serde_json::to_string(resumed.messages()).unwrap_or_default();
    assert!(
        resumed.mentions("[reminder-bg:c0000001]")
            && history.contains("did you drink water?")
            && history.contains("now wrapping up"),
        "the fork carries the background session's whole history (its prompt, its ping, and \
         what it did after the reply came): {history}"
    );
    // A second reply to the same ping while the fork runs cannot open another one.
    fake.send_dm_with(Dm {
        author: OWNER_ID,
        content: "and a coffee".into(),
        attachments: Vec::new(),
        reply_to: Some(ping.id),
    })
    .await;
    said(&fake, "already in a fork — reply added as context instead.").await;
    fake.wait_for("the reply with its quote", LIMIT, |_| {
        mock.agent_requests().into_iter().find(|r| {
            let text = r.latest_user_text();
            text.contains("and a coffee") && text.contains("> [bg] did you drink water?")
        })
    })
    .await;
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_button_on_a_background_embed_works_after_a_restart() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if text.contains("[fork-started]") && text.contains("draft a reply to Jo") {
            Reply::Text("drafting the reply to Jo now".into())
        } else if !req.tool_results().is_empty() {
            Reply::Text("sent".into())
        } else if text.contains("[reminder-bg:b0000001]") {
            Reply::ToolUse {
                name: "mcp__discord__discord_embed".into(),
                input: json!({
                    "title": "📬 Inbox",
                    "description": "2 emails need you",
                    "fields": [{"name": "⭐ From", "value": "Jo ✉️"}],
                    "buttons": [{"label": "Draft reply", "action": "agent:draft a reply to Jo"}]
                }),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    home.write(
        "reminders/inbox.md",
        &reminder_in(3, "b0000001", "check the inbox"),
    );
    let bot = Bot::start(&home, &mock, &fake).await;
    let embed = fake
        .wait_for("the embed", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.embeds.to_string().contains("Inbox"))
        })
        .await;
    // Headings carry no emoji — the title and the field names alike; the text keeps them.
    assert_eq!(embed.embeds[0]["title"], "Inbox", "{}", embed.embeds);
    assert_eq!(
        embed.embeds[0]["fields"][0]["name"], "From",
        "{}",
        embed.embeds
    );
    assert_eq!(
        embed.embeds[0]["fields"][0]["value"], "Jo ✉️",
        "{}",
        embed.embeds
    );
    let custom_id = embed.components[0]["components"][0]["custom_id"]
        .as_str()
        .expect("a button")
        .to_owned();
    assert!(custom_id.starts_with("act:agent:"), "{custom_id}");
    // The background job has finished (its session is on disk) before the bot goes away.
    fake.wait_for("the background job's end", LIMIT, |_| {
        bot.log()
            .iter()
            .any(|l| l.contains("background job finished"))
            .then_some(())
    })
    .await;
    assert!(bot.stop().await, "a clean exit on SIGTERM");
    let goodbye = fake
        .bot_messages(DM_CHANNEL_ID)
        .iter()
        .any(|m| m.content == "shutting down: terminated (SIGTERM)");
    assert!(goodbye, "the owner was told why the bot went away");

    let bot = Bot::start(&home, &mock, &fake).await;
    let click = fake.click_button(OWNER_ID, embed.id, &custom_id).await;
    fake.wait_for("the click acknowledged", LIMIT, |f| {
        (!f.interaction_responses(click).is_empty()).then_some(())
    })
    .await;
    said(&fake, "drafting the reply to Jo now").await;
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_always_report_is_announced_in_the_dm_without_a_notification() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if !req.tool_results().is_empty() {
            Reply::Text("reported".into())
        } else if text.contains("[reminder-bg:d0000001]") {
            Reply::ToolUse {
                name: "mcp__discord__report_updates".into(),
                input: json!({"message": "inbox is clear"}),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let reminder = reminder_in(3, "d0000001", "look at the inbox").replace(
        "update-main-session: \"freely\"",
        "update-main-session: \"always\"\ndescription: \"inbox sweep\"",
    );
    home.write("reminders/inbox.md", &reminder);
    let bot = Bot::start(&home, &mock, &fake).await;
    let line = said(&fake, "inbox sweep left an update").await;
    assert_eq!(
        line.content,
        "-# inbox sweep left an update — it comes up when you next write."
    );
    assert_eq!(line.flags & 4096, 4096, "posted @silent: {}", line.flags);
    // The update itself still waits for the conversation.
    let queued = std::fs::read_to_string(home.state("pending_updates.json")).unwrap_or_default();
    assert!(queued.contains("inbox is clear"), "{queued}");
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_file_arrives_with_bg_words_from_a_job_that_never_named_send_file() {
    let mock = MockModelApi::start(|req| {
        if let Some((_, output, _)) = req.tool_results().first() {
            Reply::Text(format!("tool said: {output}"))
        } else if req.latest_user_text().contains("[reminder-bg:c0000004]") {
            Reply::ToolUse {
                name: "mcp__discord__send_file".into(),
                input: json!({"file_path": "notes/summary.txt", "message": "the week in one page"}),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    home.write("notes/summary.txt", "all quiet\n");
    // Its frontmatter has no `allowed-tools`.
    home.write(
        "reminders/summary.md",
        &reminder_in(3, "c0000004", "send the weekly summary"),
    );
    let bot = Bot::start(&home, &mock, &fake).await;
    let sent = fake
        .wait_for("the uploaded file", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| !m.attachments.is_empty())
        })
        .await;
    assert_eq!(sent.content, "[bg] the week in one page");
    assert_eq!(
        sent.attachments[0]["filename"], "summary.txt",
        "{:?}",
        sent.attachments
    );
    let request = mock
        .agent_requests()
        .into_iter()
        .find(|r| r.latest_user_text().contains("[reminder-bg:c0000004]"))
        .expect("the job reached the model");
    assert!(
        request
            .tool_names()
            .contains(&"mcp__discord__send_file".to_owned()),
        "the job is offered send_file"
    );
    assert!(bot.stop().await);
}
