//! Interactive forks: `save_context`, confirmed, makes the fork the main session; `exit_fork`
//! leaves the main session untouched.

use ollim_actors::conversation::main_session::{Command, Say};
use serde_json::json;

use crate::rig::{call, rig, tool_result_text, Rig};
use crate::support::mock_model_api::{ModelRequest, Reply};

fn script(exit_tool: &'static str) -> impl Fn(&ModelRequest) -> Reply + Send + Sync {
    move |req| {
        let text = req.latest_user_text();
        if tool_result_text(req).contains("Fork will")
            || tool_result_text(req).contains("Save confirmation sent")
        {
            Reply::Text("wrapping up the fork".into())
        } else if text.contains("[fork-started]") {
            Reply::Text("fork here, what shall we dig into?".into())
        } else if text.contains("we are done here") {
            call(exit_tool, json!({}))
        } else if text.contains("remember: the code is 4711") {
            Reply::Text("noted in the main conversation".into())
        } else {
            Reply::Text(format!(
                "main sees fork notes: {}",
                req.mentions("secret fork finding")
            ))
        }
    }
}

async fn talk(rig: &Rig, text: &str) {
    rig.handles.main_session.clone().unwrap().do_send(Say {
        text: text.into(),
        images: vec![],
    });
}

async fn into_fork_and_out(rig: &Rig, save: bool) -> String {
    talk(rig, "remember: the code is 4711").await;
    rig.until("the first answer", |r| {
        r.screen.events().iter().any(
            |e| matches!(e, ollim_actors::conversation::surface::SurfaceEvent::Reply(t) if t.contains("noted")),
        )
    })
    .await;
    let main_id = std::fs::read_to_string(rig.data.state_file("sessions.json")).unwrap();
    let main = rig.handles.main_session.clone().unwrap();
    let answer = main
        .send(Command::Fork(Some("secret research".into())))
        .await
        .unwrap();
    assert!(answer.starts_with("entering fork"), "{answer}");
    // The greeting's turn is over (its reply is shown) before the user talks: a line sent while
    // it runs would interrupt it and be merged with the `[fork-started]` prompt.
    rig.until("the fork's greeting", |r| {
        r.screen.events().iter().any(|e| {
            matches!(e, ollim_actors::conversation::surface::SurfaceEvent::Reply(t) if t.starts_with("fork here"))
        })
    })
    .await;
    talk(rig, "secret fork finding: the answer is 42").await;
    talk(rig, "we are done here").await;
    // A save waits for the user's Confirm on the confirmation embed.
    if save {
        rig.until("the save confirmation", |r| {
            r.screen.events().iter().any(|e| {
                matches!(e, ollim_actors::conversation::surface::SurfaceEvent::Embed { button_ids, .. } if button_ids.first().is_some_and(|id| id.contains("fork_confirm_save")))
            })
        })
        .await;
        let confirm = ollim_actors::agent::tools::ButtonClick::ForkConfirmSave.custom_id();
        let answer = main
            .send(ollim_actors::conversation::main_session::PressButton { custom_id: confirm })
            .await
            .unwrap();
        assert_eq!(answer, "");
    }
    rig.until("the fork's end", |r| {
        r.screen.events().iter().any(|e| {
            matches!(
                e,
                ollim_actors::conversation::surface::SurfaceEvent::ForkEnded(_)
            )
        })
    })
    .await;
    main_id.trim().to_owned()
}

#[actix_rt::test]
async fn save_context_makes_the_fork_the_main_session() {
    let rig = rig(script("mcp__discord__save_context"), |_| {}).await;
    let before = into_fork_and_out(&rig, true).await;
    let after = std::fs::read_to_string(rig.data.state_file("sessions.json")).unwrap();
    assert_ne!(
        after.trim(),
        before,
        "the fork's session is now the main one"
    );
    let history = std::fs::read_to_string(rig.data.state_file("session_history.jsonl")).unwrap();
    assert!(history.contains("\"swapped\""), "{history}");
    talk(&rig, "what do you know now?").await;
    rig.until("the next main answer", |r| {
        r.screen.events().iter().any(|e| matches!(e, ollim_actors::conversation::surface::SurfaceEvent::Reply(t) if t.starts_with("main sees fork notes")))
    })
    .await;
    let last = rig.screen.events().into_iter().rev().find_map(|e| match e {
        ollim_actors::conversation::surface::SurfaceEvent::Reply(t)
            if t.starts_with("main sees") =>
        {
            Some(t)
        }
        _ => None,
    });
    assert_eq!(last.as_deref(), Some("main sees fork notes: true"));
}

#[actix_rt::test]
async fn exit_fork_leaves_the_main_session_untouched() {
    let rig = rig(script("mcp__discord__exit_fork"), |_| {}).await;
    let before = into_fork_and_out(&rig, false).await;
    let after = std::fs::read_to_string(rig.data.state_file("sessions.json")).unwrap();
    assert_eq!(after.trim(), before);
    talk(&rig, "what do you know now?").await;
    rig.until("the next main answer", |r| {
        r.screen.events().iter().any(|e| matches!(e, ollim_actors::conversation::surface::SurfaceEvent::Reply(t) if t.starts_with("main sees fork notes")))
    })
    .await;
    let last = rig.screen.events().into_iter().rev().find_map(|e| match e {
        ollim_actors::conversation::surface::SurfaceEvent::Reply(t)
            if t.starts_with("main sees") =>
        {
            Some(t)
        }
        _ => None,
    });
    assert_eq!(last.as_deref(), Some("main sees fork notes: false"));
}

#[actix_rt::test]
async fn the_enter_fork_tool_opens_a_fork_and_report_updates_queues_its_summary() {
    let rig = rig(
        |req| {
            let text = req.latest_user_text();
            let results = tool_result_text(req);
            if results.contains("Entering fork") || results.contains("Update reported") {
                Reply::Text("ok".into())
            } else if text.contains("[fork-started]") {
                Reply::Text("in the fork now".into())
            } else if text.contains("wrap it up") {
                call(
                    "mcp__discord__report_updates",
                    json!({"message": "fork summary: flights compared"}),
                )
            } else if text.contains("compare flights") {
                call("mcp__discord__enter_fork", json!({"topic": "flights"}))
            } else {
                Reply::Text("hello".into())
            }
        },
        |_| {},
    )
    .await;
    talk(&rig, "please compare flights for me").await;
    rig.until("the fork", |r| {
        r.screen.events().iter().any(|e| {
            matches!(
                e,
                ollim_actors::conversation::surface::SurfaceEvent::ForkStarted { .. }
            )
        })
    })
    .await;
    // As above: the greeting's turn is over before the user talks.
    rig.until("the fork's greeting", |r| {
        r.screen.events().iter().any(|e| {
            matches!(e, ollim_actors::conversation::surface::SurfaceEvent::Reply(t) if t == "in the fork now")
        })
    })
    .await;
    talk(&rig, "great, wrap it up").await;
    rig.until("the fork's end", |r| {
        r.screen.events().iter().any(|e| {
            matches!(e, ollim_actors::conversation::surface::SurfaceEvent::ForkEnded(ollim_actors::conversation::main_session::ExitAction::Report(s)) if s == "fork summary: flights compared")
        })
    })
    .await;
    let updates = rig
        .handles
        .pending_updates
        .send(ollim_actors::records::pending_updates::Peek)
        .await
        .unwrap();
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0].message, "fork summary: flights compared");
}
