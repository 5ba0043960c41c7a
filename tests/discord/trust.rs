//! The trust boundary on Discord (SPEC §20): what the bot posts and logs never carries the
//! Discord token or a webhook secret.

use crate::bot::{greetings, Bot, Home, LIMIT, TOKEN};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
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
