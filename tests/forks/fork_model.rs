//! An interactive fork runs on `model.fork` (SPEC §12 `/config`), and a haiku fork of a
//! conversation whose context is past haiku's window runs on sonnet instead, saying so
//! (SPEC §17, row B7): through the real CLI, the model of the fork's requests.

use ollim_actors::conversation::main_session::{Command, Say};
use ollim_actors::conversation::surface::SurfaceEvent;

use crate::rig::rig;
use crate::support::mock_model_api::{ModelRequest, Reply};

fn model_of(r: &ModelRequest) -> String {
    r.body["model"].as_str().unwrap_or_default().to_owned()
}

#[actix_rt::test]
async fn a_haiku_fork_of_a_large_context_runs_on_sonnet_and_says_so() {
    let rig = rig(
        |req| {
            if req.latest_user_text().contains("[fork-started]") {
                Reply::Text("fork here".into())
            } else {
                Reply::Text("noted".into())
            }
        },
        |data| {
            std::fs::write(data.state_file("config.json"), r#"{"model_fork": "haiku"}"#).unwrap();
        },
    )
    .await;
    // The conversation's answer reports a context past haiku's 200k window.
    rig.mock.report_input_tokens(230_000);
    let main = rig.handles.main_session.clone().unwrap();
    main.do_send(Say {
        text: "a long conversation so far".into(),
        images: vec![],
    });
    rig.until("the answer", |r| {
        r.screen
            .events()
            .iter()
            .any(|e| matches!(e, SurfaceEvent::Reply(t) if t == "noted"))
    })
    .await;
    rig.mock.report_input_tokens(0);
    let answer = main.send(Command::Fork(None)).await.unwrap();
    assert!(answer.starts_with("entering fork"), "{answer}");
    rig.until("the fork's greeting", |r| {
        r.screen
            .events()
            .iter()
            .any(|e| matches!(e, SurfaceEvent::Reply(t) if t == "fork here"))
    })
    .await;
    let fork_requests: Vec<ModelRequest> = rig
        .mock
        .agent_requests()
        .into_iter()
        .filter(|r| r.latest_user_text().contains("[fork-started]"))
        .collect();
    assert!(!fork_requests.is_empty());
    for r in &fork_requests {
        assert!(model_of(r).contains("sonnet"), "{}", model_of(r));
    }
    assert!(
        rig.screen
            .notices()
            .iter()
            .any(|n| n.contains("context exceeds haiku limit — using sonnet")),
        "{:?}",
        rig.screen.notices()
    );
}

#[actix_rt::test]
async fn a_fork_runs_on_the_fork_model() {
    let rig = rig(
        |req| {
            if req.latest_user_text().contains("[fork-started]") {
                Reply::Text("fork here".into())
            } else {
                Reply::Text("noted".into())
            }
        },
        |data| {
            std::fs::write(data.state_file("config.json"), r#"{"model_fork": "haiku"}"#).unwrap();
        },
    )
    .await;
    let main = rig.handles.main_session.clone().unwrap();
    let answer = main.send(Command::Fork(None)).await.unwrap();
    assert!(answer.starts_with("entering fork"), "{answer}");
    rig.until("the fork's greeting", |r| {
        r.screen
            .events()
            .iter()
            .any(|e| matches!(e, SurfaceEvent::Reply(t) if t == "fork here"))
    })
    .await;
    let fork_request = rig
        .mock
        .agent_requests()
        .into_iter()
        .find(|r| r.latest_user_text().contains("[fork-started]"))
        .expect("the fork asked the model");
    assert!(
        model_of(&fork_request).contains("haiku"),
        "{}",
        model_of(&fork_request)
    );
    assert!(!rig
        .screen
        .notices()
        .iter()
        .any(|n| n.contains("exceeds haiku limit")));
}
