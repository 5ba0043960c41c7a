//! A background fork's tool set through the real CLI (SPEC §17): the default `Read(./**.md)`
//! reaches markdown in the data directory and nothing else; an unsafe pattern skips the job
//! and tells the agent; `tool-policy.yaml` adds to or replaces the default set, and an edit
//! counts from the next job on, a broken edit keeping the policy last read well.

use std::collections::BTreeSet;
use std::time::Duration as StdDuration;

use ollim_actors::records::pending_updates::Peek;
use ollim_actors::scheduling::job_runner::Runs;
use serde_json::{json, Value};

use crate::rig::{bg_reminder, call, rig, Rig, LIMIT};
use crate::support::mock_model_api::{ModelRequest, Reply};

/// Tool results so far in the whole conversation of `req`.
fn results_so_far(req: &ModelRequest) -> usize {
    req.messages()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .count()
}

/// The reads a job makes, one per model call, in order.
fn reads() -> Vec<(&'static str, Value)> {
    vec![
        ("Read", json!({"file_path": "notes/plan.md"})),
        ("Read", json!({"file_path": "state/secret.json"})),
        ("Read", json!({"file_path": "notes/plan.txt"})),
        ("Glob", json!({"pattern": "**/*"})),
        ("Glob", json!({"pattern": "**/*.md"})),
        ("Grep", json!({"pattern": "SECRET"})),
        ("Grep", json!({"pattern": "SECRET", "glob": "*.md"})),
    ]
}

#[actix_rt::test]
async fn the_default_read_reaches_markdown_in_the_data_directory_and_nothing_else() {
    let rig = rig(
        |req| {
            if !req.mentions("[reminder-bg:f1000001]") {
                return Reply::Text("hello".into());
            }
            match reads().get(results_so_far(req)) {
                Some((tool, input)) => call(tool, input.clone()),
                None => Reply::Text("done".into()),
            }
        },
        |data| {
            std::fs::create_dir_all(data.root().join("notes")).unwrap();
            std::fs::write(data.root().join("notes/plan.md"), "MD SECRET plan").unwrap();
            std::fs::write(data.root().join("notes/plan.txt"), "TXT SECRET plan").unwrap();
            std::fs::write(data.state_file("secret.json"), "{\"SECRET\": 1}").unwrap();
        },
    )
    .await;
    rig.write(
        "reminders/read.md",
        &bg_reminder("f1000001", 1, "", "read the plan"),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.settle().await;
    let requests = rig.requests_for("[reminder-bg:f1000001]");
    let offered: BTreeSet<String> = requests[0].tool_names().into_iter().collect();
    for tool in ["Read", "Glob", "Grep"] {
        assert!(offered.contains(tool), "{tool}: {offered:?}");
    }
    let results: Vec<(String, bool)> = requests
        .iter()
        .flat_map(|r| r.tool_results())
        .map(|(_, text, is_error)| (text, is_error))
        .collect();
    assert_eq!(results.len(), reads().len(), "{results:#?}");
    let (md, md_error) = &results[0];
    assert!(!md_error && md.contains("MD SECRET plan"), "{md}");
    for (n, what) in [
        (1, "state/"),
        (2, "a text file"),
        (3, "a glob of everything"),
    ] {
        let (text, is_error) = &results[n];
        assert!(*is_error, "{what} was read: {text}");
        assert!(!text.contains("SECRET"), "{what} leaked: {text}");
        assert!(text.contains("Read(./**.md)"), "{what}: {text}");
    }
    let (listed, listed_error) = &results[4];
    assert!(
        !listed_error && listed.contains("notes/plan.md"),
        "{listed}"
    );
    assert!(!listed.contains("plan.txt"), "{listed}");
    let (everything, everything_error) = &results[5];
    assert!(
        *everything_error && !everything.contains("SECRET"),
        "{everything}"
    );
    let (found, found_error) = &results[6];
    assert!(!found_error && found.contains("plan.md"), "{found}");
    assert!(
        !found.contains("plan.txt") && !found.contains("secret.json"),
        "{found}"
    );
}

/// Waits until the runner has decided `n` jobs (handed, started, skipped, …).
async fn decided(rig: &Rig, n: u64) -> ollim_actors::scheduling::job_runner::RunCounts {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let runs = rig.handles.job_runner.send(Runs).await.unwrap();
        if runs.decided() >= n {
            return runs;
        }
        assert!(tokio::time::Instant::now() < deadline, "{runs:?}");
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
}

/// The run history's lines once `n` runs are closed.
async fn history(rig: &Rig, n: usize) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let lines: Vec<Value> = std::fs::read_to_string(rig.data.state_file("runs.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("every history line parses"))
            .collect();
        if lines.len() >= n {
            return lines;
        }
        assert!(tokio::time::Instant::now() < deadline, "{lines:#?}");
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
}

#[actix_rt::test]
async fn an_unsafe_pattern_skips_the_job_and_tells_the_agent_why() {
    let rig = rig(|_| Reply::Text("hello".into()), |_| {}).await;
    rig.write(
        "routines/wide.md",
        "---\nid: \"f1000002\"\ncron: \"1 9 * * *\"\nbackground: true\ndescription: \"inbox sweep\"\nallowed-tools:\n  - \"Read\"\n  - \"Bash(*)\"\n---\nsweep the inbox\n",
    );
    rig.registered(1).await;
    rig.advance_to(1);
    let runs = decided(&rig, 1).await;
    assert_eq!(runs.skipped, 1, "{runs:?}");
    assert_eq!(runs.forks_started, 0, "{runs:?}");
    assert!(
        rig.mock
            .all_requests()
            .iter()
            .all(|r| !r.mentions("[routine-bg:f1000002]")),
        "no model request for a blocked job"
    );
    let lines = history(&rig, 1).await;
    assert_eq!(lines[0]["job"], "f1000002");
    assert_eq!(lines[0]["outcome"], "skipped");
    let error = lines[0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("allowed-tools: Bash(*)"), "{error}");
    let updates = rig.handles.pending_updates.send(Peek).await.unwrap();
    assert_eq!(updates.len(), 1, "{updates:?}");
    let update = &updates[0].message;
    assert!(update.contains("inbox sweep"), "{update}");
    assert!(update.contains("routines/wide.md"), "{update}");
    assert!(update.contains("Bash(*)"), "{update}");
    assert!(update.contains("skipped"), "{update}");
}

/// Sets the policy file's text and moves its modification time on by `tick` seconds (the test
/// edits faster than the file system's clock may tick).
fn write_policy(rig: &Rig, text: &str, tick: u64) {
    let path = rig.data.root().join("tool-policy.yaml");
    std::fs::write(&path, text).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(std::time::UNIX_EPOCH + StdDuration::from_secs(1_800_000_000 + tick))
        .unwrap();
}

/// Fires reminder `id` due at `minute` and returns the tools its first request offered.
async fn offered_to(rig: &Rig, id: &str, minute: i64) -> BTreeSet<String> {
    rig.write(
        &format!("reminders/{id}.md"),
        &bg_reminder(id, minute, "", "look around"),
    );
    rig.registered(1).await;
    rig.advance_to(minute);
    let tag = format!("[reminder-bg:{id}]");
    rig.until("the job's model call", |r| !r.requests_for(&tag).is_empty())
        .await;
    rig.requests_for(&tag)[0].tool_names().into_iter().collect()
}

#[actix_rt::test]
async fn the_policy_adds_and_replaces_background_tools_from_the_next_job_on() {
    let rig = rig(|_| Reply::Text("nothing to do".into()), |_| {}).await;
    let plain = offered_to(&rig, "f1000003", 1).await;
    assert!(
        !plain.contains("WebSearch") && plain.contains("Read"),
        "{plain:?}"
    );

    write_policy(
        &rig,
        "bg_forks:\n  additional_allowed:\n    - \"WebSearch\"\n",
        1,
    );
    let added = offered_to(&rig, "f1000004", 2).await;
    assert!(
        added.contains("WebSearch") && added.contains("Read"),
        "{added:?}"
    );

    write_policy(&rig, "bg_forks:\n  override:\n    - \"WebSearch\"\n", 2);
    let replaced = offered_to(&rig, "f1000005", 3).await;
    assert!(replaced.contains("WebSearch"), "{replaced:?}");
    for gone in ["Read", "Glob", "Grep", "Bash", "mcp__discord__add_reminder"] {
        assert!(!replaced.contains(gone), "{gone}: {replaced:?}");
    }
    assert!(
        replaced.contains("mcp__discord__report_updates"),
        "{replaced:?}"
    );

    // A broken edit keeps the override: the defaults do not come back.
    write_policy(&rig, "bg_forks:\n  override: [\"WebSearch\"\n", 3);
    let kept = offered_to(&rig, "f1000006", 4).await;
    assert_eq!(kept, replaced);
}

/// The conversation: a line `touch N` makes the model run `touch made-N.txt`; its answer to
/// the tool result quotes it.
fn toucher(req: &ModelRequest) -> Reply {
    if !req.tool_results().is_empty() {
        let (_, text, is_error) = req.tool_results().remove(0);
        return Reply::Text(format!("tool said (error: {is_error}): {text}"));
    }
    let text = req.latest_user_text();
    match text
        .rsplit("touch ")
        .next()
        .and_then(|n| n.trim().parse::<u32>().ok())
    {
        Some(n) => call(
            "Bash",
            json!({"command": format!("touch made-{n}.txt"), "description": "make a file"}),
        ),
        None => Reply::Text("hello".into()),
    }
}

/// Sends `line` to the conversation and waits for the answer that quotes the tool result.
async fn say(
    rig: &Rig,
    main: &actix::Addr<ollim_actors::conversation::main_session::MainSession>,
    line: &str,
) -> String {
    let before = replies(rig).len();
    main.do_send(ollim_actors::conversation::main_session::Say {
        text: line.into(),
        images: vec![],
    });
    rig.until("the answer", |r| replies(r).len() > before).await;
    replies(rig).remove(before)
}

fn replies(rig: &Rig) -> Vec<String> {
    rig.screen
        .events()
        .into_iter()
        .filter_map(|e| match e {
            ollim_actors::conversation::surface::SurfaceEvent::Reply(t) => Some(t),
            _ => None,
        })
        .collect()
}

#[actix_rt::test]
async fn the_policy_grants_the_conversation_tools_from_the_next_line_on() {
    let rig = rig(toucher, |_| {}).await;
    let main = rig.handles.main_session.clone().unwrap();
    let denied = say(&rig, &main, "touch 1").await;
    assert!(denied.contains("error: true"), "{denied}");
    assert!(!rig.data.root().join("made-1.txt").exists());

    write_policy(
        &rig,
        "main_session:\n  additional_allowed:\n    - \"Bash(touch made-2.txt)\"\n",
        1,
    );
    let allowed = say(&rig, &main, "touch 2").await;
    assert!(allowed.contains("error: false"), "{allowed}");
    assert!(rig.data.root().join("made-2.txt").exists());

    // Only what it names: another command is still refused.
    let other = say(&rig, &main, "touch 3").await;
    assert!(other.contains("error: true"), "{other}");
    assert!(!rig.data.root().join("made-3.txt").exists());
}
