//! What a background job's prompt carries besides its task (SPEC §17): the conversation's
//! timestamp header, the pending updates peeked (not popped) unless the job is isolated, and
//! whether Google is connected.

use ollim_actors::records::pending_updates::{Append, Peek};

use crate::rig::{bg_reminder, prompt_block, rig, Rig};
use crate::support::mock_model_api::Reply;

async fn fire(rig: &Rig, tag: &str) -> String {
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the job's model call", |r| !r.requests_for(tag).is_empty())
        .await;
    rig.settle().await;
    prompt_block(&rig.requests_for(tag)[0], tag)
}

#[actix_rt::test]
async fn a_background_prompt_starts_with_the_header_and_peeks_the_pending_updates() {
    let rig = rig(|_| Reply::Text("done".into()), |_| {}).await;
    rig.handles
        .pending_updates
        .send(Append {
            message: "inbox triage: 2 mails need an answer".into(),
        })
        .await
        .unwrap();
    rig.write(
        "reminders/look.md",
        &bg_reminder("c0000001", 1, "", "look at the day"),
    );
    let prompt = fire(&rig, "[reminder-bg:c0000001]").await;
    assert!(
        prompt.starts_with(
            "[2026-03-02 Mon 09:01 AM EST] RECENT BACKGROUND UPDATES (read-only — main session \
             will also see these):\n- (1m ago) inbox triage: 2 mails need an answer\n\n\
             [reminder-bg:c0000001]"
        ),
        "{prompt}"
    );
    // Peeked, not popped: the main session still gets it.
    let queued = rig.handles.pending_updates.send(Peek).await.unwrap();
    assert_eq!(queued.len(), 1, "{queued:?}");
    let file = std::fs::read_to_string(rig.data.state_file("pending_updates.json")).unwrap();
    assert!(
        file.contains("inbox triage: 2 mails need an answer"),
        "{file}"
    );
    // No Google files: the preamble says Google is not connected.
    assert!(
        prompt.contains("Google (Tasks, Calendar, Gmail): not connected."),
        "{prompt}"
    );
}

#[actix_rt::test]
async fn an_isolated_background_prompt_gets_the_header_but_no_updates() {
    let rig = rig(
        |_| Reply::Text("done".into()),
        |data| {
            // A grant as the original writes it: Google is connected.
            std::fs::write(
                data.state_file("token.json"),
                r#"{"token": "at", "refresh_token": "rt", "token_uri": "http://127.0.0.1:9/token", "client_id": "cid", "client_secret": "cs", "scopes": ["https://www.googleapis.com/auth/tasks"], "universe_domain": "googleapis.com", "account": "", "expiry": "2026-03-02T13:00:00.000000Z"}"#,
            )
            .unwrap();
        },
    )
    .await;
    rig.handles
        .pending_updates
        .send(Append {
            message: "something the main session should hear".into(),
        })
        .await
        .unwrap();
    rig.write(
        "reminders/fresh.md",
        &bg_reminder("c0000002", 1, "isolated: true\n", "start afresh"),
    );
    let prompt = fire(&rig, "[reminder-bg:c0000002]").await;
    assert!(
        prompt.starts_with("[2026-03-02 Mon 09:01 AM EST] [reminder-bg:c0000002]"),
        "{prompt}"
    );
    assert!(!prompt.contains("RECENT BACKGROUND UPDATES"), "{prompt}");
    assert!(
        prompt.contains("Google (Tasks, Calendar, Gmail): connected."),
        "{prompt}"
    );
    assert_eq!(
        rig.handles.pending_updates.send(Peek).await.unwrap().len(),
        1
    );
}
