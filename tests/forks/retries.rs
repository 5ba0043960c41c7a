//! Retries *(ours, issue 28)*: a background run that fails for a passing cause — here the
//! model's API answering 529 overloaded, after the real CLI's own retries (set to one through
//! `CLAUDE_CODE_MAX_RETRIES`) — runs again after 30 s, then 2 min, on the manual clock; each
//! attempt is a `retrying` line with its cause. A run that pinged is never run again, `retries:
//! 0` turns them off, and a reminder that fails every attempt still arrives as `⏰ …`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration as StdDuration;

use chrono::Duration;
use ollim_actors::jobs::JobId;
use ollim_actors::records::runs::{History, Outcome, RunRecord};
use ollim_actors::scheduling::job_runner::Runs;
use serde_json::json;

use crate::rig::{bg_reminder, bg_routine, call, rig_with_env, Rig};
use crate::support::mock_model_api::{ModelRequest, Reply};

/// The CLI's own retries, kept to one so a failed attempt takes a second, not three minutes.
const CLI_RETRIES: [(&str, &str); 1] = [("CLAUDE_CODE_MAX_RETRIES", "1")];

fn overloaded() -> Reply {
    Reply::ApiError {
        status: 529,
        kind: "overloaded_error".into(),
        message: "Overloaded".into(),
    }
}

fn ping(text: &str) -> Reply {
    call("mcp__discord__ping_user", json!({ "message": text }))
}

/// The job's history lines, oldest first.
async fn lines(rig: &Rig, job: &str) -> Vec<RunRecord> {
    rig.handles
        .run_log
        .send(History {
            job: Some(JobId(job.into())),
            kind: None,
            limit: 50,
        })
        .await
        .unwrap()
}

/// Waits (bounded) until `pred` holds for the job's lines and the runner's counts.
async fn until_lines(
    rig: &Rig,
    job: &str,
    what: &str,
    pred: impl Fn(&[RunRecord], u64) -> bool,
) -> Vec<RunRecord> {
    let deadline = tokio::time::Instant::now() + StdDuration::from_secs(90);
    loop {
        let got = lines(rig, job).await;
        let waiting = rig
            .handles
            .job_runner
            .send(Runs)
            .await
            .unwrap()
            .retries_waiting;
        if pred(&got, waiting) {
            return got;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {got:#?}; screen: {:#?}",
            rig.screen.events()
        );
        tokio::time::sleep(StdDuration::from_millis(50)).await;
    }
}

fn outcomes(lines: &[RunRecord]) -> Vec<Outcome> {
    lines.iter().map(|l| l.outcome).collect()
}

#[actix_rt::test]
async fn an_overloaded_routine_runs_again_after_30_s_then_2_min_and_pings_once() {
    // Two attempts fail (each: a call and the CLI's one retry, all 529), the third pings.
    let failed_calls = Arc::new(AtomicUsize::new(0));
    let seen = failed_calls.clone();
    let script = move |req: &ModelRequest| {
        if !req.mentions("[routine-bg:a0000001]") {
            return Reply::Text("ok".into());
        }
        if !req.tool_results().is_empty() {
            return Reply::Text("done".into());
        }
        if seen.fetch_add(1, Ordering::SeqCst) < 4 {
            overloaded()
        } else {
            ping("your inbox has 3 new mails")
        }
    };
    let rig = rig_with_env(script, |_| {}, &CLI_RETRIES).await;
    rig.write(
        "routines/inbox.md",
        &bg_routine("a0000001", "1 9 * * *", "", "Check the inbox; ping me."),
    );
    rig.registered(1).await;
    rig.advance_to(1);

    let first = until_lines(&rig, "a0000001", "the first retrying line", |l, w| {
        l.len() == 1 && w == 1
    })
    .await;
    assert_eq!(outcomes(&first), [Outcome::Retrying]);
    let cause = first[0].error.clone().unwrap_or_default();
    assert!(
        cause.contains("overloaded (529)") && cause.contains("retry 1 of 3 in 30 seconds"),
        "{cause}"
    );
    assert_eq!(
        failed_calls.load(Ordering::SeqCst),
        2,
        "the CLI retried once itself"
    );

    rig.clock.advance(Duration::seconds(30));
    let second = until_lines(&rig, "a0000001", "the second retrying line", |l, w| {
        l.len() == 2 && w == 1
    })
    .await;
    assert_eq!(outcomes(&second), [Outcome::Retrying, Outcome::Retrying]);
    let cause = second[1].error.clone().unwrap_or_default();
    assert!(cause.contains("retry 2 of 3 in 2 minutes"), "{cause}");

    rig.clock.advance(Duration::minutes(2));
    let all = until_lines(&rig, "a0000001", "the run that completes", |l, _| {
        l.len() == 3
    })
    .await;
    assert_eq!(
        outcomes(&all),
        [Outcome::Retrying, Outcome::Retrying, Outcome::Ok]
    );
    assert!(all[2].pinged);
    rig.settle().await;
    assert_eq!(rig.screen.pings(), ["[bg] your inbox has 3 new mails"]);
    assert!(
        !rig.screen
            .notices()
            .iter()
            .any(|n| n.contains("has failed")),
        "a retrying line is not a failure: {:?}",
        rig.screen.notices()
    );
}

#[actix_rt::test]
async fn no_duplicates_no_retries_when_turned_off_and_a_failed_reminder_still_arrives() {
    let script = |req: &ModelRequest| {
        if req.mentions("[routine-bg:b0000001]") {
            // Pings, then the API fails: the run is not run again (the ping would repeat).
            return if req.tool_results().is_empty() {
                ping("half done")
            } else {
                overloaded()
            };
        }
        if req.mentions("[routine-bg:b0000002]") || req.mentions("[reminder-bg:b0000003]") {
            return overloaded();
        }
        Reply::Text("ok".into())
    };
    let rig = rig_with_env(script, |_| {}, &CLI_RETRIES).await;
    rig.write(
        "routines/pinged.md",
        &bg_routine("b0000001", "1 9 * * *", "", "Ping, then fail."),
    );
    rig.write(
        "routines/once.md",
        &bg_routine("b0000002", "1 9 * * *", "retries: 0\n", "Fail once."),
    );
    rig.write(
        "reminders/bins.md",
        &bg_reminder(
            "b0000003",
            1,
            "retries: 1\n",
            "Take the bins out\nThey go at seven.",
        ),
    );
    rig.registered(3).await;
    rig.advance_to(1);

    let pinged = until_lines(&rig, "b0000001", "the pinged run's line", |l, _| {
        !l.is_empty()
    })
    .await;
    assert_eq!(outcomes(&pinged), [Outcome::Failed], "{pinged:#?}");
    assert!(pinged[0].pinged);
    let once = until_lines(&rig, "b0000002", "the retries: 0 run's line", |l, _| {
        !l.is_empty()
    })
    .await;
    assert_eq!(outcomes(&once), [Outcome::Failed], "{once:#?}");

    until_lines(&rig, "b0000003", "the reminder's retry", |l, w| {
        l.len() == 1 && w == 1
    })
    .await;
    rig.clock.advance(Duration::seconds(30));
    let bins = until_lines(&rig, "b0000003", "the reminder's last attempt", |l, _| {
        l.len() == 2
    })
    .await;
    assert_eq!(outcomes(&bins), [Outcome::Retrying, Outcome::Failed]);
    let error = bins[1].error.clone().unwrap_or_default();
    assert!(error.contains("gave up after 1 retries"), "{error}");
    rig.until("the plain reminder", |r| {
        r.screen.pings().iter().any(|p| p == "⏰ Take the bins out")
    })
    .await;
    assert_eq!(
        rig.screen.pings(),
        ["[bg] half done", "⏰ Take the bins out"]
    );
}
