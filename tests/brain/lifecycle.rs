//! The process's life: death mid-turn, forced shutdown, runtime switches, the driver seam.

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ollim_actors::claude::brain::{
    BrainEvent, ClaudeLauncher, Error, Launcher, PermissionMode, UserMessage,
};

use crate::harness::{until_result, Harness, TURN_LIMIT};
use crate::support::mock_model_api::Reply;

fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([format!("-{name}"), pid.to_string()])
        .status()
        .expect("running kill");
    assert!(status.success(), "kill -{name} {pid}");
}

#[tokio::test]
async fn killed_cli_yields_an_exited_event_and_fails_pending_requests() {
    let harness = Harness::new(|_| Reply::SlowText {
        chunks: (0..40).map(|i| format!("w{i} ")).collect(),
        delay: Duration::from_millis(250),
    })
    .await;
    let (process, mut events, _) = harness.start(harness.options()).await;
    process
        .send_user(&UserMessage::text("talk slowly"))
        .expect("sent");
    let pid = process.pid().expect("a running child has a pid");
    // Freeze it so the interrupt below stays unanswered, then kill it.
    signal(pid, "STOP");
    let pending = process.interrupt();
    let killer = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        signal(pid, "KILL");
    };
    let (answer, ()) = tokio::join!(pending, killer);
    assert!(
        matches!(answer, Err(Error::Exited { ref subtype }) if subtype == "interrupt"),
        "{answer:?}"
    );
    let exited = tokio::time::timeout(TURN_LIMIT, async {
        while let Some(event) = events.recv().await {
            if let BrainEvent::Exited(exit) = event {
                return Some(exit);
            }
        }
        None
    })
    .await
    .expect("exit reported in time")
    .expect("an Exited event");
    assert_eq!(exited.signal, Some(9), "{exited:?}");
    assert!(events.recv().await.is_none(), "Exited is the last event");
    let later = process.send_user(&UserMessage::text("anyone there?"));
    assert!(matches!(later, Err(Error::Exited { .. })), "{later:?}");
}

#[tokio::test]
async fn shutdown_kills_a_process_that_does_not_exit_in_the_grace_period() {
    let harness = Harness::new(|_| Reply::Text("ok".into())).await;
    let mut options = harness.options();
    options.shutdown_grace = Duration::from_millis(300);
    let (process, _events, _) = harness.start(options).await;
    signal(process.pid().expect("pid"), "STOP");
    let exit = tokio::time::timeout(TURN_LIMIT, process.shutdown())
        .await
        .expect("shutdown finished");
    assert_eq!(exit.signal, Some(9), "{exit:?}");
}

#[tokio::test]
async fn model_and_permission_mode_switch_at_run_time() {
    let harness = Harness::new(|_| Reply::Text("ok".into())).await;
    let (process, mut events, _) = harness.start(harness.options()).await;
    process
        .set_model(Some("claude-haiku-4-5"))
        .await
        .expect("set_model accepted");
    process
        .set_permission_mode(PermissionMode::AcceptEdits)
        .await
        .expect("set_permission_mode accepted");
    process.send_user(&UserMessage::text("hi")).expect("sent");
    let (seen, _) = until_result(&mut events).await;
    let request = harness.mock.agent_requests().pop().expect("a model call");
    assert_eq!(request.body["model"], "claude-haiku-4-5");
    let model = seen.iter().find_map(|e| match e {
        BrainEvent::Init { model, .. } => model.clone(),
        _ => None,
    });
    assert_eq!(model.as_deref(), Some("claude-haiku-4-5"));
    process.shutdown().await;
}

#[tokio::test]
async fn prompt_too_long_compacts_and_the_turn_still_gets_one_answer() {
    let refused = AtomicBool::new(false);
    let harness = Harness::new(move |request| {
        let overflow = request.latest_user_text().contains("overflow");
        if overflow && !refused.swap(true, Ordering::SeqCst) {
            Reply::PromptTooLong
        } else {
            Reply::Text("answer after compaction".into())
        }
    })
    .await;
    let (process, mut events, _) = harness.start(harness.options()).await;
    // Enough exchanges to compact: 2.1.197 refuses to compact a single one (`too_few_groups`).
    for line in ["hello", "and again", "once more"] {
        process.send_user(&UserMessage::text(line)).expect("sent");
        until_result(&mut events).await;
    }
    process
        .send_user(&UserMessage::text("overflow now"))
        .expect("sent");
    let (seen, result) = until_result(&mut events).await;
    assert!(
        seen.iter().any(|e| matches!(e, BrainEvent::Compacting)),
        "{seen:?}"
    );
    let boundary = seen.iter().find_map(|e| match e {
        BrainEvent::CompactBoundary(b) => Some(b.clone()),
        _ => None,
    });
    let boundary = boundary.expect("a compact boundary");
    assert_eq!(boundary.trigger, "auto");
    assert!(boundary.pre_tokens.is_some(), "{boundary:?}");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.result.as_deref(), Some("answer after compaction"));
    process.shutdown().await;
}

#[tokio::test]
async fn launcher_returns_a_driver_the_session_actors_can_hold() {
    let harness = Harness::new(|_| Reply::Text("via the trait".into())).await;
    let launched = ClaudeLauncher
        .launch(harness.options(), harness.handlers())
        .await
        .expect("launched");
    let mut events = launched.events;
    let driver = launched.driver;
    let uuid = driver
        .send_user(UserMessage::text("hi"))
        .await
        .expect("sent");
    let (seen, result) = until_result(&mut events).await;
    assert!(crate::harness::turn_named_line(&seen, &result, &uuid));
    driver.interrupt().await.expect("idle interrupt is a no-op");
    let exit = driver.shutdown().await;
    assert!(exit.success(), "{exit:?}");
}
