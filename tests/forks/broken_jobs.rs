//! Broken job files reach the agent as a pending update, once per broken content (SPEC §17).

use std::time::{Duration as StdDuration, SystemTime};

use ollim_actors::records::pending_updates::Peek;
use ollim_actors::scheduling::scheduler::FireDue;

use crate::rig::{bg_routine, rig, Rig};
use crate::support::mock_model_api::Reply;

const BROKEN: &str = "---\nid: \"b0000001\"\nbackground: true\n---\nno cron here\n";

async fn updates(rig: &Rig) -> Vec<String> {
    rig.handles
        .pending_updates
        .send(Peek)
        .await
        .unwrap()
        .into_iter()
        .map(|u| u.message)
        .collect()
}

/// Writes `text` to `rel` with a modification time `secs` ahead, so the scheduler reads it
/// again even when the bytes are the same; then makes the scheduler re-read now.
async fn rewrite(rig: &Rig, rel: &str, text: &str, secs: u64) {
    rig.write(rel, text);
    let file = std::fs::File::options()
        .write(true)
        .open(rig.data.root().join(rel))
        .unwrap();
    file.set_modified(SystemTime::now() + StdDuration::from_secs(secs))
        .unwrap();
    drop(file);
    rig.handles.scheduler.send(FireDue).await.unwrap();
}

#[actix_rt::test]
async fn a_broken_routine_is_told_once_per_broken_content() {
    let rig = rig(|_| Reply::Text("ok".into()), |_| {}).await;
    rig.write("routines/broken.md", BROKEN);
    let mut told = Vec::new();
    for _ in 0..200 {
        told = updates(&rig).await;
        if !told.is_empty() {
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
    assert_eq!(
        told,
        [
            "Scheduler: routines/broken.md is broken and will not run until it is fixed — missing \
          required field `cron`"
        ]
    );
    // Read again, the same bytes: nothing new.
    rewrite(&rig, "routines/broken.md", BROKEN, 10).await;
    assert_eq!(updates(&rig).await.len(), 1);
    // Fixed, then broken the same way again: told again.
    rewrite(
        &rig,
        "routines/broken.md",
        &bg_routine("b0000001", "0 9 * * *", "", "fixed"),
        20,
    )
    .await;
    assert_eq!(updates(&rig).await.len(), 1);
    rewrite(&rig, "routines/broken.md", BROKEN, 30).await;
    let told = updates(&rig).await;
    assert_eq!(told.len(), 2, "{told:?}");
    assert!(told[1].contains("routines/broken.md"), "{told:?}");
    assert!(
        std::fs::read_to_string(rig.data.state_file("pending_updates.json"))
            .unwrap()
            .contains("routines/broken.md is broken")
    );
}

#[actix_rt::test]
async fn a_cron_the_scheduler_cannot_register_is_told() {
    let rig = rig(|_| Reply::Text("ok".into()), |_| {}).await;
    rewrite(
        &rig,
        "routines/late.md",
        &bg_routine("b0000002", "0 25 * * *", "", "an hour that does not exist"),
        0,
    )
    .await;
    let told = updates(&rig).await;
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(
        told[0].starts_with(
            "Scheduler: routines/late.md is broken and will not run until it is fixed — its \
             cron \"0 25 * * *\" could not be registered:"
        ),
        "{told:?}"
    );
}
