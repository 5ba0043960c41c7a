//! Chain reminders: a link schedules the next one, inheriting its settings; the last cannot.

use serde_json::json;

use crate::rig::{bg_reminder, call, rig, tool_result_text};
use crate::support::mock_model_api::Reply;

fn follow_up_script(req: &crate::support::mock_model_api::ModelRequest) -> Reply {
    if !req.tool_results().is_empty() {
        Reply::Text("ok".into())
    } else if req.latest_user_text().contains("[reminder-bg:") {
        call(
            "mcp__discord__follow_up_chain",
            json!({"minutes_from_now": 30}),
        )
    } else {
        Reply::Text("hello".into())
    }
}

#[actix_rt::test]
async fn a_chain_link_schedules_the_next_inheriting_its_settings() {
    let rig = rig(follow_up_script, |_| {}).await;
    let extra = "max-chain: 2\nchain-parent: \"c1000001\"\nmodel: \"haiku\"\nupdate-main-session: \"freely\"\ndescription: \"visa form\"\n";
    rig.write(
        "reminders/visa.md",
        &bg_reminder("c1000001", 1, extra, "is the visa form in?"),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the follow-up", |r| {
        r.requests_for("[reminder-bg:c1000001]")
            .iter()
            .any(|q| tool_result_text(q).contains("Follow-up scheduled in 30 minutes"))
    })
    .await;
    let files: Vec<_> = std::fs::read_dir(rig.data.reminders())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        files.len(),
        1,
        "the fired link is gone and one new link exists: {files:?}"
    );
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(!text.contains("c1000001\"\nrun-at"), "a new id: {text}");
    assert!(
        !text.contains("background:"),
        "a background link leaves out the default: {text}"
    );
    for line in [
        "chain-depth: 1\n",
        "max-chain: 2\n",
        "chain-parent: \"c1000001\"\n",
        "model: \"haiku\"\n",
        "description: \"visa form\"\n",
        "update-main-session: \"freely\"\n",
    ] {
        assert!(text.contains(line), "missing {line:?} in {text}");
    }
    assert!(text.ends_with("---\nis the visa form in?\n"), "{text}");
}

/// The last link is not offered `follow_up_chain` at all; a model that calls it anyway is told
/// by the CLI that there is no such tool, and nothing is written.
#[actix_rt::test]
async fn the_last_link_cannot_schedule_another() {
    let rig = rig(follow_up_script, |_| {}).await;
    let extra = "chain-depth: 2\nmax-chain: 2\nchain-parent: \"c1000001\"\nupdate-main-session: \"freely\"\n";
    rig.write(
        "reminders/last.md",
        &bg_reminder("c1000003", 1, extra, "final check"),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the refusal", |r| {
        r.requests_for("[reminder-bg:c1000003]")
            .iter()
            .any(|q| q.tool_results().iter().any(|(_, _, is_error)| *is_error))
    })
    .await;
    rig.settle().await;
    let asked = rig.requests_for("[reminder-bg:c1000003]");
    assert!(
        !asked[0]
            .tool_names()
            .contains(&"mcp__discord__follow_up_chain".to_owned()),
        "{:?}",
        asked[0].tool_names()
    );
    let left = std::fs::read_dir(rig.data.reminders()).unwrap().count();
    assert_eq!(left, 0, "no new link was written");
}
