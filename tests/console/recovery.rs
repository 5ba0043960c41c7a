//! When things go sideways: an interrupted answer, a compaction, a CLI that dies mid-turn.

use std::time::Duration;

use crate::bot::{children_named, Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test]
async fn a_new_message_interrupts_a_long_answer_and_is_answered() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("second question") {
            Reply::Text("short answer".into())
        } else {
            Reply::SlowText {
                chunks: (1..=20).map(|i| format!("slow part {i}\n")).collect(),
                delay: Duration::from_millis(400),
            }
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("first question, take your time").await;
    bot.expect("slow part 1").await;
    bot.say("second question").await;
    bot.expect("short answer").await;
    let seen = bot.finish().await;
    assert!(
        !seen.iter().any(|l| l.contains("slow part 20")),
        "the long answer was cut off: {seen:#?}"
    );
}

#[tokio::test]
async fn compaction_is_shown_and_the_message_answered_exactly_once() {
    let mock = MockModelApi::start(|req| {
        let latest = req.latest_user_text();
        if latest.contains("CRITICAL: Respond with TEXT ONLY") {
            return Reply::Text("summary of the conversation so far".into());
        }
        if latest.contains("second message") && !req.mentions("summary of the conversation so far")
        {
            return Reply::PromptTooLong;
        }
        if latest.contains("second message") {
            return Reply::Text("answer to the second message".into());
        }
        Reply::Text("answer to the first message".into())
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    // Enough exchanges to compact: 2.1.197 refuses to compact a single one (`too_few_groups`;
    // what the bot says then is pinned below).
    for line in ["first message", "and again", "once more"] {
        bot.say(line).await;
        bot.expect("answer to the first message").await;
    }
    bot.say("second message").await;
    bot.expect("auto-compacted").await;
    bot.expect("answer to the second message").await;
    let seen = bot.finish().await;
    let answers = seen
        .iter()
        .filter(|l| l.contains("answer to the second message"))
        .count();
    assert_eq!(answers, 1, "answered exactly once: {seen:#?}");
    let asked = mock
        .agent_requests()
        .iter()
        .filter(|r| {
            r.latest_user_text().contains("second message")
                && r.mentions("summary of the conversation so far")
        })
        .count();
    assert_eq!(asked, 1, "the model was asked once after compacting");
}

#[tokio::test]
async fn a_compaction_that_fails_says_the_conversation_no_longer_fits_and_what_helps() {
    // The summary call is refused too, so the CLI's compaction fails (`exhausted` on every
    // release; 2.1.197 also fails one of a single exchange, `too_few_groups`).
    let mock = MockModelApi::start(|req| {
        let latest = req.latest_user_text();
        if latest.contains("CRITICAL: Respond with TEXT ONLY") || latest.contains("overflow") {
            return Reply::PromptTooLong;
        }
        Reply::Text("answered".into())
    })
    .await
    .unwrap();
    mock.script_side_calls(|_| Reply::PromptTooLong);
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    for line in ["first message", "and again", "once more"] {
        bot.say(line).await;
        bot.expect("answered").await;
    }
    bot.say("overflow now").await;
    bot.expect("the conversation no longer fits the model")
        .await;
    // It still answers what fits after a /clear.
    bot.say("/clear").await;
    bot.expect("conversation cleared").await;
    bot.say("a fresh start").await;
    bot.expect("answered").await;
    let seen = bot.finish().await;
    let told = seen
        .iter()
        .find(|l| l.contains("no longer fits"))
        .expect("told");
    assert!(
        told.contains("compacting failed") && told.contains("/clear"),
        "{told}"
    );
    assert!(
        !seen.iter().any(|l| l.contains("something went wrong")),
        "{seen:#?}"
    );
}

#[tokio::test]
async fn a_cli_killed_mid_turn_gives_an_error_and_the_next_turn_works() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("after the crash") {
            Reply::Text("recovered fine".into())
        } else {
            Reply::SlowText {
                chunks: (1..=30).map(|i| format!("part {i}\n")).collect(),
                delay: Duration::from_millis(300),
            }
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("start something long").await;
    bot.expect("part 1").await;
    let clis = children_named(bot.pid(), "claude");
    assert!(!clis.is_empty(), "the bot runs a claude child");
    for pid in clis {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    bot.expect("stopped unexpectedly").await;
    bot.say("after the crash").await;
    bot.expect("recovered fine").await;
    bot.finish().await;
}

#[tokio::test]
async fn a_cli_that_stops_answering_mid_turn_is_replaced() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("are you there") {
            Reply::Text("back again".into())
        } else {
            // The model goes silent for far longer than the bot's hang limit.
            Reply::SlowText {
                chunks: vec!["never".into()],
                delay: Duration::from_secs(60),
            }
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start_with(&home, &mock, &[("OLLIM_HANG_TIMEOUT_SECS", "3")]).await;
    bot.say("think about this").await;
    bot.expect("stopped responding").await;
    bot.say("are you there?").await;
    bot.expect("back again").await;
    bot.finish().await;
}
