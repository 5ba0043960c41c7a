//! What the assistant costs *(ours, SPEC §19; issue 27)*, through the console binary and the
//! real CLI: each turn of the conversation and of an interactive fork appends one line to
//! `state/usage.jsonl` with what the CLI reported, and `/usage` and `ollim-bot usage` add up
//! exactly the lines of `usage.jsonl` and `runs.jsonl` inside each window (a corrupt line left
//! out with a warning).

use std::process::Output;
use std::time::Duration;

use serde_json::Value;

use crate::bot::{Bot, Home, LIMIT};
use crate::support::mock_model_api::{MockModelApi, Reply};
use crate::support::usage_records::{self, SKIPPED_WARNING};

fn usage_lines(home: &Home) -> Vec<Value> {
    std::fs::read_to_string(home.state("usage.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("the bot writes lines that parse"))
        .collect()
}

/// Waits (bounded) until the file holds `n` lines of `kind`.
async fn until_lines(home: &Home, kind: &str, n: usize) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let got = usage_lines(home);
        if got.iter().filter(|l| l["kind"] == kind).count() >= n {
            return got;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never {n} {kind} lines: {got:#?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Checks one recorded turn against what the mock reported.
fn assert_turn(line: &Value, kind: &str) {
    assert_eq!(line["kind"], kind, "{line}");
    assert_eq!(
        line["input_tokens"], 4321,
        "the mock's input tokens: {line}"
    );
    assert_eq!(line["output_tokens"], 5, "the mock's output tokens: {line}");
    assert_eq!(line["cache_read_tokens"], 0, "{line}");
    assert_eq!(line["cache_write_tokens"], 0, "{line}");
    assert!(line["cost_usd"].as_f64().unwrap() > 0.0, "{line}");
    assert!(!line["session"].as_str().unwrap().is_empty(), "{line}");
    assert!(
        line["ts"].as_str().unwrap().ends_with("-05:00")
            || line["ts"].as_str().unwrap().ends_with("-04:00"),
        "local time: {line}"
    );
}

/// The lines of a multi-line console answer, from the one starting with `first` to the note.
async fn answer_lines(bot: &mut Bot, first: &str) -> Vec<String> {
    bot.expect("note: dollar figures").await;
    let start = bot
        .seen
        .iter()
        .rposition(|l| l.contains(first))
        .unwrap_or_else(|| panic!("no {first:?} in {:#?}", bot.seen));
    bot.seen[start..].to_vec()
}

fn ollim_usage(home: &Home, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("usage")
        .args(args)
        .env("HOME", &home.home)
        .env("OLLIM_DATA_DIR", &home.data)
        .env("OLLIM_TIMEZONE", "America/New_York")
        .output()
        .expect("run ollim-bot usage")
}

fn contains_in_order(have: &[String], want: &[String]) {
    assert!(
        have.windows(want.len()).any(|w| w == want),
        "expected\n{}\nin\n{}",
        want.join("\n"),
        have.join("\n")
    );
}

#[tokio::test]
async fn turns_are_recorded_and_usage_adds_up_the_records_on_the_console_and_the_command_line() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        if text.contains("[fork-started]") {
            Reply::Text("fork ready".into())
        } else if text.contains("inside the fork") {
            Reply::Text("fork answer".into())
        } else {
            Reply::Text("main answer".into())
        }
    })
    .await
    .unwrap();
    mock.report_input_tokens(4321);
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;

    // A conversation turn: one line, with the CLI's figures.
    bot.say("hello").await;
    bot.expect("main answer").await;
    let lines = until_lines(&home, "conversation", 1).await;
    assert_eq!(lines.len(), 1, "{lines:#?}");
    let first = &lines[0];
    assert_turn(first, "conversation");
    let main_session = std::fs::read_to_string(home.state("sessions.json")).unwrap();
    assert_eq!(first["session"], main_session.trim());
    // The process's first turn: its cost is the CLI's running total, which /cost shows too.
    assert_eq!(first["cost_usd"], first["total_cost_usd"]);
    bot.say("/cost").await;
    let cost = bot.expect("cost this run:").await;
    let reported = format!("${:.4}", first["total_cost_usd"].as_f64().unwrap());
    assert!(cost.contains(&reported), "{cost} vs {first}");

    // An interactive fork's turns (its opening and the owner's line): one line each.
    bot.say("/fork plans").await;
    bot.expect("fork ready").await;
    bot.say("inside the fork").await;
    bot.expect("fork answer").await;
    let lines = until_lines(&home, "fork", 2).await;
    assert_eq!(lines.len(), 3, "{lines:#?}");
    for fork in &lines[1..] {
        assert_turn(fork, "fork");
        assert_ne!(fork["session"], first["session"], "the fork's own session");
    }
    // The second turn of the fork's process costs what the running total grew by.
    let (a, b) = (&lines[1], &lines[2]);
    let grew = b["total_cost_usd"].as_f64().unwrap() - a["total_cost_usd"].as_f64().unwrap();
    assert!(
        (b["cost_usd"].as_f64().unwrap() - grew).abs() < 1e-12,
        "{a}\n{b}"
    );

    // Known lines on the windows' edges, one corrupt: the totals are the sums of what is inside.
    let bot_lines = usage_lines(&home);
    let now = chrono::Utc::now();
    usage_records::write_known(&home.data, now);
    bot.say("/usage").await;
    let shown = answer_lines(&mut bot, "today (since").await;
    for days in [1, 7, 30] {
        contains_in_order(&shown, &usage_records::window_lines(now, days, &bot_lines));
    }
    assert!(shown.contains(&SKIPPED_WARNING.to_owned()), "{shown:#?}");
    assert!(
        shown.iter().any(|l| l == "top jobs, last 30 days:")
            && shown
                .iter()
                .any(|l| l == "  $4.1250 · 2 runs · routine aaaa1111 · Job aaaa1111"),
        "{shown:#?}"
    );
    assert!(
        !shown.iter().any(|l| l.contains("cccc3333")),
        "older than 30 days: {shown:#?}"
    );
    bot.say("/usage 0").await;
    bot.expect("usage: /usage [days]").await;

    // The command line reads the same files, with the bot running.
    let out = ollim_usage(&home, &[]);
    assert!(out.status.success(), "{out:?}");
    let printed: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    let start = printed.iter().position(|l| l.starts_with("today")).unwrap();
    assert_eq!(
        printed[start..],
        shown[..],
        "the console and the command line agree"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: 1 line(s) of state/usage.jsonl do not read"),
        "{stderr}"
    );

    let out = ollim_usage(&home, &["--by-job", "--days", "7"]);
    assert!(out.status.success(), "{out:?}");
    let printed: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    let mut today = usage_records::window_lines(now, 1, &bot_lines);
    today.push("    $0.1250 · 1 run · routine aaaa1111 · Job aaaa1111".into());
    let mut week = usage_records::window_lines(now, 7, &bot_lines);
    week.push("    $0.1250 · 1 run · routine aaaa1111 · Job aaaa1111".into());
    week.push("    $0.0625 · 1 run · reminder bbbb2222 · Job bbbb2222".into());
    today.extend(week);
    contains_in_order(&printed, &today);
    assert!(
        !printed
            .iter()
            .any(|l| l.contains("30 days") || l.contains("top jobs")),
        "{printed:#?}"
    );
    bot.finish().await;
}
