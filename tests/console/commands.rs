//! Slash commands on the console: `/config`, `/model`, `/thinking`, `/permissions`,
//! `/version`, `/cost`, `/clear`.

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test]
async fn config_model_and_cost_answer_and_persist() {
    let mock = MockModelApi::start(|_| Reply::Text("fine".into()))
        .await
        .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("/config").await;
    let line = bot.expect("model.main:").await;
    assert_eq!(
        line.trim(),
        "model.main: cli default (default) — opus, sonnet, haiku or default",
        "each key shows its valid values"
    );
    bot.expect("bg_fork_timeout: 1800s (default)").await;
    bot.say("/model sonnet").await;
    bot.expect("model.main set to sonnet").await;
    bot.say("/model gpt").await;
    bot.expect("model.main: \"gpt\" is not allowed").await;
    bot.say("/config fork_idle_timeout 15").await;
    bot.expect("fork_idle_timeout set to").await;
    bot.say("how are you").await;
    bot.expect("fine").await;
    bot.say("/cost").await;
    bot.expect("cost this run: $").await;
    bot.finish().await;
    let saved = std::fs::read_to_string(home.state("config.json")).expect("config saved");
    let json: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(json["model_main"], "sonnet", "{saved}");
    let last = mock.agent_requests().last().unwrap().body["model"].clone();
    assert!(
        last.as_str().unwrap_or_default().contains("sonnet"),
        "model switched: {last}"
    );
}

#[tokio::test]
async fn clear_starts_a_new_session_and_records_it() {
    let mock = MockModelApi::start(|_| Reply::Text("sure".into()))
        .await
        .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("remember this").await;
    bot.expect("sure").await;
    let before = std::fs::read_to_string(home.state("sessions.json")).unwrap();
    bot.say("/clear").await;
    bot.expect("conversation cleared").await;
    bot.finish().await;
    let after = std::fs::read_to_string(home.state("sessions.json")).unwrap();
    assert_ne!(before.trim(), after.trim(), "a new session id");
    let history = std::fs::read_to_string(home.state("session_history.jsonl")).unwrap();
    let events: Vec<serde_json::Value> = history
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events[0]["event"], "created");
    let cleared = events.last().unwrap();
    assert_eq!(cleared["event"], "cleared");
    assert_eq!(cleared["session_id"], after.trim());
    assert_eq!(cleared["parent_session_id"], before.trim());
}

#[tokio::test]
async fn settings_without_a_value_show_the_one_in_force_and_forks_refuse_changes() {
    let mock = MockModelApi::start(|_| Reply::Text("ok".into()))
        .await
        .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("/version").await;
    let line = bot.expect("ollim-bot v").await;
    assert!(is_release_line(line.trim()), "{line}");
    bot.say("/model").await;
    bot.expect("model.main: cli default (default)").await;
    bot.say("/thinking").await;
    bot.expect("thinking.main: off (default)").await;
    bot.say("/permissions").await;
    let line = bot
        .expect("permission mode: don't ask — tools that aren't allowed are refused without asking (default)")
        .await;
    assert!(
        !line.contains("dontAsk"),
        "plain words, not the CLI's name: {line}"
    );
    bot.say("/model haiku").await;
    bot.expect("model.main set to haiku").await;
    bot.say("/model").await;
    bot.expect("model.main: haiku").await;
    // The plain name is accepted, and so is the CLI's own.
    bot.say("/permissions ask first").await;
    bot.expect("permission mode: ask first").await;
    bot.say("/permissions acceptEdits").await;
    bot.expect("permission mode: allow file edits").await;
    bot.say("/permissions").await;
    let line = bot.expect("permission mode: allow file edits").await;
    assert!(!line.contains("(default)"), "{line}");
    bot.say("/fork planning").await;
    bot.expect("Forked Session").await;
    bot.say("/model opus").await;
    bot.expect("exit fork first.").await;
    bot.say("/thinking 8000").await;
    bot.expect("exit fork first.").await;
    bot.say("/model").await;
    bot.expect("model.fork: same as main (default)").await;
    bot.say("/thinking").await;
    bot.expect("thinking.fork: adaptive (default)").await;
    bot.say("/permissions").await;
    bot.expect("(this fork only)").await;
    bot.say("/exit-fork").await;
    bot.expect("Fork Ended").await;
    bot.say("/model").await;
    bot.expect("model.main: haiku").await;
    bot.finish().await;
    let saved = std::fs::read_to_string(home.state("config.json")).expect("config saved");
    assert!(
        saved.contains("\"haiku\""),
        "the fork did not change it: {saved}"
    );
}

/// `ollim-bot v0.2.0` (a tagged build) or `ollim-bot v0.1.0+dev (abc1234)`.
fn is_release_line(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("ollim-bot v") else {
        return false;
    };
    let numbers =
        |v: &str| v.split('.').count() == 3 && v.split('.').all(|n| n.parse::<u32>().is_ok());
    match rest.split_once("+dev (") {
        None => numbers(rest),
        Some((version, hash)) => {
            numbers(version)
                && hash.strip_suffix(')').is_some_and(|h| {
                    (h.len() == 7 && h.chars().all(|c| c.is_ascii_hexdigit())) || h == "unknown"
                })
        }
    }
}
