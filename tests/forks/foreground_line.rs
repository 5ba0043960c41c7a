//! Foreground jobs in a line (SPEC §17, issue 22; their cost in the run history, not in the usage
//! history, SPEC §19): after downtime, nine overdue foreground
//! reminders each get their whole turn, in the order they were set for, none interrupting
//! another; a line from the owner sent during one of them is answered right after that turn,
//! ahead of the jobs still waiting; nothing is left open in `state/runs_open.json`.

use std::time::Duration as StdDuration;

use chrono::Duration;
use ollim_actors::conversation::main_session::Say;
use ollim_actors::conversation::surface::SurfaceEvent;

use crate::rig::{rig, start_instant, LIMIT};
use crate::support::mock_model_api::Reply;

const JOBS: usize = 9;
const OWNER_LINE: &str = "hello from the owner";

fn job_id(n: usize) -> String {
    format!("fa00000{n}")
}

/// A foreground reminder that was due `minutes_before` the start (the bot was down then).
fn overdue(n: usize, minutes_before: i64) -> String {
    let at = (start_instant() - Duration::minutes(minutes_before))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    format!(
        "---\nid: \"{}\"\nrun-at: \"{at}\"\nbackground: false\n---\nforeground job {n}\n",
        job_id(n)
    )
}

/// Which job (or the owner) a request's latest line belongs to.
fn speaker(text: &str) -> Option<String> {
    if text.contains(OWNER_LINE) {
        return Some("owner".into());
    }
    (1..=JOBS)
        .find(|n| text.contains(&format!("[reminder:{}]", job_id(*n))))
        .map(job_id)
}

#[actix_rt::test]
async fn overdue_foreground_reminders_run_one_whole_turn_each_in_fire_order() {
    let rig = rig(
        |req| {
            let text = req.latest_user_text();
            match speaker(&text) {
                Some(who) if who == "owner" => Reply::Text("hi, owner".into()),
                // Slow enough that later jobs and the owner's line arrive while it streams.
                Some(job) => Reply::SlowText {
                    chunks: vec!["done ".into(), job],
                    delay: StdDuration::from_millis(200),
                },
                None => Reply::Text("ok".into()),
            }
        },
        |data| {
            std::fs::create_dir_all(data.reminders()).unwrap();
            // Written out of order: the files' names say nothing about when each was due.
            for n in (1..=JOBS).rev() {
                let minutes_before = 100 - 10 * n as i64;
                std::fs::write(
                    data.reminders().join(format!("job-{n}.md")),
                    overdue(n, minutes_before),
                )
                .unwrap();
            }
        },
    )
    .await;
    rig.registered(JOBS).await;
    rig.clock.set(start_instant() + Duration::minutes(1));

    // The owner writes while the third job's turn is in progress.
    let third = rig
        .mock
        .first_agent_request(
            |r| speaker(&r.latest_user_text()).as_deref() == Some(job_id(3).as_str()),
            LIMIT,
        )
        .await
        .expect("the third job reached the model");
    assert!(third
        .latest_user_text()
        .contains("[late: was scheduled for"));
    let main = rig.handles.main_session.clone().expect("a conversation");
    main.send(Say {
        text: OWNER_LINE.into(),
        images: Vec::new(),
    })
    .await
    .unwrap();

    rig.until("every job's answer and the owner's", |r| {
        r.screen
            .events()
            .iter()
            .filter(|e| matches!(e, SurfaceEvent::Reply(_)))
            .count()
            > JOBS
    })
    .await;

    let replies: Vec<String> = rig
        .screen
        .events()
        .into_iter()
        .filter_map(|e| match e {
            SurfaceEvent::Reply(t) => Some(t),
            _ => None,
        })
        .collect();
    let mut expected: Vec<String> = (1..=JOBS).map(|n| format!("done {}", job_id(n))).collect();
    expected.insert(3, "hi, owner".into());
    assert_eq!(
        replies, expected,
        "each job answered whole, in the order they were due; the owner right after the turn in progress"
    );

    let requests = rig.mock.agent_requests();
    let mut order: Vec<String> = Vec::new();
    for r in &requests {
        if let Some(who) = speaker(&r.latest_user_text()) {
            if order.last() != Some(&who) {
                order.push(who);
            }
        }
        assert!(
            !r.mentions("[Request interrupted by user"),
            "no turn was cut off: {}",
            r.latest_user_text()
        );
    }
    let mut expected_order: Vec<String> = (1..=JOBS).map(job_id).collect();
    expected_order.insert(3, "owner".into());
    assert_eq!(order, expected_order, "one request per line, in line");

    // The run history: nine completed runs, none left open.
    let runs = rig.data.state_file("runs.jsonl");
    let mut closed = 0;
    for _ in 0..200 {
        let text = std::fs::read_to_string(&runs).unwrap_or_default();
        closed = text
            .lines()
            .filter(|l| l.contains("\"outcome\":\"ok\""))
            .count();
        if closed == JOBS {
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(25)).await;
    }
    let history = std::fs::read_to_string(&runs).unwrap_or_default();
    assert_eq!(closed, JOBS, "{history}");
    assert!(!history.contains("interrupted"), "{history}");
    let open = std::fs::read_to_string(rig.data.state_file("runs_open.json")).unwrap();
    let open: serde_json::Value = serde_json::from_str(&open).unwrap();
    assert_eq!(
        open["open"],
        serde_json::json!([]),
        "no run left open: {open}"
    );

    // What it cost (SPEC §19): each job's turn on its run line, the owner's turn alone in
    // `state/usage.jsonl`, never both. The usage log answers in order, so once it has answered
    // a question every turn told to it before is written.
    for line in history.lines() {
        assert!(line.contains("\"cost_usd\":"), "a job's cost: {line}");
    }
    rig.handles
        .usage_log
        .send(ollim_actors::records::usage::GetReport { days: None })
        .await
        .unwrap()
        .unwrap();
    let usage = std::fs::read_to_string(rig.data.state_file("usage.jsonl")).unwrap_or_default();
    let kinds: Vec<serde_json::Value> = usage
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["kind"].clone())
        .collect();
    assert_eq!(kinds, ["conversation"], "the owner's turn only: {usage}");
}
