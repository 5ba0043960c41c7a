//! A background fork whose CLI fails to start is tried three times, 5 s and 15 s apart on the
//! injected clock, before the owner hears "… couldn't complete." (SPEC §17).

use std::path::{Path, PathBuf};

use chrono::Duration;

use crate::rig::{bg_reminder, rig_with_binary, Rig};
use crate::support::mock_model_api::Reply;

/// A wrapper around the real CLI that makes the first `fails` background-fork starts exit at
/// once (before the initialize handshake), counting every background-fork start in `count`.
fn failing_wrapper(dir: &Path, fails: u32) -> (PathBuf, PathBuf) {
    let count = dir.join("starts");
    let script = dir.join("claude-wrapper");
    let real = crate::support::claude_cli::binary();
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             if [ \"$CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS\" = 1 ]; then\n\
             n=$(cat '{count}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '{count}'\n\
             if [ $n -le {fails} ]; then echo 'simulated start failure' >&2; exit 3; fi\n\
             fi\n\
             exec '{real}' \"$@\"\n",
            count = count.display(),
            real = real.display(),
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (script, count)
}

fn starts(count: &Path) -> u32 {
    std::fs::read_to_string(count)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

/// Moves the clock a second at a time (the fork's waits sleep on it) until `pred` holds.
async fn drive_until(rig: &Rig, what: &str, pred: impl Fn(&Rig) -> bool) {
    rig.until(what, |r| {
        if pred(r) {
            return true;
        }
        r.clock.advance(Duration::seconds(1));
        false
    })
    .await;
}

#[actix_rt::test]
async fn a_fork_that_fails_to_start_twice_runs_on_the_third_attempt() {
    let tmp = tempfile::tempdir().unwrap();
    let (wrapper, count) = failing_wrapper(tmp.path(), 2);
    let rig = rig_with_binary(|_| Reply::Text("done".into()), |_| {}, wrapper).await;
    rig.write(
        "reminders/retry.md",
        &bg_reminder("d0000001", 1, "", "try, try again"),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the first start", |_| starts(&count) >= 1).await;
    drive_until(&rig, "the job's model call", |r| {
        !r.requests_for("[reminder-bg:d0000001]").is_empty()
    })
    .await;
    rig.settle().await;
    assert_eq!(starts(&count), 3);
    assert!(
        !rig.screen
            .notices()
            .iter()
            .any(|n| n.contains("couldn't complete")),
        "{:?}",
        rig.screen.notices()
    );
}

#[actix_rt::test]
async fn a_fork_that_never_starts_gives_up_after_three_attempts() {
    let tmp = tempfile::tempdir().unwrap();
    let (wrapper, count) = failing_wrapper(tmp.path(), 99);
    let rig = rig_with_binary(|_| Reply::Text("done".into()), |_| {}, wrapper).await;
    rig.write(
        "reminders/never.md",
        &bg_reminder("d0000002", 1, "", "this will not start"),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the first start", |_| starts(&count) >= 1).await;
    drive_until(&rig, "the failure notice", |r| {
        r.screen
            .notices()
            .iter()
            .any(|n| n.contains("couldn't complete"))
    })
    .await;
    // The fork has stopped: no attempt is left to come.
    rig.settle().await;
    assert_eq!(starts(&count), 3);
    assert!(rig.requests_for("[reminder-bg:d0000002]").is_empty());
}
