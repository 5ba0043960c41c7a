//! A crash loop (issue 17): background jobs report while the bot is `kill -9`ed at random
//! moments, twenty times; then one last start runs to the end. Every state file parses, every
//! job has a word in the run history (or its file still waits), and each report is in the
//! pending updates exactly once when its run says it reported, never twice.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::bot::{Bot, Home, LIMIT};
use crate::support::home::background_reminder as reminder_in;
use crate::support::mock_model_api::{MockModelApi, Reply};

const JOBS: usize = 8;
const CRASHES: usize = 20;

fn job_id(n: usize) -> String {
    format!("c{n:07}")
}

/// A pseudo-random pause from 200 ms to 1.4 s, different for each crash.
fn pause(round: usize) -> Duration {
    let mixed = (round as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    Duration::from_millis(200 + mixed % 1200)
}

fn parse(path: &std::path::Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} does not parse ({e}): {text}", path.display())),
    )
}

#[tokio::test]
async fn twenty_kill_9s_while_jobs_report_lose_and_double_nothing() {
    let mock = MockModelApi::start(|req| {
        let text = req.latest_user_text();
        let results: String = req.tool_results().into_iter().map(|(_, t, _)| t).collect();
        if results.contains("Update reported") {
            Reply::Text("done".into())
        } else if let Some(at) = text.find("[reminder-bg:") {
            let id: String = text[at + 13..].chars().take(8).collect();
            Reply::ToolUse {
                name: "mcp__discord__report_updates".into(),
                input: json!({"message": format!("report from {id}")}),
            }
        } else {
            Reply::Text("ok".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    for n in 0..JOBS {
        home.write(
            &format!("reminders/crash-{n}.md"),
            &reminder_in(2 + 2 * n as i64, &job_id(n), &format!("job {n}")),
        );
    }
    for round in 0..CRASHES {
        let bot = Bot::start(&home, &mock).await;
        tokio::time::sleep(pause(round)).await;
        bot.crash().await;
        for name in ["runs_open.json", "pending_updates.json", "ping_budget.json"] {
            parse(&home.state(name));
        }
    }

    // The last start runs until every job has ended.
    let mut bot = Bot::start(&home, &mock).await;
    let deadline = tokio::time::Instant::now() + LIMIT;
    let ended = loop {
        let history = std::fs::read_to_string(home.state("runs.jsonl")).unwrap_or_default();
        let lines: Vec<Value> = history
            .lines()
            .map(|l| serde_json::from_str(l).expect("every history line parses"))
            .collect();
        let waiting = std::fs::read_dir(home.data.join("reminders"))
            .map(|d| d.count())
            .unwrap_or(0);
        let open = parse(&home.state("runs_open.json")).unwrap_or(json!({}));
        let settled = (0..JOBS).all(|n| {
            lines.iter().any(|l| {
                l["job"] == job_id(n).as_str()
                    && (l["outcome"] == "ok" || l["outcome"] == "interrupted")
            })
        });
        if waiting == 0 && settled && !open.to_string().contains("\"c0") {
            break lines;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "jobs never settled: {waiting} files wait, open {open}, history {lines:#?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    bot.say("/ping-budget").await;
    bot.expect("budget").await;
    bot.finish().await;

    let pending = parse(&home.state("pending_updates.json")).unwrap_or(json!([]));
    let mut reports: BTreeMap<String, usize> = BTreeMap::new();
    for update in pending.as_array().expect("pending updates are a list") {
        let message = update["message"].as_str().unwrap_or_default().to_owned();
        *reports.entry(message).or_default() += 1;
    }
    for n in 0..JOBS {
        let id = job_id(n);
        let count = reports
            .get(&format!("report from {id}"))
            .copied()
            .unwrap_or(0);
        assert!(
            count <= 1,
            "{id}'s report is there {count} times: {pending}"
        );
        let ran: Vec<&Value> = ended.iter().filter(|l| l["job"] == id.as_str()).collect();
        let reported = ran.iter().any(|l| l["reported"] == true);
        assert_eq!(
            reported,
            count == 1,
            "{id}: history says reported={reported}, the queue holds it {count} times: {ran:#?} {pending}"
        );
        // A job that never completed was cut off after reporting (so not run again) — and
        // then the owner was told, recorded as interrupted with its reason.
        if !ran.iter().any(|l| l["outcome"] == "ok") {
            assert!(
                ran.iter()
                    .any(|l| l["outcome"] == "interrupted" && l["error"].is_string()),
                "{id} ended without a word: {ran:#?}"
            );
        }
    }
}
