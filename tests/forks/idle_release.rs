//! The idle footprint (SPEC §16) with the real CLI: once the conversation has been idle for
//! `main_idle_release`, its CLI process is closed; the next message starts one again on the same
//! session, with the whole history, and without the "i'm back" greeting. *(SPEC §19)* A new
//! process's running cost starts from zero, and turns are costed against it.

use ollim_actors::conversation::main_session::{Command, ProcessRunning, Say};
use ollim_actors::conversation::surface::SurfaceEvent;

use crate::rig::{rig, Rig};
use crate::support::mock_model_api::Reply;

fn replies(rig: &Rig) -> Vec<String> {
    rig.screen
        .events()
        .into_iter()
        .filter_map(|e| match e {
            SurfaceEvent::Reply(t) => Some(t),
            _ => None,
        })
        .collect()
}

async fn process_running(rig: &Rig, want: bool) {
    let main = rig.handles.main_session.clone().unwrap();
    let what = if want { "a process" } else { "no process" };
    let deadline = tokio::time::Instant::now() + crate::rig::LIMIT;
    while main.send(ProcessRunning).await.unwrap() != want {
        assert!(tokio::time::Instant::now() < deadline, "never {what}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[actix_rt::test]
async fn an_idle_conversation_lets_its_process_go_and_resumes_the_same_session() {
    let rig = rig(
        |req| {
            let text = req.latest_user_text();
            if text.contains("what is the code word") {
                let history = serde_json::to_string(req.messages()).unwrap_or_default();
                if history.contains("the code word is pineapple") {
                    Reply::Text("it was pineapple".into())
                } else {
                    Reply::Text("I don't know".into())
                }
            } else {
                Reply::Text("got it".into())
            }
        },
        |data| {
            std::fs::create_dir_all(data.state()).unwrap();
            std::fs::write(
                data.state_file("config.json"),
                r#"{"main_idle_release": 1}"#,
            )
            .unwrap();
        },
    )
    .await;
    let main = rig.handles.main_session.clone().unwrap();
    main.do_send(Say {
        text: "the code word is pineapple".into(),
        images: vec![],
    });
    rig.until("the first answer", |r| replies(r) == ["got it"])
        .await;
    let saved = std::fs::read_to_string(rig.data.state_file("sessions.json")).unwrap();
    process_running(&rig, true).await;
    rig.clock.advance(chrono::Duration::seconds(61));
    process_running(&rig, false).await;

    main.do_send(Say {
        text: "what is the code word?".into(),
        images: vec![],
    });
    rig.until("the answer after the release", |r| replies(r).len() == 2)
        .await;
    assert_eq!(replies(&rig)[1], "it was pineapple", "the history was kept");
    process_running(&rig, true).await;
    let resumed = std::fs::read_to_string(rig.data.state_file("sessions.json")).unwrap();
    assert_eq!(resumed, saved, "the same session id");
    assert!(
        !rig.screen
            .notices()
            .iter()
            .any(|n| n.starts_with("hey, i'm back")),
        "no greeting for a release: {:?}",
        rig.screen.notices()
    );

    // SPEC §19: the resumed process's running cost starts again from zero, so its first turn
    // costs its whole total, not what it exceeds the released process's total by. The usage log
    // answers in order: once it has answered, both turns are written.
    rig.handles
        .usage_log
        .send(ollim_actors::records::usage::GetReport { days: None })
        .await
        .unwrap()
        .unwrap();
    let usage = std::fs::read_to_string(rig.data.state_file("usage.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = usage
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{usage}");
    for line in &lines {
        assert_eq!(line["kind"], "conversation", "{line}");
        assert_eq!(line["session"], saved.trim(), "{line}");
        assert!(line["cost_usd"].as_f64().unwrap() > 0.0, "{line}");
        assert_eq!(
            line["cost_usd"], line["total_cost_usd"],
            "a process's first turn: {line}"
        );
    }

    // The same for a foreground reminder that wakes a released conversation: its run line
    // carries its turn's whole cost, the new process's total (`/cost`). The turn reads a larger
    // context, so measured against the released process's total it would read as less.
    rig.mock.report_input_tokens(200_000);
    rig.clock.advance(chrono::Duration::seconds(61));
    process_running(&rig, false).await;
    let due = (rig.clock.shared().now() + chrono::Duration::minutes(1))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    std::fs::create_dir_all(rig.data.reminders()).unwrap();
    std::fs::write(
        rig.data.reminders().join("nudge.md"),
        format!("---\nid: \"fe000001\"\nrun-at: \"{due}\"\nbackground: false\n---\nnudge me\n"),
    )
    .unwrap();
    rig.registered(1).await;
    rig.clock.advance(chrono::Duration::minutes(2));
    let runs = rig.data.state_file("runs.jsonl");
    let deadline = tokio::time::Instant::now() + crate::rig::LIMIT;
    let run: serde_json::Value = loop {
        let text = std::fs::read_to_string(&runs).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.contains("fe000001")) {
            break serde_json::from_str(line).unwrap();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the reminder never ran"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(run["outcome"], "ok", "{run}");
    let cost = run["cost_usd"].as_f64().unwrap();
    assert!(cost > 0.0, "{run}");
    let shown = main.send(Command::Cost).await.unwrap();
    assert!(
        shown.starts_with(&format!("cost this run: ${cost:.4} ·")),
        "{shown} vs {run}"
    );
}
