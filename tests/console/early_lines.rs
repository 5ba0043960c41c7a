//! Lines that arrive while the conversation's CLI is still starting: every one is answered, once,
//! on every supported CLI release (each folds lines sent close together by rules of its own), and
//! the conversation is free for the next line. And a line the CLI never takes — lost between
//! the bot and an idle CLI — is sent again once, and answered once.

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
    let mut bot = Bot::start(&home, &mock).await;
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

/// A `claude` that drops the first user line holding `DROP-ME` on its way in (as if the CLI had
/// lost it) and passes everything else to the real CLI.
fn dropping_cli(home: &Home) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let real = crate::support::claude_cli::binary();
    let flag = home.home.join("dropped-once");
    let path = home.home.join("dropping-claude");
    let script = format!(
        "#!/bin/bash\n\
         while IFS= read -r line; do\n\
         if [[ $line == *'\"type\":\"user\"'* && $line == *DROP-ME* && ! -e '{flag}' ]]; then\n\
         : > '{flag}'; continue\n\
         fi\n\
         printf '%s\\n' \"$line\"\n\
         done | '{real}' \"$@\"\n",
        flag = flag.display(),
        real = real.display(),
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[tokio::test]
async fn a_line_the_idle_cli_never_took_is_sent_again_and_answered_once() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if text.contains("DROP-ME") {
            Reply::Text("answering the dropped line".into())
        } else {
            Reply::Text("hello there".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let cli = dropping_cli(&home);
    let cli = cli.display().to_string();
    let mut bot = Bot::start_with(&home, &mock, &[("OLLIM_CLAUDE_BIN", &cli)]).await;
    bot.say("first").await;
    bot.expect("hello there").await;
    // The CLI is idle now; this line never reaches it the first time.
    bot.say("DROP-ME please").await;
    bot.expect("answering the dropped line").await;
    bot.say("and after it").await;
    bot.expect("hello there").await;
    let seen = bot.finish().await;
    assert!(
        home.home.join("dropped-once").exists(),
        "the line was dropped once"
    );
    let answers = seen
        .iter()
        .filter(|s| s.contains("answering the dropped line"))
        .count();
    assert_eq!(answers, 1, "{seen:#?}");
    let asked = mock
        .agent_requests()
        .iter()
        .filter(|r| r.latest_user_text().contains("DROP-ME"))
        .count();
    assert_eq!(asked, 1, "the model was asked about it once");
}
