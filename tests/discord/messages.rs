//! What the owner's message carries to the agent (SPEC §5): attached images typed by their magic
//! bytes, and a reply to an ordinary message quoted above the new text; and what the DM shows
//! while tools run: the tool label, and a denied tool struck through with the reason.

use serde_json::json;

use crate::bot::{Bot, Home, LIMIT};
use crate::support::fake_discord::{Attachment, Dm, FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

/// The smallest PNG: signature and an IHDR chunk start are enough for the sniffing.
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_is_sent_with_the_type_its_bytes_say_and_other_files_are_not_images() {
    let mock = MockModelApi::start(|_req| Reply::Text("nice picture".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.send_dm_with(Dm {
        author: OWNER_ID,
        content: "look at this".into(),
        attachments: vec![
            // Discord claims JPEG; the bytes are PNG.
            Attachment {
                filename: "photo.jpg".into(),
                content_type: "image/jpeg".into(),
                bytes: PNG.to_vec(),
            },
            Attachment {
                filename: "notes.txt".into(),
                content_type: "image/png".into(),
                bytes: b"just text".to_vec(),
            },
        ],
        reply_to: None,
    })
    .await;
    let req = fake
        .wait_for("the model request", LIMIT, |_| {
            mock.agent_requests()
                .into_iter()
                .find(|r| r.latest_user_text().contains("look at this"))
        })
        .await;
    let images: Vec<_> = req
        .messages()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "image")
        .cloned()
        .collect();
    assert_eq!(images.len(), 1, "one image; the text file is no image");
    assert_eq!(images[0]["source"]["media_type"], "image/png");
    assert_eq!(images[0]["source"]["type"], "base64");
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_to_an_ordinary_message_quotes_it_above_the_new_text() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("what about it") {
            Reply::Text("about the dentist".into())
        } else {
            Reply::Text("the dentist is at 3pm".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.send_dm(OWNER_ID, "when is the dentist?").await;
    let answer = fake
        .wait_for("the first answer", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.content == "the dentist is at 3pm")
        })
        .await;
    fake.send_dm_with(Dm {
        author: OWNER_ID,
        content: "what about it".into(),
        attachments: Vec::new(),
        reply_to: Some(answer.id),
    })
    .await;
    let req = fake
        .wait_for("the quoted request", LIMIT, |_| {
            mock.agent_requests()
                .into_iter()
                .find(|r| r.latest_user_text().contains("what about it"))
        })
        .await;
    assert!(
        req.latest_user_text()
            .contains("> the dentist is at 3pm\n\nwhat about it"),
        "{}",
        req.latest_user_text()
    );
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_tool_is_shown_struck_through_in_the_reply() {
    let mock = MockModelApi::start(|req| {
        if !req.tool_results().is_empty() {
            Reply::Text("could not do that".into())
        } else if req.latest_user_text().contains("delete it") {
            Reply::ToolUse {
                name: "Bash".into(),
                input: json!({"command": "rm -rf /tmp/nothing-here", "description": "remove"}),
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
    fake.send_dm(OWNER_ID, "delete it").await;
    let reply = fake
        .wait_for("the reply", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| !m.deleted && m.content.contains("could not do that"))
        })
        .await;
    // Struck through, with why and what would let it run.
    assert!(
        reply.content.contains(
            "~~Bash(rm -rf /tmp/nothing-here)~~ — denied: not allowed in don't-ask mode; \
             switch /permissions to \"ask first\" to approve calls like this"
        ),
        "{}",
        reply.content
    );
    // The denied call's error result says nothing more.
    assert!(!reply.content.contains("— error"), "{}", reply.content);
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_answer_says_no_response() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("say nothing") {
            Reply::Text(String::new())
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.send_dm(OWNER_ID, "say nothing").await;
    fake.wait_for("the empty-answer line", LIMIT, |f| {
        f.bot_messages(DM_CHANNEL_ID)
            .iter()
            .any(|m| !m.deleted && m.content == "no response — try again.")
            .then_some(())
    })
    .await;
    assert!(bot.stop().await);
}
