//! The living memory, `context.md` (SPEC §18), end to end through the real `claude` CLI: what
//! the agent writes is in the system prompt of every later session — after `/clear`, in an
//! interactive fork, after a restart, in a background fork and an isolated one — while a
//! background fork's writes of it are refused (pointing at `report_updates`) and leave it as
//! it was; `/memory` shows it and `/memory undo` reverts the last change as a new commit. And:
//! a file over its limit reaches the prompt cut, with the over-limit line; an interactive fork
//! carries each pending update in one exchange only.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

const LINE: &str = "- MEMO-LINE-4242: Robin is moving in May";
const WAIT: Duration = Duration::from_secs(90);

/// Tool results the agent has had since the message holding `tag`; `None` when no message
/// holds it (not that session).
fn steps_after(req: &ModelRequest, tag: &str) -> Option<usize> {
    let messages = req.messages();
    let start = messages
        .iter()
        .position(|m| m["role"] == "user" && m.to_string().contains(tag))?;
    Some(
        messages[start..]
            .iter()
            .filter(|m| m["role"] == "user")
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .filter(|b| b["type"] == "tool_result")
            .count(),
    )
}

/// The request shows `context.md` holding `line`: in its system prompt (a new session's) or in a
/// message (a resumed or forked process's first).
fn knows(req: &ModelRequest, line: &str) -> bool {
    let section = format!("### context.md\n\n{line}");
    req.system_text().contains(&section) || req.mentions(&section)
}

/// The conversation's side of the memory tests: "remember the move" writes [`LINE`] to
/// `context.md` at `path`, a fork's start is greeted, anything else is "ok".
fn conversation_reply(req: &ModelRequest, path: &str) -> Reply {
    let text = req.latest_user_text();
    if !req.tool_results().is_empty() {
        Reply::Text("noted in memory".into())
    } else if text.contains("remember the move") {
        tool(
            "Write",
            json!({"file_path": path, "content": format!("{LINE}\n")}),
        )
    } else if text.contains("[fork-started]") {
        Reply::Text("fork ready".into())
    } else {
        Reply::Text("ok".into())
    }
}

fn tool(name: &str, input: Value) -> Reply {
    Reply::ToolUse {
        name: name.into(),
        input,
    }
}

fn reminder(id: &str, extra: &str, body: &str) -> String {
    let at = (chrono::Utc::now() + chrono::Duration::seconds(3))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    format!("---\nid: \"{id}\"\nrun-at: \"{at}\"\nbackground: true\n{extra}---\n{body}\n")
}

fn memory_log(data: &Path) -> Vec<String> {
    let out = std::process::Command::new("git")
        .args(["log", "--format=%s", "--", "context.md"])
        .current_dir(data)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn what_the_agent_remembers_reaches_every_session_and_background_forks_cannot_change_it() {
    let home = Home::new();
    let file = home.data.join("context.md");
    let path = file.display().to_string();
    let mock = MockModelApi::start(move |req| {
        if let Some(step) = steps_after(req, "[reminder-bg:c0000001]") {
            return match step {
                0 => tool("Read", json!({"file_path": path})),
                1 => tool("Write", json!({"file_path": path, "content": "HACKED\n"})),
                2 => tool(
                    "Edit",
                    json!({"file_path": path, "old_string": "MEMO-LINE-4242", "new_string": "HACKED"}),
                ),
                3 => tool(
                    "Bash",
                    json!({"command": "echo HACKED >> context.md", "description": "append"}),
                ),
                _ => Reply::Text("background done".into()),
            };
        }
        conversation_reply(req, &path)
    })
    .await
    .unwrap();
    let with_line =
        |wanted: &'static str| move |r: &ModelRequest| r.latest_user_text().contains(wanted);

    let mut bot = Bot::start(&home, &mock).await;
    bot.say("remember the move").await;
    bot.expect("noted in memory").await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), format!("{LINE}\n"));
    let first = mock
        .first_agent_request(with_line("remember the move"), WAIT)
        .await
        .unwrap();
    assert!(
        first.system_text().contains("## Memory"),
        "the guide is there"
    );
    assert!(!first.system_text().contains(LINE));
    assert_eq!(memory_log(&home.data), ["auto: memory: write context.md"]);

    bot.say("/clear").await;
    bot.expect("conversation cleared").await;
    bot.say("after the clear").await;
    bot.expect("ok").await;
    let cleared = mock
        .first_agent_request(with_line("after the clear"), WAIT)
        .await
        .unwrap();
    assert!(knows(&cleared, LINE), "after /clear");

    bot.say("/fork plans").await;
    bot.expect("fork ready").await;
    let fork = mock
        .first_agent_request(with_line("[fork-started]"), WAIT)
        .await
        .unwrap();
    assert!(knows(&fork, LINE), "in an interactive fork");
    bot.say("/exit-fork").await;
    bot.expect("Fork Ended — discarded").await;
    bot.finish().await;

    // A restart, with two background reminders due: one forks the conversation and tries to
    // change the memory three ways, the other runs isolated.
    let allowed =
        "allowed-tools:\n  - \"Write(**.md)\"\n  - \"Edit(**.md)\"\n  - \"Bash(echo *)\"\n";
    home.write(
        "reminders/meddle.md",
        &reminder("c0000001", allowed, "tidy the memory"),
    );
    home.write(
        "reminders/alone.md",
        &reminder("c0000002", "isolated: true\n", "look around alone"),
    );
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("after the restart").await;
    bot.expect("ok").await;
    let restarted = mock
        .first_agent_request(with_line("after the restart"), WAIT)
        .await
        .unwrap();
    assert!(knows(&restarted, LINE), "after a restart");
    let isolated = mock
        .first_agent_request(|r| r.mentions("[reminder-bg:c0000002]"), WAIT)
        .await
        .unwrap();
    assert!(
        isolated.system_text().contains(LINE),
        "in an isolated background fork"
    );
    let done = mock
        .first_agent_request(
            |r| steps_after(r, "[reminder-bg:c0000001]") == Some(4),
            WAIT,
        )
        .await
        .expect("the background fork tried all four");
    assert!(knows(&done, LINE), "in a background fork");
    let results: Vec<String> = mock
        .agent_requests()
        .iter()
        .filter(|r| steps_after(r, "[reminder-bg:c0000001]").is_some_and(|s| s >= 2))
        .flat_map(|r| r.tool_results())
        .map(|(_, text, _)| text)
        .collect();
    for (tool, result) in ["Write", "Edit"].iter().zip(results.iter()) {
        assert!(result.contains("report_updates"), "{tool}: {result}");
        assert!(
            result.contains("context.md is unchanged"),
            "{tool}: {result}"
        );
    }
    // The file tools run inside the CLI: our hook refuses them. Bash runs in the OS sandbox,
    // where the kernel refuses the write (the memory is read-only to a background job).
    assert!(
        results[2].contains("Read-only file system"),
        "Bash: {}",
        results[2]
    );
    assert_eq!(results.len(), 3, "{results:#?}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        format!("{LINE}\n"),
        "unchanged"
    );

    bot.say("/memory").await;
    bot.expect("context.md: 41 characters (limit 12,000)").await;
    bot.expect("auto: memory: write context.md  (+1 -0)").await;
    bot.say("/memory undo").await;
    bot.expect("context.md is gone again (that change created it)")
        .await;
    bot.finish().await;
    assert!(!file.exists());
    let log = memory_log(&home.data);
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(log[0].starts_with("auto: memory: undo "), "{log:?}");
}

/// A memory over its limit reaches the prompt cut to 12,000 characters with the over-limit
/// line; and an interactive fork carries an update pending when it starts in its first
/// exchange only, and one queued later (a background routine's report) in the next.
#[tokio::test]
async fn an_oversized_memory_is_cut_and_a_fork_shows_each_update_once() {
    let home = Home::new();
    let memory = format!("{}{}", "a".repeat(12_000), "b".repeat(1_000));
    home.write("context.md", &memory);
    home.write(
        "state/pending_updates.json",
        r#"[{"ts": "2026-11-27T09:00:00-05:00", "message": "UPDATE-ONE: the inbox is empty"}]"#,
    );
    home.write(
        "routines/report.md",
        "---\nid: \"r0000001\"\ncron: \"0 3 1 1 *\"\nbackground: true\nupdate-main-session: \"always\"\n---\ncheck the mail\n",
    );
    let mock = MockModelApi::start(|req| {
        if let Some(step) = steps_after(req, "[routine-bg:r0000001]") {
            return match step {
                0 => tool(
                    "mcp__discord__report_updates",
                    json!({"message": "UPDATE-TWO: a letter from the bank"}),
                ),
                _ => Reply::Text("reported".into()),
            };
        }
        if req.latest_user_text().contains("[fork-started]") {
            Reply::Text("fork ready".into())
        } else {
            Reply::Text("fork says ok".into())
        }
    })
    .await
    .unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("/fork errands").await;
    bot.expect("fork ready").await;
    let started = mock
        .first_agent_request(|r| r.latest_user_text().contains("[fork-started]"), WAIT)
        .await
        .unwrap();
    let system = started.system_text();
    let cut = format!(
        "### context.md\n\n{}\n\n[context.md is 1000 characters over its 12000-character limit",
        "a".repeat(12_000)
    );
    assert!(
        system.contains(&cut),
        "the first 12,000 and the over-limit line"
    );
    assert!(!system.contains('b'.to_string().repeat(20).as_str()));

    let exchange =
        |wanted: &'static str| move |r: &ModelRequest| r.latest_user_text().contains(wanted);
    bot.say("first in the fork").await;
    bot.expect("fork says ok").await;
    let first = mock
        .first_agent_request(exchange("first in the fork"), WAIT)
        .await
        .unwrap();
    assert!(
        first.latest_user_text().contains("UPDATE-ONE"),
        "{}",
        first.latest_user_text()
    );
    bot.say("second in the fork").await;
    bot.expect("fork says ok").await;
    let second = mock
        .first_agent_request(exchange("second in the fork"), WAIT)
        .await
        .unwrap();
    assert!(
        !second.latest_user_text().contains("UPDATE-ONE"),
        "{}",
        second.latest_user_text()
    );

    bot.say("/run r0000001").await;
    mock.first_agent_request(|r| steps_after(r, "[routine-bg:r0000001]") == Some(1), WAIT)
        .await
        .expect("the routine reported");
    // A change made another way than the file tools is committed when the turn ends.
    assert_eq!(memory_log(&home.data), ["auto: memory: as found at start"]);
    std::fs::write(home.data.join("context.md"), format!("{memory}c\n")).unwrap();
    bot.say("third in the fork").await;
    bot.expect("fork says ok").await;
    let third = mock
        .first_agent_request(exchange("third in the fork"), WAIT)
        .await
        .unwrap();
    let text = third.latest_user_text();
    assert!(
        text.contains("UPDATE-TWO") && !text.contains("UPDATE-ONE"),
        "{text}"
    );
    let deadline = std::time::Instant::now() + WAIT;
    while memory_log(&home.data).len() < 2 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        memory_log(&home.data).first().map(String::as_str),
        Some("auto: memory: changed during a turn")
    );
    bot.finish().await;
}

/// The memory the conversation writes reaches the next background fork and interactive fork
/// while the conversation's CLI keeps running, and the conversation itself after a restart —
/// on every supported release. (2.1.330 keeps a resumed session's first appended system prompt
/// for `--fork-session` and drops the fork's own, so the memory cannot ride only there.)
#[tokio::test]
async fn memory_written_mid_conversation_reaches_the_next_forks_on_every_release() {
    let home = Home::new();
    let file = home.data.join("context.md");
    let path = file.display().to_string();
    home.write(
        "routines/look.md",
        "---\nid: \"r0000002\"\ncron: \"0 3 1 1 *\"\nbackground: true\n---\nlook at the week\n",
    );
    let mock = MockModelApi::start(move |req| {
        if req.mentions("[routine-bg:r0000002]") {
            return Reply::Text("looked".into());
        }
        conversation_reply(req, &path)
    })
    .await
    .unwrap();

    let mut bot = Bot::start(&home, &mock).await;
    bot.say("remember the move").await;
    bot.expect("noted in memory").await;
    let first = mock
        .first_agent_request(|r| r.latest_user_text().contains("remember the move"), WAIT)
        .await
        .unwrap();
    assert!(
        !knows(&first, LINE),
        "nothing was remembered when it started"
    );

    bot.say("/run r0000002").await;
    let background = mock
        .first_agent_request(|r| r.mentions("[routine-bg:r0000002]"), WAIT)
        .await
        .expect("the routine ran");
    assert!(knows(&background, LINE), "in the background fork");

    bot.say("/fork plans").await;
    bot.expect("fork ready").await;
    let fork = mock
        .first_agent_request(|r| r.latest_user_text().contains("[fork-started]"), WAIT)
        .await
        .unwrap();
    assert!(knows(&fork, LINE), "in the interactive fork");
    bot.say("/exit-fork").await;
    bot.expect("Fork Ended — discarded").await;
    bot.finish().await;

    let mut bot = Bot::start(&home, &mock).await;
    bot.say("after the restart").await;
    bot.expect("ok").await;
    let restarted = mock
        .first_agent_request(|r| r.latest_user_text().contains("after the restart"), WAIT)
        .await
        .unwrap();
    assert!(knows(&restarted, LINE), "after a restart");
    bot.finish().await;
}
