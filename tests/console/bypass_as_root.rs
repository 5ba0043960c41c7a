//! `bypassPermissions` and the CLI's root rule (SPEC §11): run as root without `IS_SANDBOX=1`,
//! the CLI refuses the mode, so a configured bypass must not leave every message failing.

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

/// Whether this test process runs as root (the bot it starts does too).
fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|r| r.split_whitespace().next().map(|u| u == "0"))
        })
        .unwrap_or(false)
}

#[tokio::test]
async fn a_configured_bypass_as_root_is_explained_and_messages_still_get_answers() {
    let mock = MockModelApi::start(|_| Reply::Text("answered".into()))
        .await
        .unwrap();
    let home = Home::new();
    home.write(
        "state/config.json",
        r#"{"permission_mode": "bypassPermissions"}"#,
    );
    let mut bot = Bot::start_with(&home, &mock, &[("IS_SANDBOX", "0")]).await;
    bot.say("hello").await;
    if running_as_root() {
        let notice = bot.expect("bypassPermissions").await;
        assert!(notice.contains("IS_SANDBOX=1"), "{notice}");
    }
    bot.expect("answered").await;
    bot.say("and again").await;
    bot.expect("answered").await;
    bot.say("/config permission_mode bypassPermissions").await;
    if running_as_root() {
        let refusal = bot.expect("bypassPermissions isn't available").await;
        assert!(refusal.contains("IS_SANDBOX=1"), "{refusal}");
    } else {
        bot.expect("permission_mode set to bypassPermissions").await;
    }
    bot.finish().await;
}

#[tokio::test]
async fn with_is_sandbox_set_the_configured_bypass_is_used() {
    let mock = MockModelApi::start(|_| Reply::Text("answered".into()))
        .await
        .unwrap();
    let home = Home::new();
    home.write(
        "state/config.json",
        r#"{"permission_mode": "bypassPermissions"}"#,
    );
    let mut bot = Bot::start_with(&home, &mock, &[("IS_SANDBOX", "1")]).await;
    bot.say("hello").await;
    bot.expect("answered").await;
    let seen = bot.finish().await;
    assert!(
        !seen.iter().any(|l| l.contains("isn't available")),
        "{seen:#?}"
    );
}
