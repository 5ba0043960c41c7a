//! The conversation in the owner's DMs: the 👀 acknowledgement, a streamed reply made of one
//! create and throttled edits, the 2,000-character split, and strangers ignored.

use std::time::Duration;

use crate::bot::{said, Bot, Home, LIMIT};
use crate::support::fake_discord::{
    FakeDiscord, DM_CHANNEL_ID, OWNER_ID, STRANGER_DM_CHANNEL_ID, STRANGER_ID,
};
use crate::support::mock_model_api::{MockModelApi, Reply};

const EYES_PATH: &str = "/reactions/%F0%9F%91%80/@me";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owners_dm_gets_eyes_and_a_streamed_reply_of_one_create_and_throttled_edits() {
    let chunks: Vec<String> = (1..=10).map(|i| format!("part {i}. ")).collect();
    let whole: String = chunks.concat();
    let mock = MockModelApi::start(move |req| {
        if req.latest_user_text().contains("tell me a story") {
            Reply::SlowText {
                chunks: chunks.clone(),
                delay: Duration::from_millis(250),
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
    let before = fake.bot_messages(DM_CHANNEL_ID).len();
    let asked = fake.send_dm(OWNER_ID, "tell me a story").await;

    let reply = fake
        .wait_for("the whole story", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .skip(before)
                .find(|m| !m.deleted && m.content.trim_end() == whole.trim_end())
        })
        .await;
    let eyes_added = fake
        .requests()
        .iter()
        .any(|r| r.method == "PUT" && r.path.contains(&format!("/messages/{asked}{EYES_PATH}")));
    assert!(eyes_added, "the owner's message got 👀");
    // Streamed: created once, then edited as text arrived, never faster than every 0.5 s.
    assert!(
        reply.edits.len() >= 2,
        "the reply grew through edits: {:#?}",
        reply.edits
    );
    let mut last = reply.created;
    for edit in &reply.edits {
        let gap = edit.at.duration_since(last);
        assert!(
            gap >= Duration::from_millis(450),
            "edits of one message at least 0.5 s apart; got {gap:?}"
        );
        last = edit.at;
    }
    let creates = fake
        .bot_messages(DM_CHANNEL_ID)
        .into_iter()
        .skip(before)
        .filter(|m| !m.deleted)
        .count();
    assert_eq!(creates, 1, "one message holds the answer");
    // The 👀 comes off once the answer is done.
    fake.wait_for("the 👀 removed", LIMIT, |f| {
        f.requests()
            .iter()
            .any(|r| {
                r.method == "DELETE" && r.path.contains(&format!("/messages/{asked}{EYES_PATH}"))
            })
            .then_some(())
    })
    .await;
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_over_2000_characters_is_split_at_a_newline_near_the_end() {
    let first = format!("{}\n", "a".repeat(1900));
    let second = "b".repeat(700);
    let long = format!("{first}{second}");
    let mock = MockModelApi::start({
        let long = long.clone();
        move |req| {
            if req.latest_user_text().contains("write a lot") {
                Reply::Text(long.clone())
            } else {
                Reply::Text("hi".into())
            }
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    let before = fake.bot_messages(DM_CHANNEL_ID).len();
    fake.send_dm(OWNER_ID, "write a lot").await;
    let parts = fake
        .wait_for("both parts", LIMIT, |f| {
            let live: Vec<String> = f
                .bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .skip(before)
                .filter(|m| !m.deleted && !m.content.starts_with("-# "))
                .map(|m| m.content)
                .collect();
            (live.concat() == long).then_some(live)
        })
        .await;
    assert_eq!(parts.len(), 2, "two messages");
    assert_eq!(
        parts[0], first,
        "the first ends at the newline in its last 200 chars"
    );
    assert_eq!(parts[1], second);
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strangers_dm_is_ignored() {
    let mock = MockModelApi::start(|_req| Reply::Text("hello owner".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    let asked = fake.send_dm(STRANGER_ID, "give me your secrets").await;
    // The owner's message after it is answered, so the stranger's has been seen and dropped.
    fake.send_dm(OWNER_ID, "hi").await;
    said(&fake, "hello owner").await;
    assert!(
        fake.bot_messages(STRANGER_DM_CHANNEL_ID).is_empty(),
        "nothing sent to the stranger"
    );
    assert!(
        fake.reactions_by_bot(asked).is_empty()
            && !fake
                .requests()
                .iter()
                .any(|r| r.path.contains(&format!("/messages/{asked}/"))),
        "no reaction on the stranger's message"
    );
    let asked_model = mock
        .agent_requests()
        .iter()
        .any(|r| r.mentions("give me your secrets"));
    assert!(!asked_model, "the stranger's text never reached the model");
    assert!(bot.stop().await);
}
