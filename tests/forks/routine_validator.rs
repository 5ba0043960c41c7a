//! The `routine_validator` hook through the real CLI (SPEC §17): the agent's write of a routine
//! the scheduler could not register is refused with a `routine-validator:` reason the model
//! reads, and nothing is written; a valid one with warnings is written, the warnings passed on.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use ollim_actors::conversation::main_session::Say;
use ollim_actors::conversation::surface::SurfaceEvent;
use serde_json::json;

use crate::rig::{call, rig, tool_result_text, Rig};
use crate::support::mock_model_api::{ModelRequest, Reply};

const BROKEN: &str = "---\nid: \"e0000001\"\nbackground: true\ndescription: no cron\n---\nhi\n";
const WARNED: &str = "---\nid: \"e0000002\"\ncron: \"0 9 * * *\"\nbackground: true\n\
                      allowed-tools:\n  - \"Bash\"\n---\ncheck things\n";

/// The data directory, known once the rig is up.
type Root = Arc<Mutex<PathBuf>>;

/// Writes `routines/<name>` with `content` when told `write <name>`; answers a tool's result
/// with `after the tool: …`.
fn script(root: &Root, req: &ModelRequest) -> Reply {
    if !req.tool_results().is_empty() {
        return Reply::Text(format!("after the tool: {}", tool_result_text(req)));
    }
    let text = req.latest_user_text();
    let (name, content) = if text.contains("write broken.md") {
        ("broken.md", BROKEN)
    } else if text.contains("write warned.md") {
        ("warned.md", WARNED)
    } else {
        return Reply::Text("nothing to do".into());
    };
    call(
        "Write",
        json!({"file_path": root.lock().unwrap().join("routines").join(name), "content": content}),
    )
}

async fn bot() -> Rig {
    let root = Root::default();
    let seen = root.clone();
    let rig = rig(move |req| script(&seen, req), |_| {}).await;
    *root.lock().unwrap() = rig.data.root().to_path_buf();
    rig
}

/// Says `text` and waits for the model's answer to the tool's result.
async fn turn(rig: &Rig, text: &str) {
    rig.handles.main_session.clone().unwrap().do_send(Say {
        text: text.into(),
        images: vec![],
    });
    let want = text.to_owned();
    rig.until(&format!("the answer to {want}"), move |r| {
        let answered = r
            .screen
            .events()
            .iter()
            .any(|e| matches!(e, SurfaceEvent::Reply(t) if t.starts_with("after the tool: ")));
        answered && r.mock.agent_requests().iter().any(|q| q.mentions(&want))
    })
    .await;
}

fn results_after(rig: &Rig, said: &str) -> Vec<String> {
    rig.mock
        .agent_requests()
        .iter()
        .filter(|q| q.mentions(said) && !q.tool_results().is_empty())
        .map(tool_result_text)
        .collect()
}

#[actix_rt::test]
async fn a_routine_the_scheduler_could_not_run_is_refused_and_not_written() {
    let rig = bot().await;
    turn(&rig, "please write broken.md").await;
    let results = results_after(&rig, "write broken.md");
    assert!(
        results.iter().any(|r| r.contains(
            "routine-validator: routines/broken.md was not written: missing required field `cron`"
        )),
        "{results:?}"
    );
    assert!(!rig.data.routines().join("broken.md").exists());
}

#[actix_rt::test]
async fn a_routine_with_warnings_is_written_and_the_warnings_reach_the_model() {
    let rig = bot().await;
    turn(&rig, "please write warned.md").await;
    let written = std::fs::read_to_string(rig.data.routines().join("warned.md")).unwrap();
    assert_eq!(written, WARNED);
    let after: Vec<_> = rig
        .mock
        .agent_requests()
        .into_iter()
        .filter(|q| !q.tool_results().is_empty())
        .collect();
    assert!(
        after.iter().any(|q| q.mentions(
            "routine-validator: routines/warned.md is valid, with warnings worth fixing"
        ) && q.mentions("`allowed-tools` entry `Bash` is unscoped")),
        "{:?}",
        after
            .iter()
            .map(|q| q.messages().to_vec())
            .collect::<Vec<_>>()
    );
}
