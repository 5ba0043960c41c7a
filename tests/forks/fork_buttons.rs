//! A background fork's `agent:` button resumes that fork as an interactive one (SPEC §10). Pressed
//! while another fork is open, it is refused — and keeps its prompt, so the same button starts the
//! fork once the open one has closed.

use ollim_actors::conversation::main_session::{Command, ForkButton, PressButton, Say};
use ollim_actors::conversation::surface::SurfaceEvent;
use ollim_actors::records::sessions::records::RegisterInquiry;

use crate::rig::{rig, Rig};
use crate::support::mock_model_api::{ModelRequest, Reply};

fn script(req: &ModelRequest) -> Reply {
    let text = req.latest_user_text();
    if text.contains("clicked a button on your output") {
        Reply::Text("resumed for the invoice".into())
    } else if text.contains("[fork-started]") {
        Reply::Text("fork here".into())
    } else {
        Reply::Text("noted".into())
    }
}

fn replied(rig: &Rig, start: &str) -> bool {
    rig.screen
        .events()
        .iter()
        .any(|e| matches!(e, SurfaceEvent::Reply(t) if t.starts_with(start)))
}

fn forks_ended(rig: &Rig) -> usize {
    rig.screen
        .events()
        .iter()
        .filter(|e| matches!(e, SurfaceEvent::ForkEnded(_)))
        .count()
}

#[actix_rt::test]
async fn a_fork_button_refused_while_a_fork_is_open_works_once_it_has_closed() {
    let rig = rig(script, |_| {}).await;
    let main = rig.handles.main_session.clone().unwrap();
    main.do_send(Say {
        text: "hello".into(),
        images: vec![],
    });
    rig.until("the first answer", |r| replied(r, "noted")).await;
    // A background session's button (the main session stands in for it: any saved session
    // can be branched).
    let session = std::fs::read_to_string(rig.data.state_file("sessions.json"))
        .unwrap()
        .trim()
        .to_owned();
    let id = rig
        .handles
        .session_records
        .send(RegisterInquiry {
            prompt: "look at the invoice".into(),
            fork_session: Some(session),
        })
        .await
        .unwrap()
        .unwrap();
    let button = format!("act:agent:{id}");

    let answer = main.send(Command::Fork(None)).await.unwrap();
    assert!(answer.starts_with("entering fork"), "{answer}");
    rig.until("the fork's greeting", |r| replied(r, "fork here"))
        .await;
    let refused = main
        .send(PressButton {
            custom_id: button.clone(),
        })
        .await
        .unwrap();
    assert!(refused.contains("already in a fork"), "{refused}");

    main.send(Command::EndFork(ForkButton::Exit)).await.unwrap();
    rig.until("the fork's end", |r| forks_ended(r) == 1).await;
    let answer = main.send(PressButton { custom_id: button }).await.unwrap();
    assert!(
        !answer.contains("already used"),
        "the prompt was kept: {answer}"
    );
    assert_eq!(answer, "");
    rig.until("the fork resumed with the button's prompt", |r| {
        replied(r, "resumed for the invoice")
    })
    .await;
    let opened = rig.requests_for("clicked a button on your output");
    assert!(
        opened[0].latest_user_text().contains("look at the invoice"),
        "{}",
        opened[0].latest_user_text()
    );
}
