//! Slash commands through poise: `/compact` (one line when done), `/interrupt` (silent),
//! `/version` and `/model`, `/thinking`, `/permissions` without a value answer with the SPEC's
//! wording; `/usage` adds up the usage and run histories; a stranger, or the owner outside DMs,
//! is told "not authorized". `/config` and `/ping-budget`, which change settings, are in
//! `config_commands.rs`, which reads the answers the same way (`answer_text`).

use serde_json::{json, Value};

use crate::bot::{Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID, STRANGER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};
use crate::support::usage_records;

/// The text of everything the bot answered to an interaction.
pub(crate) fn answer_text(fake: &FakeDiscord, interaction: u64) -> Option<String> {
    let texts: Vec<String> = fake
        .interaction_responses(interaction)
        .iter()
        .filter_map(|body| {
            body.get("data")
                .and_then(|d| d.get("content"))
                .or_else(|| body.get("content"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .filter(|t| !t.is_empty())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

pub(crate) async fn started() -> (MockModelApi, FakeDiscord, Home, Bot) {
    let mock = MockModelApi::start(|_req| Reply::Text("ok".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    (mock, fake, home, bot)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_from_a_stranger_or_outside_dms_are_not_authorized() {
    let (_mock, fake, _home, bot) = started().await;
    let stranger = fake.slash(STRANGER_ID, "ping-budget", json!([])).await;
    let text = fake
        .wait_for("the stranger's refusal", LIMIT, |f| {
            answer_text(f, stranger)
        })
        .await;
    assert_eq!(text, "not authorized");
    let guild = fake.slash_in_guild(OWNER_ID, "clear", json!([])).await;
    let text = fake
        .wait_for("the guild refusal", LIMIT, |f| answer_text(f, guild))
        .await;
    assert_eq!(text, "not authorized");
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_settings_and_usage_without_a_value_answer_with_what_is_in_force() {
    let (_mock, fake, home, bot) = started().await;
    let asked = fake.slash(OWNER_ID, "version", json!([])).await;
    let text = fake
        .wait_for("the version", LIMIT, |f| answer_text(f, asked))
        .await;
    assert!(is_release_line(&text), "{text}");
    // `/dashboard` (SPEC §21) says why there is no link: the harness runs with the dashboard off.
    let asked = fake.slash(OWNER_ID, "dashboard", json!([])).await;
    let text = fake
        .wait_for("the dashboard answer", LIMIT, |f| answer_text(f, asked))
        .await;
    assert!(text.starts_with("the dashboard is not running"), "{text}");
    for (command, expected) in [
        ("model", "model.main: cli default (default)"),
        ("thinking", "thinking.main: off (default)"),
        (
            "permissions",
            "permission mode: don't ask — tools that aren't allowed are refused without asking (default)",
        ),
    ] {
        let asked = fake.slash(OWNER_ID, command, json!([])).await;
        let text = fake
            .wait_for(command, LIMIT, |f| answer_text(f, asked))
            .await;
        assert_eq!(text, expected, "/{command}");
    }
    // `/permissions` offers its modes in plain words, not the CLI's camelCase names.
    let labels = choice_names(&fake, "permissions", "mode");
    assert_eq!(
        labels
            .iter()
            .map(|l| l.split(" — ").next().unwrap_or_default())
            .collect::<Vec<_>>(),
        [
            "don't ask",
            "ask first",
            "allow file edits",
            "allow everything"
        ],
        "{labels:?}"
    );
    for camel in ["dontAsk", "acceptEdits", "bypassPermissions"] {
        assert!(!labels.iter().any(|l| l.contains(camel)), "{labels:?}");
    }

    // `/usage` (SPEC §19) adds up exactly the lines inside each window: known lines on the
    // windows' edges, older ones left out, one corrupt line left out with a warning.
    let now = chrono::Utc::now();
    usage_records::write_known(&home.data, now);
    let asked = fake.slash(OWNER_ID, "usage", json!([])).await;
    let text = fake
        .wait_for("the usage", LIMIT, |f| answer_text(f, asked))
        .await;
    let mut expected = Vec::new();
    for days in [1, 7, 30] {
        expected.extend(usage_records::window_lines(now, days, &[]));
    }
    expected.extend([
        "top jobs, last 30 days:".to_owned(),
        "  $4.1250 · 2 runs · routine aaaa1111 · Job aaaa1111".to_owned(),
        "  $0.0625 · 1 run · reminder bbbb2222 · Job bbbb2222".to_owned(),
        usage_records::SKIPPED_WARNING.to_owned(),
    ]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[..lines.len() - 1], expected[..], "{text}");
    assert!(lines[lines.len() - 1].contains("subscription"), "{text}");
    let asked = fake
        .slash(
            OWNER_ID,
            "usage",
            json!([{"name": "days", "type": 4, "value": 7}]),
        )
        .await;
    let text = fake
        .wait_for("the week's usage", LIMIT, |f| answer_text(f, asked))
        .await;
    let week = usage_records::window_lines(now, 7, &[]);
    assert!(text.contains(&week.join("\n")), "{text}");
    assert!(!text.contains("30 days"), "{text}");
    assert!(bot.stop().await);
}

/// The choice names the bot registered for `command`'s option `option`.
fn choice_names(fake: &FakeDiscord, command: &str, option: &str) -> Vec<String> {
    let commands = fake.command_overwrites();
    let registered = commands
        .last()
        .and_then(Value::as_array)
        .and_then(|all| all.iter().find(|c| c["name"] == command))
        .cloned()
        .unwrap_or_else(|| panic!("/{command} registered"));
    registered["options"]
        .as_array()
        .and_then(|o| o.iter().find(|o| o["name"] == option))
        .and_then(|o| o["choices"].as_array())
        .map(|c| {
            c.iter()
                .filter_map(|c| c["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_answers_silently() {
    let (_mock, fake, _home, bot) = started().await;
    let asked = fake.slash(OWNER_ID, "interrupt", json!([])).await;
    fake.wait_for("the deferred answer deleted", LIMIT, |f| {
        f.interaction_responses(asked)
            .iter()
            .any(|r| r.get("deleted").is_some())
            .then_some(())
    })
    .await;
    assert_eq!(answer_text(&fake, asked), None, "nothing said");
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_answers_with_one_line_and_leaves_no_status_behind() {
    let mock = MockModelApi::start(|req| {
        if req
            .latest_user_text()
            .contains("CRITICAL: Respond with TEXT ONLY")
        {
            Reply::Text("summary of the conversation so far".into())
        } else {
            Reply::Text("noted".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let bot = Bot::start(&home, &mock, &fake).await;
    fake.send_dm(OWNER_ID, "remember the blue folder").await;
    crate::bot::said(&fake, "noted").await;
    let before = fake.bot_messages(DM_CHANNEL_ID).len();
    let compact = fake.slash(OWNER_ID, "compact", json!([])).await;
    let said = fake
        .wait_for("/compact's answer", LIMIT, |f| answer_text(f, compact))
        .await;
    assert!(said.starts_with("compacted · "), "{said}");
    assert!(!said.contains('\n'), "one line: {said}");
    let left: Vec<String> = fake.bot_messages(DM_CHANNEL_ID)[before..]
        .iter()
        .filter(|m| !m.deleted)
        .map(|m| m.content.clone())
        .collect();
    // Besides the answer (the deferred reply, posted first), only the memory flush's line
    // (SPEC §18).
    assert_eq!(
        left,
        [said, "-# saving what to remember…".to_owned()],
        "nothing else stays in the DM"
    );
    assert!(bot.stop().await);
}
