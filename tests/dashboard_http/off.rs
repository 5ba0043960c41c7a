//! Without a dashboard: `ollim-bot dashboard` says plainly why there is no link.

use crate::console_bot::{Bot, Home};
use crate::doors::dashboard_command;
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test]
async fn the_command_says_when_no_bot_runs_or_the_dashboard_is_off() {
    let home = Home::new();
    let (ok, text) = dashboard_command(&home.data);
    assert!(!ok, "{text}");
    assert!(text.contains("no ollim-bot is running"), "{text}");

    let mock = MockModelApi::start(|_| Reply::Text("ok".into()))
        .await
        .expect("mock");
    // DASHBOARD_PORT=off is the harness's default.
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("/dashboard").await;
    bot.expect("the dashboard is not running").await;
    let (ok, text) = dashboard_command(&home.data);
    assert!(!ok, "{text}");
    assert!(
        text.contains("the dashboard is not running in this bot"),
        "{text}"
    );
    bot.finish().await;

    // A port another program holds: the bot still runs, and says the dashboard could not start.
    let held = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = held.local_addr().expect("address").port().to_string();
    let mut bot = Bot::start_with(&home, &mock, &[("DASHBOARD_PORT", &port)]).await;
    bot.say("/dashboard").await;
    bot.expect("the dashboard is not running").await;
    bot.finish().await;
    assert!(
        bot_log_mentions(&home, "dashboard failed to start"),
        "the failure is logged"
    );
}

fn bot_log_mentions(home: &Home, needle: &str) -> bool {
    let dir = home.data.join("logs");
    std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            std::fs::read_to_string(e.path())
                .map(|t| t.contains(needle))
                .unwrap_or(false)
        })
}
