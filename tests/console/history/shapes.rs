//! `ollim-bot history` on the record shapes the real CLI writes, as this bot makes them: a
//! background fork's `ping_user` call in a turn of its own (then a short text), a turn of text
//! and a `discord_embed` call written as one record per content block under a shared message
//! id, a fork started while the main session was mid-answer (its transcript carries the
//! parent's records up to the unanswered prompt), and an answer cut off by a new message (the
//! CLI's `[Request interrupted by user]` notice), and a prompt in Greek capitals.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};

use crate::bot::{Bot, Home, LIMIT};
use crate::support::home::background_reminder;
use crate::support::mock_model_api::{MockModelApi, Reply};

use super::{history, stdout, PHRASE};

/// The slow answer, a piece a second: long enough for a background fork to start (under load,
/// its CLI takes a few seconds) while it is still being written.
const SLOW: [&str; 16] = [
    "the tides ",
    "rise ",
    "twice ",
    "a day ",
    "with ",
    "the ",
    "moon's ",
    "pull ",
    "and ",
    "the ",
    "sun's ",
    "too, ",
    "a little ",
    "less ",
    "so ",
    "much",
];

fn script(req: &crate::support::mock_model_api::ModelRequest) -> Reply {
    let text = req.latest_user_text();
    let results = req.tool_results();
    let fresh = results.is_empty();
    if text.contains("[reminder-bg:c0000002]") && fresh {
        Reply::ToolUse {
            name: "mcp__discord__ping_user".into(),
            input: json!({"message": "hello exhausted owl, time for water"}),
        }
    } else if !fresh && req.mentions("[reminder-bg:c0000002]") {
        Reply::Text("pinged them".into())
    } else if text.contains("[reminder-bg:c0000001]") {
        Reply::Text("the garden is fine".into())
    } else if text.contains("show me the tide table") && fresh {
        Reply::TextAndTool {
            text: "here is the tide table".into(),
            name: "mcp__discord__discord_embed".into(),
            input: json!({"title": "Tides", "description": "high water at nine"}),
        }
    } else if !fresh {
        Reply::Text("done".into())
    } else if text.contains("tell me slowly") {
        Reply::SlowText {
            chunks: SLOW.iter().map(|s| s.to_string()).collect(),
            delay: Duration::from_secs(1),
        }
    } else if text.contains("ΣΊΣΥΦΟΣ") {
        Reply::Text("rolled".into())
    } else if text.contains("second question") {
        Reply::Text("short answer".into())
    } else if text.contains("take your time") {
        Reply::SlowText {
            chunks: (1..=20).map(|i| format!("slow part {i}\n")).collect(),
            delay: Duration::from_millis(400),
        }
    } else if text.contains(PHRASE) {
        Reply::Text("noted".into())
    } else {
        Reply::Text("ok".into())
    }
}

/// The transcripts under HOME/.claude/projects, each with its text.
fn transcripts(home: &Home) -> Vec<(PathBuf, String)> {
    let projects = home.home.join(".claude").join("projects");
    let mut out = Vec::new();
    for project in std::fs::read_dir(&projects).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(project.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = file.path();
            if path.extension().is_some_and(|x| x == "jsonl") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                out.push((path, text));
            }
        }
    }
    out
}

/// Waits until a transcript holds every one of `needles` (the CLI writes a record when the
/// turn's stream ends); returns it.
async fn until_written(home: &Home, needles: &[&str]) -> (PathBuf, String) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        if let Some(found) = transcripts(home)
            .into_iter()
            .find(|(_, text)| needles.iter().all(|n| text.contains(n)))
        {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no transcript holds {needles:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The uuid of the user record whose text contains `needle` in `text` (a transcript).
fn prompt_uuid(text: &str, needle: &str) -> String {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| r["type"] == "user" && r["message"]["content"].to_string().contains(needle))
        .and_then(|r| r["uuid"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no prompt with {needle:?}"))
}

fn remind(home: &Home, name: &str, seconds: i64, id: &str, body: &str) {
    std::fs::create_dir_all(home.data.join("reminders")).unwrap();
    std::fs::write(
        home.data.join("reminders").join(name),
        background_reminder(seconds, id, body),
    )
    .unwrap();
}

#[tokio::test]
async fn what_the_bot_sent_forks_and_interruptions_read_as_the_real_cli_wrote_them() {
    let home = Home::new();
    let mock = MockModelApi::start(script).await.unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say(PHRASE).await;
    bot.expect("noted").await;
    bot.say("show me the tide table").await;
    bot.expect("done").await;
    // A reminder fires while an answer is still being written.
    remind(&home, "garden.md", 2, "c0000001", "look in on the garden");
    bot.say("tell me slowly").await;
    bot.expect("so much").await;
    let (fork_a, _) = until_written(&home, &["c0000001", "the garden is fine"]).await;
    remind(&home, "water.md", 1, "c0000002", "check on the owner");
    bot.expect("hello exhausted").await;
    let (fork_b, fork_b_text) = until_written(&home, &["c0000002", "pinged them"]).await;
    bot.say("ΣΊΣΥΦΟΣ rolls the stone").await;
    bot.expect("rolled").await;
    bot.say("first question, take your time").await;
    bot.expect("slow part 1").await;
    bot.say("second question").await;
    bot.expect("short answer").await;
    bot.finish().await;
    drop(mock);

    let all = transcripts(&home);
    let main = all
        .iter()
        .find(|(_, t)| t.contains("second question"))
        .expect("the main session's transcript");
    let id = |p: &PathBuf| p.file_stem().unwrap().to_string_lossy()[..8].to_owned();

    // The shapes, as the CLI wrote them: the embed turn is two records sharing a message id.
    let tide_ids: Vec<String> = main
        .1
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| {
            r["type"] == "assistant"
                && (r.to_string().contains("here is the tide table")
                    || r.to_string().contains("high water at nine"))
        })
        .map(|r| r["message"]["id"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(
        tide_ids.len() == 2 && tide_ids[0] == tide_ids[1],
        "{tide_ids:?}"
    );
    assert!(
        main.1.contains("[Request interrupted by user"),
        "{}",
        main.1
    );

    // What a background fork sent the owner is part of the answer: search -r, response, transcript.
    let found = stdout(&history(&home, &["search", "-r", "hello exhausted"]));
    assert!(found.starts_with("1 match(es)"), "{found}");
    assert!(
        found.contains(&id(&fork_b)) && found.contains("[mcp__discord__ping_user] hello exhausted"),
        "{found}"
    );
    let reminder = prompt_uuid(&fork_b_text, "c0000002");
    let said = stdout(&history(&home, &["response", &reminder[..8]]));
    assert!(
        said.contains("[mcp__discord__ping_user] hello exhausted owl, time for water")
            && said.contains("pinged them"),
        "{said}"
    );
    let whole = stdout(&history(&home, &["transcript", &id(&fork_b)]));
    assert!(
        whole.contains("[mcp__discord__ping_user] hello exhausted"),
        "{whole}"
    );

    // Text and a Discord call in one message (one record per block): both are the answer.
    let tide = prompt_uuid(&main.1, "show me the tide table");
    let said = stdout(&history(&home, &["response", &tide[..8]]));
    assert!(
        said.contains("here is the tide table")
            && said.contains("[mcp__discord__discord_embed] Tides\nhigh water at nine")
            && said.contains("done"),
        "{said}"
    );
    let found = stdout(&history(&home, &["search", "-r", "HIGH WATER"]));
    assert!(found.starts_with("1 match(es)"), "{found}");

    // The fork copied the slow prompt before its answer was written; the answer is the parent's.
    let fork_a_text = std::fs::read_to_string(&fork_a).unwrap();
    let slow = prompt_uuid(&main.1, "tell me slowly");
    assert!(
        fork_a_text.contains(&slow) && !fork_a_text.contains("less so much"),
        "the fork was to start mid-answer: {fork_a_text}"
    );
    let said = stdout(&history(&home, &["response", &slow[..8]]));
    assert!(
        said.contains("the tides rise twice a day with the moon's pull"),
        "{said}"
    );

    // The interruption notice is not a prompt: the main session has its six real ones.
    let prompts = stdout(&history(&home, &["prompts", &id(&main.0)]));
    assert!(!prompts.contains("Request interrupted"), "{prompts}");
    assert!(prompts.contains("· 6 prompts"), "{prompts}");
    let listed = stdout(&history(&home, &["sessions"]));
    let line = listed.lines().find(|l| l.contains(&id(&main.0))).unwrap();
    assert!(line.contains("6 prompts"), "{listed}");
    let notices = stdout(&history(&home, &["search", "-p", "interrupted"]));
    assert!(notices.starts_with("no matches"), "{notices}");

    // Case folds the Unicode way: final sigma, accents.
    let found = stdout(&history(&home, &["search", "-p", "σίσυφος ROLLS"]));
    assert!(found.starts_with("1 match(es)"), "{found}");
    assert!(found.contains("ΣΊΣΥΦΟΣ rolls the stone"), "{found}");
}
