//! Subagent binding end to end with the real CLI (SPEC §17, row A4): a job bound to an
//! installed subagent is told to hand its work over (`REQUIRED SUBAGENT`), is offered the Agent
//! tool and may start that subagent, whose own request reaches the model with the agent's
//! prompt, and whose answer comes back to the job in the same turn (the CLI 2.1.330 would run it
//! in the background and answer "Async agent launched" unless background tasks are off); a job
//! bound to a subagent that does not exist wakes no model, is recorded skipped and the agent
//! hears why.

use serde_json::{json, Value};

use crate::proactive::{history_until, runs_until};
use crate::rig::{bg_routine, call, rig, tool_result_text};
use crate::support::mock_model_api::Reply;

/// What the installed subagent's prompt says, so its requests are known by their system prompt.
const AGENT_PROMPT: &str = "You read the owner's notes and say what is open in them.";

#[actix_rt::test]
async fn a_bound_job_hands_its_work_to_the_subagent_and_an_unknown_one_is_skipped() {
    let rig = rig(
        |req| {
            if req.system_text().contains(AGENT_PROMPT) {
                Reply::Text("two open items in the notes".into())
            } else if !req.tool_results().is_empty() {
                Reply::Text("done".into())
            } else if req.latest_user_text().contains("[routine-bg:5a000001]") {
                call(
                    "Agent",
                    json!({
                        "description": "read the notes",
                        "prompt": "What is open in the notes?",
                        "subagent_type": "notes-reader",
                    }),
                )
            } else {
                Reply::Text("ok".into())
            }
        },
        |data| {
            let agents = data.root().join(".claude/agents");
            std::fs::create_dir_all(&agents).unwrap();
            std::fs::write(
                agents.join("notes-reader.md"),
                format!(
                    "---\nname: notes-reader\ndescription: Reads the notes.\ntools: Read\n---\n{AGENT_PROMPT}\n"
                ),
            )
            .unwrap();
        },
    )
    .await;
    rig.write(
        "routines/bound.md",
        &bg_routine(
            "5a000001",
            "1 9 * * *",
            "update-main-session: \"freely\"\nsubagent: \"notes-reader\"\n",
            "Find out what is open in my notes.",
        ),
    );
    rig.write(
        "routines/ghost.md",
        &bg_routine(
            "5a000002",
            "1 9 * * *",
            "subagent: \"nobody-here\"\n",
            "This needs a subagent that is not installed.",
        ),
    );
    rig.registered(2).await;
    rig.advance_to(1);
    runs_until(&rig, "both decided", |r| r.forks_started + r.skipped == 2).await;
    rig.settle().await;

    let first = rig
        .requests_for("[routine-bg:5a000001]")
        .into_iter()
        .next()
        .expect("the bound job reached the model");
    assert!(
        first
            .latest_user_text()
            .contains("REQUIRED SUBAGENT: notes-reader"),
        "{}",
        first.latest_user_text()
    );
    assert!(
        first.tool_names().iter().any(|t| t == "Agent"),
        "the Agent tool is offered: {:?}",
        first.tool_names()
    );
    let subagent = rig
        .mock
        .agent_requests()
        .into_iter()
        .find(|r| r.system_text().contains(AGENT_PROMPT))
        .expect("the subagent was started and asked the model");
    assert!(subagent.mentions("What is open in the notes?"));
    let answered = rig
        .requests_for("[routine-bg:5a000001]")
        .iter()
        .map(tool_result_text)
        .find(|t| !t.is_empty())
        .expect("the Agent call's result reached the job");
    assert!(
        answered.contains("two open items in the notes"),
        "the subagent's answer, not a denial: {answered}"
    );

    // The unknown subagent: no request, recorded skipped, the agent told.
    assert!(
        rig.mock
            .all_requests()
            .iter()
            .all(|r| !r.mentions("[routine-bg:5a000002]")),
        "no model request for the job whose subagent is missing"
    );
    let history = history_until(&rig, "both runs recorded", |lines| lines.len() >= 2).await;
    let ghost = history
        .iter()
        .find(|l| l["job"] == "5a000002")
        .expect("the skipped run");
    assert_eq!(ghost["outcome"], "skipped", "{ghost}");
    assert!(
        ghost["error"]
            .as_str()
            .is_some_and(|e| e.contains("subagent `nobody-here` not found")),
        "{ghost}"
    );
    let pending: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(rig.data.state_file("pending_updates.json")).unwrap(),
    )
    .unwrap();
    assert!(
        pending.iter().any(|u| u["message"]
            .as_str()
            .is_some_and(|m| m.contains("5a000002") && m.contains("`nobody-here`"))),
        "{pending:?}"
    );
}
