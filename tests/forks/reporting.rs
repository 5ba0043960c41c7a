//! Reporting modes and the road back to the main session (SPEC §6, §8).

use ollim_actors::conversation::main_session::Say;
use ollim_actors::records::pending_updates::Peek;
use serde_json::json;

use crate::rig::{bg_reminder, call, rig, tool_result_text};
use crate::support::mock_model_api::Reply;

#[actix_rt::test]
async fn always_mode_keeps_the_agent_going_until_it_reports() {
    let rig = rig(
        |req| {
            let results = tool_result_text(req);
            if results.contains("Update reported") {
                Reply::Text("bye".into())
            } else if req.mentions("You have not called report_updates yet") {
                call(
                    "mcp__discord__report_updates",
                    json!({"message": "checked the inbox: nothing new"}),
                )
            } else if req.latest_user_text().contains("[reminder-bg:f0000001]") {
                Reply::Text("all quiet, nothing to do".into())
            } else {
                Reply::Text("hello".into())
            }
        },
        |_| {},
    )
    .await;
    rig.write(
        "reminders/inbox.md",
        &bg_reminder(
            "f0000001",
            1,
            "update-main-session: \"always\"\n",
            "check the inbox",
        ),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the report", |r| {
        r.requests_for("[reminder-bg:f0000001]")
            .iter()
            .any(|q| tool_result_text(q).contains("Update reported"))
    })
    .await;
    let updates = rig.handles.pending_updates.send(Peek).await.unwrap();
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0].message, "checked the inbox: nothing new");
}

#[actix_rt::test]
async fn blocked_mode_removes_the_reporting_tools() {
    let rig = rig(|_| Reply::Text("done".into()), |_| {}).await;
    rig.write(
        "reminders/quiet.md",
        &bg_reminder(
            "f0000002",
            1,
            "update-main-session: \"blocked\"\n",
            "just look around",
        ),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the job's model call", |r| {
        !r.requests_for("[reminder-bg:f0000002]").is_empty()
    })
    .await;
    let tools = rig.requests_for("[reminder-bg:f0000002]")[0].tool_names();
    assert!(
        tools.iter().any(|t| t == "mcp__discord__ping_user"),
        "{tools:?}"
    );
    assert!(
        !tools.iter().any(|t| t == "mcp__discord__report_updates"),
        "{tools:?}"
    );
    assert!(
        !tools.iter().any(|t| t == "mcp__discord__follow_up_chain"),
        "{tools:?}"
    );
}

#[actix_rt::test]
async fn a_report_reaches_the_next_main_session_message() {
    let rig = rig(
        |req| {
            let results = tool_result_text(req);
            if results.contains("Update reported") {
                Reply::Text("done".into())
            } else if req.latest_user_text().contains("[reminder-bg:f0000003]") {
                call(
                    "mcp__discord__report_updates",
                    json!({"message": "found 3 emails that need replies"}),
                )
            } else {
                Reply::Text("morning!".into())
            }
        },
        |_| {},
    )
    .await;
    rig.write(
        "reminders/mail.md",
        &bg_reminder(
            "f0000003",
            1,
            "update-main-session: \"freely\"\n",
            "triage mail",
        ),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the report stored", |r| {
        r.requests_for("[reminder-bg:f0000003]")
            .iter()
            .any(|q| tool_result_text(q).contains("Update reported"))
    })
    .await;
    let main = rig.handles.main_session.clone().unwrap();
    main.do_send(Say {
        text: "good morning".into(),
        images: vec![],
    });
    rig.until("the main message", |r| {
        r.mock
            .agent_requests()
            .iter()
            .any(|q| q.latest_user_text().contains("good morning"))
    })
    .await;
    let sent = rig
        .mock
        .agent_requests()
        .into_iter()
        .find(|q| q.latest_user_text().contains("good morning"))
        .unwrap()
        .latest_user_text();
    assert!(sent.contains("RECENT BACKGROUND UPDATES"), "{sent}");
    assert!(sent.contains("found 3 emails that need replies"), "{sent}");
    assert!(rig
        .handles
        .pending_updates
        .send(Peek)
        .await
        .unwrap()
        .is_empty());
}
