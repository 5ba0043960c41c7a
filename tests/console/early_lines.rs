//! Lines that arrive while the conversation's CLI is still starting: every one is answered, once,
//! on every supported CLI release (each folds lines sent close together by rules of its own), and
//! the conversation is free for the next line.

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

const LINES: [&str; 3] = ["alpha line", "bravo line", "charlie line"];

/// The mock answers each request by naming which of [`LINES`] its last user message holds.
fn answer_naming_the_lines() -> impl Fn(&crate::support::mock_model_api::ModelRequest) -> Reply {
    |req| {
        let text = req.latest_user_text();
        let named: Vec<&str> = LINES.iter().copied().filter(|l| text.contains(l)).collect();
        if named.is_empty() {
            Reply::Text("hello there".into())
        } else {
            Reply::Text(format!("answering {}", named.join(" + ")))
        }
    }
}

#[tokio::test]
async fn two_lines_during_the_start_are_both_answered_and_a_later_line_too() {
    let mock = MockModelApi::start(answer_naming_the_lines())
        .await
        .unwrap();
    let home = Home::new();
    let mut bot = Bot::start_with(
        &home,
        &mock,
        &[
            ("OLLIM_LOG_FILE", "/tmp/early-bot.log"),
            (
                "RUST_LOG",
                "debug,actix=info,h2=info,hyper=info,reqwest=info",
            ),
        ],
    )
    .await;
    // Before the CLI has started (the greeting comes once it has).
    bot.say(LINES[0]).await;
    bot.say(LINES[1]).await;
    bot.expect("answering").await;
    let answered = |seen: &[String], line: &str| {
        seen.iter()
            .any(|s| s.contains("answering") && s.contains(line))
    };
    while !(answered(&bot.seen, LINES[0]) && answered(&bot.seen, LINES[1])) {
        bot.expect("answering").await;
    }
    bot.say(LINES[2]).await;
    bot.expect(&format!("answering {}", LINES[2])).await;
    let seen = bot.finish().await;
    for line in LINES {
        let times = seen
            .iter()
            .filter(|s| s.contains("answering") && s.contains(line))
            .count();
        assert_eq!(times, 1, "{line:?} answered once: {seen:#?}");
    }
    assert!(
        !seen.iter().any(|s| s.contains("still busy at shutdown")),
        "{seen:#?}"
    );
}
