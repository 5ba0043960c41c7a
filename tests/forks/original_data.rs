//! The data directory in the shape the original's documentation of 2026-04 shows
//! (`tests/fixtures/original-2026-04/`), run with the real CLI (SPEC §17, issue 22): each job
//! runs as the docs say — a reminder without `background:` in a background fork, one with
//! `background: false` in the conversation, a routine bound to `gmail-reader` with a skill
//! whose SKILL.md has no `name` told to delegate and given its instructions, a `/standup-notes`
//! body expanded by the CLI, and every background job offered the default tools plus what
//! `tool-policy.yaml` adds.

use chrono::Duration;
use ollim_actors::conversation::surface::SurfaceEvent;

use crate::rig::{rig, start_instant};
use crate::support::mock_model_api::Reply;

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `text` with its `run-at` moved to `minutes` after the rig's start, in the file's own offset
/// style (New York).
fn due_in(text: &str, minutes: i64) -> String {
    let at = (start_instant() + Duration::minutes(minutes))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    text.lines()
        .map(|l| {
            if l.starts_with("run-at: ") {
                format!("run-at: \"{at}\"")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[actix_rt::test]
async fn the_originals_jobs_run_as_its_documentation_says() {
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/original-2026-04");
    let rig = rig(
        |_req| Reply::Text("ok".into()),
        |data| {
            copy_tree(&fixture, data.root());
            for (file, minutes) in [("water-plants.md", 5), ("call-back.md", 5)] {
                let path = data.reminders().join(file);
                let text = std::fs::read_to_string(&path).unwrap();
                std::fs::write(&path, due_in(&text, minutes)).unwrap();
            }
            // Only these two reminders are due in this test.
            for file in ["submit-form.md", "deploy-watch.md"] {
                std::fs::remove_file(data.reminders().join(file)).unwrap();
            }
        },
    )
    .await;
    rig.registered(8).await;
    // 10:00 in New York: the 9:15, 9:45 and 10:00 routines and both reminders are due.
    rig.advance_to(60);
    rig.until("the five jobs", |r| {
        let fg_answered = r
            .screen
            .events()
            .iter()
            .any(|e| matches!(e, SurfaceEvent::Reply(t) if t == "ok"));
        fg_answered
            && [
                "[reminder-bg:6a7b8c9d]",
                "[routine-bg:3d4e5f6a]",
                "[routine-bg:5f6a7b8c]",
                "[routine-bg:1b2c3d4e]",
            ]
            .iter()
            .all(|tag| !r.requests_for(tag).is_empty())
    })
    .await;
    rig.settle().await;

    // No `background:` key: a background fork. `background: false`: the conversation.
    assert!(rig.requests_for("[reminder:6a7b8c9d]").is_empty());
    assert!(!rig.requests_for("[reminder:7b8c9d0e]").is_empty());
    assert!(rig.requests_for("[reminder-bg:7b8c9d0e]").is_empty());

    // Bound to gmail-reader, with a skill whose SKILL.md has no `name`.
    let triage = &rig.requests_for("[routine-bg:3d4e5f6a]")[0];
    let text = triage.latest_user_text();
    assert!(text.contains("REQUIRED SUBAGENT: gmail-reader"), "{text}");
    assert!(
        text.contains("Newsletters and receipts never need an answer"),
        "{text}"
    );
    assert!(
        triage.tool_names().iter().any(|t| t == "Agent"),
        "{:?}",
        triage.tool_names()
    );

    // A body opening with `/standup-notes`: the CLI expanded the skill.
    let standup = &rig.requests_for("[routine-bg:5f6a7b8c]")[0];
    assert!(
        standup.mentions("List what I finished and what is next"),
        "{}",
        standup.latest_user_text()
    );

    // The default background tools and tool-policy.yaml's addition, without allowed-tools.
    let sweep = &rig.requests_for("[routine-bg:1b2c3d4e]")[0];
    let text = sweep.latest_user_text();
    for tool in [
        "Bash(ollim-bot tasks *)",
        "Read(./**.md)",
        "mcp__discord__add_reminder",
        "Bash(ollim-bot cal *)",
    ] {
        assert!(
            text.contains(tool),
            "{tool} in the preamble's tools: {text}"
        );
    }
    assert!(sweep.tool_names().iter().any(|t| t == "Bash"));
    assert!(sweep.tool_names().iter().any(|t| t == "Read"));

    // Nothing the original wrote was reported broken.
    let pending =
        std::fs::read_to_string(rig.data.state_file("pending_updates.json")).unwrap_or_default();
    assert!(!pending.contains("broken"), "{pending}");
    assert!(!pending.contains("blocked"), "{pending}");
}
