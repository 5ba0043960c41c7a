//! A fork never overwrites history: the agent's `save_context` asks the user (a yellow embed
//! with Confirm / Report Instead / Dismiss) and only Confirm saves; the request and the click
//! are refused when the main session moved on, when background updates arrived, or in a
//! resumed fork; the exit tools wait for the user's first line; a save with no session to save
//! says so, and *(ours, issue 28)* a save whose session id cannot be written changes nothing.

use ollim_actors::agent::tools::ButtonClick;
use ollim_actors::conversation::main_session::{
    Command, ExitAction, ForkEnded, PressButton, ResumeFromReply,
};
use ollim_actors::conversation::surface::SurfaceEvent;
use ollim_actors::records::pending_updates::{Append, Peek};
use serde_json::json;

use crate::rig::{call, rig, tool_result_text, Rig};
use crate::support::mock_model_api::{ModelRequest, Reply};

const CONFIRM_TITLE: &str = "Save this fork to the main conversation?";

/// The agent: greets in the fork, calls `save_context` when asked to save (or `exit_fork` on
/// the fork's first prompt when `eager`), and answers with the tool's result.
fn script(eager: bool) -> impl Fn(&ModelRequest) -> Reply + Send + Sync {
    move |req| {
        let text = req.latest_user_text();
        let results = tool_result_text(req);
        if !results.is_empty() && !text.contains("still there") {
            Reply::Text(format!("tool said: {results}"))
        } else if text.contains("[fork-started]") && eager {
            call("mcp__discord__exit_fork", json!({}))
        } else if text.contains("[fork-started]") && text.contains("resumed") {
            call("mcp__discord__save_context", json!({}))
        } else if text.contains("[fork-started]") {
            Reply::Text("fork here, what shall we dig into?".into())
        } else if text.contains("save this please") {
            call("mcp__discord__save_context", json!({}))
        } else if text.contains("still there") {
            Reply::Text(format!(
                "still in the fork: {}",
                req.mentions("[fork-started]")
            ))
        } else if text.contains("remember: the code is 4711") {
            Reply::Text("noted in the main conversation".into())
        } else {
            Reply::Text("main answer".into())
        }
    }
}

async fn talk(rig: &Rig, text: &str) {
    rig.handles.main_session.clone().unwrap().do_send(
        ollim_actors::conversation::main_session::Say {
            text: text.into(),
            images: vec![],
        },
    );
}

fn replied(rig: &Rig, start: &str) -> bool {
    rig.screen
        .events()
        .iter()
        .any(|e| matches!(e, SurfaceEvent::Reply(t) if t.starts_with(start)))
}

fn last_reply(rig: &Rig, start: &str) -> String {
    rig.screen
        .events()
        .into_iter()
        .rev()
        .find_map(|e| match e {
            SurfaceEvent::Reply(t) if t.starts_with(start) => Some(t),
            _ => None,
        })
        .unwrap_or_default()
}

fn main_id(rig: &Rig) -> String {
    std::fs::read_to_string(rig.data.state_file("sessions.json"))
        .unwrap()
        .trim()
        .to_owned()
}

fn ended(rig: &Rig) -> Vec<ExitAction> {
    rig.screen
        .events()
        .into_iter()
        .filter_map(|e| match e {
            SurfaceEvent::ForkEnded(a) => Some(a),
            _ => None,
        })
        .collect()
}

/// The confirmation embed's buttons: (labels, custom ids), when one was shown.
fn confirmation(rig: &Rig) -> Option<(Vec<String>, Vec<String>)> {
    rig.screen.events().into_iter().find_map(|e| match e {
        SurfaceEvent::Embed {
            embed, button_ids, ..
        } if embed.title == CONFIRM_TITLE => {
            assert_eq!(embed.color, ollim_actors::agent::tools::EmbedColor::Yellow);
            Some((
                embed.buttons.iter().map(|b| b.label.clone()).collect(),
                button_ids,
            ))
        }
        _ => None,
    })
}

/// Main conversation, then a fork with its greeting over and one line from the user in it.
async fn into_fork(rig: &Rig) -> String {
    talk(rig, "remember: the code is 4711").await;
    rig.until("the first answer", |r| replied(r, "noted")).await;
    let before = main_id(rig);
    let main = rig.handles.main_session.clone().unwrap();
    let answer = main
        .send(Command::Fork(Some("research".into())))
        .await
        .unwrap();
    assert!(answer.starts_with("entering fork"), "{answer}");
    rig.until("the fork's greeting", |r| replied(r, "fork here"))
        .await;
    before
}

async fn click(rig: &Rig, custom_id: String) -> String {
    let main = rig.handles.main_session.clone().unwrap();
    main.send(PressButton { custom_id }).await.unwrap()
}

#[actix_rt::test]
async fn save_context_asks_first_and_only_confirm_saves() {
    let rig = rig(script(false), |_| {}).await;
    let before = into_fork(&rig).await;
    talk(&rig, "save this please").await;
    rig.until("the tool's answer", |r| replied(r, "tool said"))
        .await;
    assert!(
        last_reply(&rig, "tool said").contains("only if they click Confirm"),
        "{}",
        last_reply(&rig, "tool said")
    );
    // The model is told what the tool does now.
    let asked = rig
        .mock
        .agent_requests()
        .into_iter()
        .find(|r| r.latest_user_text().contains("save this please"))
        .expect("the request that called save_context");
    let described = asked.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["name"] == "mcp__discord__save_context")
        .map(|t| t["description"].to_string())
        .unwrap_or_default();
    assert!(
        described.contains("nothing is saved unless they click Confirm"),
        "{described}"
    );
    let (labels, ids) = confirmation(&rig).expect("the confirmation embed");
    assert_eq!(labels, ["Confirm", "Report Instead", "Dismiss"]);
    assert_eq!(
        ids[1..],
        [
            ButtonClick::ForkReport.custom_id(),
            ButtonClick::Dismiss.custom_id()
        ]
    );
    // The fork is still open: the next line is the fork's.
    talk(&rig, "still there?").await;
    rig.until("the fork's answer", |r| replied(r, "still in the fork"))
        .await;
    assert_eq!(
        last_reply(&rig, "still in the fork"),
        "still in the fork: true"
    );
    assert!(ended(&rig).is_empty());
    assert_eq!(main_id(&rig), before);

    assert_eq!(click(&rig, ids[0].clone()).await, "");
    rig.until("the fork's end", |r| !ended(r).is_empty()).await;
    assert_eq!(ended(&rig), [ExitAction::Save]);
    assert_ne!(
        main_id(&rig),
        before,
        "the fork's session is now the main one"
    );
}

#[actix_rt::test]
async fn save_context_is_refused_once_background_updates_arrived() {
    let rig = rig(script(false), |_| {}).await;
    let before = into_fork(&rig).await;
    rig.handles
        .pending_updates
        .send(Append {
            message: "inbox: 3 new mails".into(),
        })
        .await
        .unwrap();
    talk(&rig, "save this please").await;
    rig.until("the tool's answer", |r| replied(r, "tool said"))
        .await;
    let said = last_reply(&rig, "tool said");
    assert!(said.contains("new background updates arrived"), "{said}");
    assert!(said.contains("report_updates"), "{said}");
    assert!(confirmation(&rig).is_none());
    assert_eq!(main_id(&rig), before);
    let updates = rig.handles.pending_updates.send(Peek).await.unwrap();
    assert_eq!(updates.len(), 1, "nothing cleared the update");
}

#[actix_rt::test]
async fn confirm_is_refused_when_the_main_session_moved_on_or_updates_arrived() {
    let rig = rig(script(false), |_| {}).await;
    let before = into_fork(&rig).await;
    talk(&rig, "save this please").await;
    rig.until("the confirmation", |r| confirmation(r).is_some())
        .await;
    let (_, ids) = confirmation(&rig).unwrap();

    // An update arrives after the question: Confirm is refused and the update stays.
    rig.handles
        .pending_updates
        .send(Append {
            message: "calendar: meeting moved".into(),
        })
        .await
        .unwrap();
    let answer = click(&rig, ids[0].clone()).await;
    assert!(answer.contains("not saved"), "{answer}");
    assert!(answer.contains("background updates"), "{answer}");
    let updates = rig.handles.pending_updates.send(Peek).await.unwrap();
    assert_eq!(updates.len(), 1);

    // The saved main session changes under the fork: refused as well.
    std::fs::write(
        rig.data.state_file("sessions.json"),
        "0b6e5a3c-8f1d-4a7e-9c2b-5d4f3e2a1b0c",
    )
    .unwrap();
    let answer = click(&rig, ids[0].clone()).await;
    assert!(answer.contains("moved on"), "{answer}");
    assert!(ended(&rig).is_empty());
    assert_ne!(main_id(&rig), before);
    assert_eq!(main_id(&rig), "0b6e5a3c-8f1d-4a7e-9c2b-5d4f3e2a1b0c");
}

#[actix_rt::test]
async fn a_resumed_fork_is_told_its_age_and_cannot_save() {
    let rig = rig(script(false), |_| {}).await;
    talk(&rig, "remember: the code is 4711").await;
    rig.until("the first answer", |r| replied(r, "noted")).await;
    let session = main_id(&rig);
    let main = rig.handles.main_session.clone().unwrap();
    let started = main
        .send(ResumeFromReply {
            session,
            text: "about that code".into(),
            age_secs: Some(7_300),
        })
        .await
        .unwrap();
    assert!(started);
    rig.until("the tool's answer", |r| replied(r, "tool said"))
        .await;
    let said = last_reply(&rig, "tool said");
    assert!(said.contains("not available in a resumed fork"), "{said}");
    // It was told how old it is and that it cannot save.
    let opened = rig.requests_for("resumed from an earlier fork");
    let intro = opened[0].latest_user_text();
    assert!(intro.contains("is 2 hours old."), "{intro}");
    assert!(intro.contains("save_context is unavailable"), "{intro}");
    assert!(confirmation(&rig).is_none());
}

#[actix_rt::test]
async fn exit_tools_wait_for_the_users_first_line() {
    let rig = rig(script(true), |_| {}).await;
    talk(&rig, "remember: the code is 4711").await;
    rig.until("the first answer", |r| replied(r, "noted")).await;
    let main = rig.handles.main_session.clone().unwrap();
    main.send(Command::Fork(None)).await.unwrap();
    rig.until("the tool's answer", |r| replied(r, "tool said"))
        .await;
    let said = last_reply(&rig, "tool said");
    assert!(
        said.contains("has not said anything in this fork"),
        "{said}"
    );
    talk(&rig, "still there?").await;
    rig.until("the fork's answer", |r| replied(r, "still in the fork"))
        .await;
    assert_eq!(
        last_reply(&rig, "still in the fork"),
        "still in the fork: true"
    );
    assert!(ended(&rig).is_empty());
}

#[actix_rt::test]
async fn a_save_without_a_session_says_the_fork_was_discarded() {
    let rig = rig(script(false), |_| {}).await;
    let before = into_fork(&rig).await;
    rig.handles
        .main_session
        .clone()
        .unwrap()
        .send(ForkEnded {
            action: ExitAction::Save,
            session_id: None,
        })
        .await
        .unwrap();
    rig.until("the fork's end", |r| !ended(r).is_empty()).await;
    assert_eq!(ended(&rig), [ExitAction::NothingToSave]);
    assert_eq!(main_id(&rig), before);
}

#[actix_rt::test]
async fn a_save_whose_session_id_cannot_be_written_leaves_the_main_session_as_it_was() {
    let rig = rig(script(false), |_| {}).await;
    let before = into_fork(&rig).await;
    // A directory where the session id's file was: the fork's id cannot be written over it.
    let file = rig.data.state_file("sessions.json");
    std::fs::remove_file(&file).unwrap();
    std::fs::create_dir(&file).unwrap();
    rig.handles
        .main_session
        .clone()
        .unwrap()
        .send(ForkEnded {
            action: ExitAction::Save,
            session_id: Some("0f0f0f0f-0000-4000-8000-000000000000".into()),
        })
        .await
        .unwrap();
    rig.until("the fork's end", |r| !ended(r).is_empty()).await;
    let shown = ended(&rig);
    let [ExitAction::NotSaved(not_saved)] = shown.as_slice() else {
        panic!("expected a save that failed, got {shown:?}");
    };
    assert_eq!(not_saved.file, file);
    std::fs::remove_dir(&file).unwrap();
    std::fs::write(&file, format!("{before}\n")).unwrap();
    // The main conversation goes on where it was, not on the fork.
    talk(&rig, "still there?").await;
    rig.until("the main answer", |r| replied(r, "still in the fork"))
        .await;
    assert_eq!(
        last_reply(&rig, "still in the fork"),
        "still in the fork: false"
    );
    assert_eq!(main_id(&rig), before);
}
