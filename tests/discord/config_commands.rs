//! The slash commands that change settings, through poise: `/ping-budget` (the budget, and the
//! quiet hours set through `/config`) and `/config` (every key with its default, a change
//! validated and saved, its values offered for the chosen key).

use serde_json::{json, Value};

use crate::bot::LIMIT;
use crate::commands::{answer_text, started};
use crate::support::fake_discord::{FakeDiscord, OWNER_ID};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_budget_shows_the_budget_and_sets_it() {
    let (_mock, fake, _home, bot) = started().await;
    let shown = fake.slash(OWNER_ID, "ping-budget", json!([])).await;
    let text = fake
        .wait_for("the budget", LIMIT, |f| answer_text(f, shown))
        .await;
    assert_eq!(
        text, "budget: 5/5\nquiet hours: off",
        "a fresh budget, nothing used today, no quiet hours"
    );

    let set = fake
        .slash(
            OWNER_ID,
            "ping-budget",
            json!([{"name": "capacity", "type": 4, "value": 3}]),
        )
        .await;
    let text = fake
        .wait_for("the update", LIMIT, |f| answer_text(f, set))
        .await;
    assert!(text.starts_with("ping budget updated"), "{text}");
    let again = fake.slash(OWNER_ID, "ping-budget", json!([])).await;
    let text = fake
        .wait_for("the new budget", LIMIT, |f| answer_text(f, again))
        .await;
    assert_eq!(
        text, "budget: 3/3\nquiet hours: off",
        "capacity 3 caps what was available"
    );

    let quiet = fake
        .slash(
            OWNER_ID,
            "config",
            json!([{"name": "key", "type": 4, "value": key_choice(&fake, "quiet_hours")},
                   {"name": "value", "type": 3, "value": "23:30-23:31"}]),
        )
        .await;
    let set = fake
        .wait_for("the quiet hours set", LIMIT, |f| answer_text(f, quiet))
        .await;
    assert_eq!(set, "quiet_hours set to 23:30-23:31");
    let shown = fake.slash(OWNER_ID, "ping-budget", json!([])).await;
    let text = fake
        .wait_for("the budget with the window", LIMIT, |f| {
            answer_text(f, shown)
        })
        .await;
    // A one-minute window: "(in effect until …)" follows only in that minute.
    assert!(
        text.starts_with("budget: 3/3\nquiet hours: 23:30-23:31"),
        "{text}"
    );
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_lists_every_key_with_defaults_and_validates_a_change() {
    let (_mock, fake, home, bot) = started().await;
    let all = fake.slash(OWNER_ID, "config", json!([])).await;
    let text = fake
        .wait_for("the settings", LIMIT, |f| answer_text(f, all))
        .await;
    for key in [
        "model.main",
        "model.fork",
        "thinking.main",
        "thinking.fork",
        "bg_fork_timeout",
        "fork_idle_timeout",
        "permission_mode",
        "auto_update",
        "auto_update_interval",
        "auto_update_hour",
        "quiet_hours: off (default)",
        "main_idle_release: 30m (default)",
        "google_calendars: primary (default)",
        "google_task_list: @default (default)",
        "memory_flush: on (default)",
        "memory_flush_at: 70% (default)",
    ] {
        assert!(text.contains(key), "{key} missing from {text}");
    }
    assert!(text.contains("bg_fork_timeout: 1800s (default)"), "{text}");
    assert!(
        text.contains("model.main: cli default (default) — opus, sonnet, haiku or default"),
        "each key shows its valid values: {text}"
    );

    let bad = fake
        .slash(
            OWNER_ID,
            "config",
            json!([{"name": "key", "type": 4, "value": key_choice(&fake, "bg_fork_timeout")},
                   {"name": "value", "type": 3, "value": "soon"}]),
        )
        .await;
    let refusal = fake
        .wait_for("the refusal", LIMIT, |f| answer_text(f, bad))
        .await;
    assert!(
        refusal.contains("bg_fork_timeout: \"soon\" is not allowed"),
        "{refusal}"
    );
    let good = fake
        .slash(
            OWNER_ID,
            "config",
            json!([{"name": "key", "type": 4, "value": key_choice(&fake, "bg_fork_timeout")},
                   {"name": "value", "type": 3, "value": "900"}]),
        )
        .await;
    let changed = fake
        .wait_for("the change", LIMIT, |f| answer_text(f, good))
        .await;
    assert!(changed.contains("900"), "{changed}");
    for (key, value, refusal_words) in [
        (
            "quiet_hours",
            "22:00",
            "off, or a local window such as 22:00-08:00",
        ),
        ("main_idle_release", "1441", "from 0 (never) to 1440"),
    ] {
        let bad = fake
            .slash(
                OWNER_ID,
                "config",
                json!([{"name": "key", "type": 4, "value": key_choice(&fake, key)},
                       {"name": "value", "type": 3, "value": value}]),
            )
            .await;
        let refusal = fake
            .wait_for("the refusal", LIMIT, |f| answer_text(f, bad))
            .await;
        assert!(
            refusal.contains(&format!("{key}: \"{value}\" is not allowed"))
                && refusal.contains(refusal_words),
            "{refusal}"
        );
    }
    for (key, value, confirmation) in [
        (
            "quiet_hours",
            "22:00-8:00",
            "quiet_hours set to 22:00-08:00",
        ),
        ("main_idle_release", "0", "main_idle_release set to never"),
    ] {
        let good = fake
            .slash(
                OWNER_ID,
                "config",
                json!([{"name": "key", "type": 4, "value": key_choice(&fake, key)},
                       {"name": "value", "type": 3, "value": value}]),
            )
            .await;
        let said = fake
            .wait_for("the change", LIMIT, |f| answer_text(f, good))
            .await;
        assert_eq!(said, confirmation);
    }
    let stored = std::fs::read_to_string(home.state("config.json")).unwrap_or_default();
    assert!(
        stored.contains("900")
            && stored.contains("\"22:00-08:00\"")
            && stored.contains("\"main_idle_release\": 0"),
        "saved in state/config.json: {stored}"
    );

    // The value is offered for the chosen key while it is typed, the default marked.
    for (key, typed, offered) in [
        (
            "model.main",
            "",
            vec!["opus", "sonnet", "haiku", "default (default)"],
        ),
        ("thinking.fork", "ad", vec!["adaptive (default)"]),
        ("auto_update", "", vec!["on", "off (default)"]),
        ("bg_fork_timeout", "45", vec!["45"]),
    ] {
        let typing = fake
            .autocomplete(
                OWNER_ID,
                "config",
                json!([{"name": "key", "type": 4, "value": key_choice(&fake, key)},
                       {"name": "value", "type": 3, "value": typed, "focused": true}]),
            )
            .await;
        let shown = fake
            .wait_for("the offered values", LIMIT, |f| {
                f.interaction_responses(typing)
                    .iter()
                    .find(|r| r["type"] == 8)
                    .map(|r| r["data"]["choices"].clone())
            })
            .await;
        let names: Vec<&str> = shown
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["name"].as_str())
            .collect();
        assert_eq!(names, offered, "{key} {typed:?}: {shown}");
    }
    assert!(bot.stop().await);
}

/// The value Discord sends for `/config`'s key `name`: its place in the choice list the bot
/// registered (the key is a choice, not free text).
fn key_choice(fake: &FakeDiscord, name: &str) -> u64 {
    let commands = fake.command_overwrites();
    let config = commands
        .last()
        .and_then(Value::as_array)
        .and_then(|all| all.iter().find(|c| c["name"] == "config"))
        .cloned()
        .expect("/config registered");
    let key = config["options"]
        .as_array()
        .and_then(|o| o.iter().find(|o| o["name"] == "key"))
        .cloned()
        .expect("its key option");
    assert_eq!(key["type"], 4, "{key}");
    key["choices"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == name))
        .and_then(|c| c["value"].as_u64())
        .unwrap_or_else(|| panic!("{name} among the choices: {key}"))
}
