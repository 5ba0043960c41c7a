//! Files both ways on Discord (SPEC §16): what the owner attaches that is not an image is kept
//! in `downloads/` and named to the agent (a clash gets `-2`; a file over the cap is refused
//! with a word to the owner), and `send_file` reaches the owner's DM as an uploaded attachment.

use serde_json::json;

use crate::bot::{Bot, Home, LIMIT};
use crate::support::fake_discord::{Attachment, Dm, FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

/// The largest file the bot keeps (25 MiB).
const CAP: usize = 25 * 1024 * 1024;

/// The owner sends `content` with one attachment.
async fn send_file_dm(fake: &FakeDiscord, content: &str, name: &str, bytes: Vec<u8>) {
    fake.send_dm_with(Dm {
        author: OWNER_ID,
        content: content.into(),
        attachments: vec![Attachment {
            filename: name.into(),
            content_type: "application/octet-stream".into(),
            bytes,
        }],
        reply_to: None,
    })
    .await;
}

/// The agent's request carrying `text`, once the model has received it.
async fn request_with(fake: &FakeDiscord, mock: &MockModelApi, text: &str) -> ModelRequest {
    fake.wait_for("the model request", LIMIT, |_| {
        mock.agent_requests()
            .into_iter()
            .find(|r| r.latest_user_text().contains(text))
    })
    .await
}

/// Waits for the `n`th answer of the bot ("got it"), so turns do not overlap.
async fn answers(fake: &FakeDiscord, n: usize) {
    fake.wait_for("the answer", LIMIT, |f| {
        let done = f
            .bot_messages(DM_CHANNEL_ID)
            .iter()
            .filter(|m| !m.deleted && m.content == "got it")
            .count();
        (done >= n).then_some(())
    })
    .await;
}

fn downloads(home: &Home) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(home.data.join("downloads"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_the_owner_sends_are_kept_in_downloads_and_named_to_the_agent() {
    let mock = MockModelApi::start(|_req| Reply::Text("got it".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;

    send_file_dm(&fake, "read this", "report.pdf", b"%PDF-1.7 first".to_vec()).await;
    let first = home.data.join("downloads").join("report.pdf");
    let req = request_with(&fake, &mock, "read this").await;
    let said = req.latest_user_text();
    assert!(
        said.contains(&format!("[attached file saved to {}]", first.display())),
        "{said}"
    );
    assert_eq!(std::fs::read(&first).unwrap(), b"%PDF-1.7 first");
    answers(&fake, 1).await;

    // The same name again: kept beside the first, which is untouched.
    send_file_dm(
        &fake,
        "and this one",
        "report.pdf",
        b"%PDF-1.7 second".to_vec(),
    )
    .await;
    let second = home.data.join("downloads").join("report-2.pdf");
    let req = request_with(&fake, &mock, "and this one").await;
    let said = req.latest_user_text();
    assert!(
        said.contains(&format!("[attached file saved to {}]", second.display())),
        "{said}"
    );
    assert_eq!(std::fs::read(&second).unwrap(), b"%PDF-1.7 second");
    assert_eq!(std::fs::read(&first).unwrap(), b"%PDF-1.7 first");
    answers(&fake, 2).await;

    // One byte over the cap: the owner is told, the agent hears it was not saved, and nothing
    // is written.
    send_file_dm(&fake, "a huge log", "huge.log", vec![b'x'; CAP + 1]).await;
    let word = fake
        .wait_for("the word to the owner", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.content.contains("huge.log"))
        })
        .await;
    assert_eq!(
        word.content,
        "-# not saved: huge.log is larger than the 25 MB limit (25.0 MB)"
    );
    let req = request_with(&fake, &mock, "a huge log").await;
    let said = req.latest_user_text();
    assert!(
        said.contains("[attached file not saved: huge.log is larger than the 25 MB limit"),
        "{said}"
    );
    answers(&fake, 3).await;
    assert_eq!(downloads(&home), ["report-2.pdf", "report.pdf"]);
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_file_uploads_the_file_to_the_owners_dm() {
    let mock = MockModelApi::start(|req| {
        if let Some((_, output, _)) = req.tool_results().first() {
            Reply::Text(format!("tool said: {output}"))
        } else if req.latest_user_text().contains("send me the plan") {
            Reply::ToolUse {
                name: "mcp__discord__send_file".into(),
                input: json!({"path": "notes/plan.txt", "caption": "today's plan"}),
            }
        } else {
            Reply::Text("ok".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    home.write("notes/plan.txt", "1. coffee\n2. ferns\n");
    let bot = Bot::start(&home, &mock, &fake).await;

    fake.send_dm(OWNER_ID, "send me the plan").await;
    let sent = fake
        .wait_for("the uploaded file", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| !m.attachments.is_empty())
        })
        .await;
    assert_eq!(sent.content, "today's plan");
    assert_eq!(sent.attachments.len(), 1, "{:?}", sent.attachments);
    let id: u64 = sent.attachments[0]["id"]
        .as_str()
        .and_then(|id| id.parse().ok())
        .expect("an attachment id");
    let file = fake.attachment(id).expect("the uploaded bytes");
    assert_eq!(file.filename, "plan.txt");
    assert_eq!(file.bytes, b"1. coffee\n2. ferns\n");
    // It went up as multipart: the JSON part names the file it attaches.
    let upload = fake
        .requests()
        .into_iter()
        .find(|r| {
            r.method == "POST"
                && r.path == format!("/api/v10/channels/{DM_CHANNEL_ID}/messages")
                && r.body["content"] == "today's plan"
        })
        .expect("the upload request");
    assert_eq!(
        upload.body["attachments"][0]["filename"], "plan.txt",
        "{}",
        upload.body
    );
    fake.wait_for("the model's account", LIMIT, |f| {
        f.bot_messages(DM_CHANNEL_ID)
            .into_iter()
            .find(|m| !m.deleted && m.content.ends_with("tool said: File sent."))
    })
    .await;
    assert!(bot.stop().await);
}
