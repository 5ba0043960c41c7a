//! Proactive without noise (SPEC §16) end to end with the real CLI and a manual clock: quiet
//! hours refuse a background ping (critical still goes through, the preamble says until when,
//! foreground jobs still run), a job never sends the same text twice in a day, and a condition
//! gate either adds its output to the prompt or skips the run before any model request, and one
//! that cannot start fails the run (also before any model request); a job that waited for a
//! background slot sees the quiet hours of when it starts. Gated runs are in the run history.

use std::time::Duration as StdDuration;

use ollim_actors::conversation::surface::SurfaceEvent;
use ollim_actors::records::ping_budget::Snapshot;
use ollim_actors::scheduling::job_runner::Runs;
use serde_json::json;

use crate::rig::{bg_reminder, bg_routine, call, rig, start_instant, tool_result_text, LIMIT};
use crate::support::mock_model_api::Reply;

const FREELY: &str = "update-main-session: \"freely\"\n";

#[actix_rt::test]
async fn in_quiet_hours_a_ping_is_refused_critical_goes_through_and_foreground_jobs_run() {
    let rig = rig(
        |req| {
            let results = tool_result_text(req);
            let text = req.latest_user_text();
            if results.contains("Quiet hours until 10:00 AM") {
                call(
                    "mcp__discord__ping_user",
                    json!({"message": "the oven is still on", "critical": true}),
                )
            } else if !results.is_empty() {
                Reply::Text("done".into())
            } else if text.contains("[reminder-bg:eeee0001]") {
                call("mcp__discord__ping_user", json!({"message": "stretch?"}))
            } else if text.contains("[reminder:eeee0002]") {
                Reply::Text("good morning, here is your plan".into())
            } else {
                Reply::Text("hello".into())
            }
        },
        |data| {
            std::fs::create_dir_all(data.state()).unwrap();
            std::fs::write(
                data.state_file("config.json"),
                r#"{"quiet_hours": "08:00-10:00"}"#,
            )
            .unwrap();
        },
    )
    .await;
    rig.write(
        "reminders/stretch.md",
        &bg_reminder("eeee0001", 1, FREELY, "nudge me to stretch"),
    );
    let at = (start_instant() + chrono::Duration::minutes(2))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    rig.write(
        "reminders/plan.md",
        &format!(
            "---\nid: \"eeee0002\"\nrun-at: \"{at}\"\nbackground: false\n---\nplan my morning\n"
        ),
    );
    rig.registered(2).await;
    rig.advance_to(2);
    rig.until("the critical ping after the refusal", |r| {
        !r.screen.pings().is_empty()
    })
    .await;
    assert_eq!(rig.screen.pings(), ["[bg] the oven is still on"]);
    let first = rig
        .requests_for("[reminder-bg:eeee0001]")
        .into_iter()
        .next()
        .expect("the background job reached the model");
    assert!(
        first
            .latest_user_text()
            .contains("Quiet hours are on until 10:00 AM: `ping_user` and `discord_embed` will be refused unless `critical=True`."),
        "the preamble says so: {}",
        first.latest_user_text()
    );
    let refused = rig
        .requests_for("[reminder-bg:eeee0001]")
        .iter()
        .map(tool_result_text)
        .find(|t| t.contains("Quiet hours"))
        .expect("the refusal reached the model");
    assert!(
        refused.starts_with(
            "Quiet hours until 10:00 AM: nothing was sent. Use report_updates to pass findings to the main session instead"
        ),
        "{refused}"
    );
    rig.until("the foreground reminder's answer", |r| {
        r.screen
            .events()
            .iter()
            .any(|e| matches!(e, SurfaceEvent::Reply(t) if t == "good morning, here is your plan"))
    })
    .await;
    rig.settle().await;
    let snap = rig.handles.ping_budget.send(Snapshot).await.unwrap();
    assert_eq!(
        (snap.whole_tokens, snap.critical_used),
        (5, 1),
        "the refused ping spent nothing"
    );
}

#[actix_rt::test]
async fn a_job_that_repeats_itself_within_a_day_is_refused_and_spends_nothing() {
    let rig = rig(
        |req| {
            if !req.tool_results().is_empty() {
                Reply::Text("ok".into())
            } else if req.latest_user_text().contains("[routine-bg:ffff0001]") {
                call(
                    "mcp__discord__ping_user",
                    json!({"message": "Drink some water"}),
                )
            } else {
                Reply::Text("hello".into())
            }
        },
        |_| {},
    )
    .await;
    rig.write(
        "routines/water.md",
        // 09:01 and 09:31 in New York.
        &bg_routine("ffff0001", "1,31 9 * * *", FREELY, "remind me to drink"),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the first ping", |r| !r.screen.pings().is_empty())
        .await;
    rig.settle().await;
    let before = rig.handles.ping_budget.send(Snapshot).await.unwrap();
    rig.advance_to(31);
    rig.until("the second run's refusal", |r| {
        r.requests_for("[routine-bg:ffff0001]").iter().any(|q| {
            tool_result_text(q).contains(
                "Already sent this at 9:01 AM (the same message within the last 24 hours)",
            )
        })
    })
    .await;
    rig.settle().await;
    assert_eq!(rig.screen.pings(), ["[bg] Drink some water"]);
    let after = rig.handles.ping_budget.send(Snapshot).await.unwrap();
    assert_eq!(after.daily_used, before.daily_used, "nothing spent");
}

#[actix_rt::test]
async fn an_open_gate_puts_its_output_in_the_prompt_a_closed_one_wakes_no_model_and_a_broken_one_fails(
) {
    let rig = rig(|_req| Reply::Text("noted".into()), |_| {}).await;
    rig.write(
        "reminders/inbox.md",
        &bg_reminder(
            "abab0001",
            1,
            "gate: \"echo 3 unread from Jo\"\n",
            "look at the inbox",
        ),
    );
    rig.write(
        "reminders/quiet-day.md",
        &bg_reminder("abab0002", 1, "gate: \"false\"\n", "only when needed"),
    );
    rig.write(
        "reminders/broken.md",
        &bg_reminder(
            "abab0003",
            1,
            "gate: \"no-such-gate-program --check\"\n",
            "never seen",
        ),
    );
    rig.registered(3).await;
    rig.advance_to(1);
    rig.until("the open gate's job at the model", |r| {
        !r.requests_for("[reminder-bg:abab0001]").is_empty()
    })
    .await;
    let prompt = rig.requests_for("[reminder-bg:abab0001]")[0].latest_user_text();
    assert!(
        prompt.ends_with("look at the inbox\n\nGATE OUTPUT:\n3 unread from Jo"),
        "{prompt}"
    );
    // The runner's counts are the event that says the gated runs are decided: the closed gate
    // skipped, the gate that could not start failed.
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let runs = rig.handles.job_runner.send(Runs).await.unwrap();
        if runs.decided() == 3 {
            assert_eq!(
                (runs.forks_started, runs.skipped, runs.failed),
                (1, 1, 1),
                "{runs:?}"
            );
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{runs:?}");
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
    rig.settle().await;
    assert!(
        rig.mock
            .all_requests()
            .iter()
            .all(|r| !r.mentions("[reminder-bg:abab0002]") && !r.mentions("[reminder-bg:abab0003]")),
        "no model request for the skipped job nor the failed one"
    );
    assert!(
        !rig.data.reminders().join("quiet-day.md").exists(),
        "a skipped reminder is used up like a fired one"
    );
    // The run history has a line for each: the open gate's run ok, the closed gate's skipped
    // with its exit code, the broken gate's failed, naming why.
    let history = history_until(&rig, "three gated runs recorded", |lines| lines.len() == 3).await;
    let line = |id: &str| {
        history
            .iter()
            .find(|l| l["job"] == id)
            .unwrap_or_else(|| panic!("no history line for {id}: {history:#?}"))
    };
    assert_eq!(line("abab0001")["outcome"], "ok", "{history:#?}");
    assert_eq!(line("abab0002")["outcome"], "skipped", "{history:#?}");
    assert_eq!(
        line("abab0002")["error"],
        "gate `false` said no (exit 1)",
        "{history:#?}"
    );
    assert_eq!(line("abab0003")["outcome"], "failed", "{history:#?}");
    let broken = line("abab0003")["error"].as_str().unwrap_or_default();
    assert!(
        broken.contains("gate `no-such-gate-program --check` could not start"),
        "{broken}"
    );
}

#[actix_rt::test]
async fn a_job_waiting_for_a_slot_sees_the_quiet_hours_of_when_it_starts() {
    // The first job's answer is slow, so it holds the one slot while the second waits; quiet
    // hours begin at 9:05, after the second fired (9:02) and before it gets the slot.
    let rig = rig(
        |req| {
            let text = req.latest_user_text();
            let results = tool_result_text(req);
            if !results.is_empty() {
                Reply::Text("done".into())
            } else if text.contains("[reminder-bg:cccc0001]") {
                Reply::SlowText {
                    chunks: vec!["still ".into(), "looking".into()],
                    delay: StdDuration::from_secs(3),
                }
            } else if text.contains("[reminder-bg:cccc0002]") {
                call("mcp__discord__ping_user", json!({"message": "stretch?"}))
            } else {
                Reply::Text("hello".into())
            }
        },
        |data| {
            std::fs::create_dir_all(data.state()).unwrap();
            std::fs::write(
                data.state_file("config.json"),
                r#"{"bg_fork_limit": 1, "quiet_hours": "09:05-10:00"}"#,
            )
            .unwrap();
        },
    )
    .await;
    rig.write(
        "reminders/slow.md",
        &bg_reminder("cccc0001", 1, "", "read everything"),
    );
    rig.write(
        "reminders/stretch.md",
        &bg_reminder("cccc0002", 2, FREELY, "nudge me to stretch"),
    );
    rig.registered(2).await;
    rig.advance_to(1);
    runs_until(&rig, "the first job in the slot", |r| r.forks_started == 1).await;
    rig.advance_to(2);
    runs_until(&rig, "the second job waiting", |r| r.waiting == 1).await;
    rig.advance_to(6);
    rig.until("the waiting job at the model", |r| {
        !r.requests_for("[reminder-bg:cccc0002]").is_empty()
    })
    .await;
    let first = rig.requests_for("[reminder-bg:cccc0001]")[0].latest_user_text();
    assert!(!first.contains("Quiet hours are on"), "{first}");
    let second = rig.requests_for("[reminder-bg:cccc0002]")[0].latest_user_text();
    assert!(
        second.contains("Quiet hours are on until 10:00 AM"),
        "the preamble is built when the job starts: {second}"
    );
    rig.settle().await;
    let refused = rig
        .requests_for("[reminder-bg:cccc0002]")
        .iter()
        .map(tool_result_text)
        .find(|t| t.contains("Quiet hours"))
        .expect("the refusal reached the model");
    assert!(
        refused.starts_with("Quiet hours until 10:00 AM"),
        "{refused}"
    );
    assert!(rig.screen.pings().is_empty(), "{:?}", rig.screen.pings());
}

/// Waits (bounded) until the runner's counts satisfy `done`.
pub async fn runs_until(
    rig: &crate::rig::Rig,
    what: &str,
    done: impl Fn(&ollim_actors::scheduling::job_runner::RunCounts) -> bool,
) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let runs = rig.handles.job_runner.send(Runs).await.unwrap();
        if done(&runs) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never {what}: {runs:?}"
        );
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
}

/// The lines of `state/runs.jsonl`, parsed, once `done` holds for them (bounded): a run is
/// closed by the run log after the runner has counted it.
pub async fn history_until(
    rig: &crate::rig::Rig,
    what: &str,
    done: impl Fn(&[serde_json::Value]) -> bool,
) -> Vec<serde_json::Value> {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let lines: Vec<serde_json::Value> =
            std::fs::read_to_string(rig.data.state_file("runs.jsonl"))
                .unwrap_or_default()
                .lines()
                .map(|l| serde_json::from_str(l).expect("every history line parses"))
                .collect();
        if done(&lines) {
            return lines;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never {what}: {lines:#?}"
        );
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
}
