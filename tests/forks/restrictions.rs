//! What background forks may not do: tools outside their set, writes into `state/`, running past
//! their time limit (SPEC §6, §11).

use std::time::Duration as StdDuration;

use serde_json::json;

use crate::rig::{bg_reminder, call, rig};
use crate::support::mock_model_api::Reply;

#[actix_rt::test]
async fn a_tool_outside_the_allowed_set_is_denied() {
    let rig = rig(
        |req| {
            if !req.tool_results().is_empty() {
                Reply::Text("ok".into())
            } else if req.latest_user_text().contains("[reminder-bg:d1000001]") {
                call("Bash", json!({"command": "touch /tmp/ollim-should-not-exist-d1000001", "description": "make a file"}))
            } else {
                Reply::Text("hello".into())
            }
        },
        |_| {},
    )
    .await;
    rig.write(
        "reminders/x.md",
        &bg_reminder(
            "d1000001",
            1,
            "update-main-session: \"freely\"\n",
            "try bash",
        ),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the denial", |r| {
        r.requests_for("[reminder-bg:d1000001]")
            .iter()
            .any(|q| q.tool_results().iter().any(|(_, _, is_error)| *is_error))
    })
    .await;
    assert!(!std::path::Path::new("/tmp/ollim-should-not-exist-d1000001").exists());
}

#[actix_rt::test]
async fn a_write_into_state_is_denied_even_when_write_is_allowed() {
    let rig = rig(
        |req| {
            if !req.tool_results().is_empty() {
                Reply::Text("ok".into())
            } else if req.latest_user_text().contains("[reminder-bg:d1000002]") {
                call(
                    "Write",
                    json!({"file_path": "state/ping_budget.json", "content": "{}"}),
                )
            } else {
                Reply::Text("hello".into())
            }
        },
        |_| {},
    )
    .await;
    // A bare `Write` is stripped at validation (it could reach state/), so it is not offered;
    // a narrower pattern is kept, and the hook still denies a write into state/.
    let extra = "update-main-session: \"freely\"\nallowed-tools:\n  - \"Write(notes/**)\"\n";
    rig.write(
        "reminders/x.md",
        &bg_reminder("d1000002", 1, extra, "try to write state"),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the denial", |r| {
        r.requests_for("[reminder-bg:d1000002]").iter().any(|q| {
            q.tool_results()
                .iter()
                .any(|(_, text, is_error)| *is_error && text.contains("state/"))
        })
    })
    .await;
    assert!(
        !rig.data.state_file("ping_budget.json").exists()
            || std::fs::read_to_string(rig.data.state_file("ping_budget.json")).unwrap() != "{}",
        "the state file was not overwritten"
    );
}

#[actix_rt::test]
async fn a_fork_past_its_time_limit_is_stopped_and_the_user_told() {
    let rig = rig(
        |req| {
            if req.latest_user_text().contains("[reminder-bg:d1000003]") {
                Reply::SlowText {
                    chunks: (0..100).map(|i| format!("thinking {i} ")).collect(),
                    delay: StdDuration::from_millis(500),
                }
            } else {
                Reply::Text("hello".into())
            }
        },
        |data| {
            std::fs::write(data.state_file("config.json"), r#"{"bg_fork_timeout": 3}"#).unwrap();
        },
    )
    .await;
    rig.write(
        "reminders/slow.md",
        &bg_reminder(
            "d1000003",
            1,
            "description: \"morning checkin\"\n",
            "take forever",
        ),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the timeout notice", |r| {
        r.screen
            .notices()
            .iter()
            .any(|n| n == "morning checkin timed out after 3 seconds.")
    })
    .await;
}

#[actix_rt::test]
async fn a_job_whose_main_session_is_gone_runs_isolated_instead() {
    let rig = rig(
        |req| {
            if !req.tool_results().is_empty() {
                Reply::Text("done".into())
            } else if req.latest_user_text().contains("[reminder-bg:d1000004]") {
                call("mcp__discord__ping_user", json!({"message": "still here"}))
            } else {
                Reply::Text("hello".into())
            }
        },
        |data| {
            // A saved main session whose transcript no longer exists.
            std::fs::write(
                data.state_file("sessions.json"),
                "0b7e8c1e-0000-4000-8000-000000000000",
            )
            .unwrap();
        },
    )
    .await;
    rig.write(
        "reminders/x.md",
        &bg_reminder(
            "d1000004",
            1,
            "update-main-session: \"freely\"\n",
            "check in",
        ),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the ping", |r| !r.screen.pings().is_empty())
        .await;
    assert_eq!(rig.screen.pings(), vec!["[bg] still here".to_owned()]);
}
