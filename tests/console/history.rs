//! `ollim-bot history` (SPEC §16) on the transcripts the real CLI wrote for a bot's two sessions:
//! the agent reads its previous session with `prev` through its Bash tool, the command line
//! lists both sessions and finds a phrase, and damaged transcript files are passed over.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::json;

mod shapes;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

const PHRASE: &str = "the heron nests by the old pier";

/// Runs `ollim-bot history <args>` as the user would, for `home`'s bot.
fn history(home: &Home, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("history")
        .args(args)
        .env("HOME", &home.home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env("OLLIM_DATA_DIR", &home.data)
        .env("OLLIM_TIMEZONE", "America/New_York")
        .output()
        .expect("run ollim-bot history")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "status {:?}; stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The session ids the bot recorded (created, then cleared into a new one).
fn recorded_sessions(home: &Home) -> Vec<String> {
    let text = std::fs::read_to_string(home.state("session_history.jsonl")).unwrap();
    let mut ids: Vec<String> = Vec::new();
    for line in text.lines() {
        let event: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = event["session_id"].as_str().unwrap().to_owned();
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// The transcript the CLI wrote for `session` (under HOME/.claude/projects/<project>/).
fn transcript_of(home: &Home, session: &str) -> PathBuf {
    let projects = home.home.join(".claude").join("projects");
    let found: Vec<PathBuf> = std::fs::read_dir(&projects)
        .unwrap_or_else(|e| panic!("{}: {e}", projects.display()))
        .filter_map(Result::ok)
        .map(|e| e.path().join(format!("{session}.jsonl")))
        .filter(|p| p.is_file())
        .collect();
    assert_eq!(found.len(), 1, "the transcript of {session}: {found:?}");
    found[0].clone()
}

/// A bot with two sessions: the first told the phrase, the second (after `/clear`) asks the
/// agent what was said last time, which it reads with `ollim-bot history prompts prev`.
async fn two_sessions(home: &Home) -> MockModelApi {
    let mock = MockModelApi::start(|req| {
        if let Some((_, output, _)) = req.tool_results().first() {
            Reply::Text(format!("history said: {}", output.replace('\n', " | ")))
        } else if req.latest_user_text().contains(PHRASE) {
            Reply::Text("noted".into())
        } else if req
            .latest_user_text()
            .contains("what did I tell you last time")
        {
            Reply::ToolUse {
                name: "Bash".into(),
                input: json!({
                    "command": "ollim-bot history prompts prev",
                    "description": "read the previous session"
                }),
            }
        } else {
            Reply::Text("ok".into())
        }
    })
    .await
    .unwrap();
    let mut bot = Bot::start(home, &mock).await;
    bot.say(PHRASE).await;
    bot.expect("noted").await;
    bot.say("/clear").await;
    bot.expect("conversation cleared").await;
    bot.say("what did I tell you last time").await;
    bot.expect("history said:").await;
    bot.finish().await;
    mock
}

#[tokio::test]
async fn history_reads_the_sessions_the_real_cli_wrote() {
    let home = Home::new();
    let mock = two_sessions(&home).await;
    let ids = recorded_sessions(&home);
    assert_eq!(ids.len(), 2, "{ids:?}");
    let (first, second) = (&ids[0], &ids[1]);

    // In the second session, `prev` named the first: its prompt came back to the agent.
    let results: Vec<String> = mock
        .agent_requests()
        .iter()
        .flat_map(|r| r.tool_results())
        .map(|(_, text, _)| text)
        .collect();
    let read = results
        .iter()
        .find(|t| t.contains(&first[..8]))
        .unwrap_or_else(|| panic!("prev named the first session {first}: {results:#?}"));
    assert!(read.contains(PHRASE), "{read}");
    assert!(!read.contains("what did I tell you"), "{read}");

    // From the command line, both sessions are listed, newest first.
    let listed = stdout(&history(&home, &["sessions"]));
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    assert!(
        lines[0].starts_with("prev ") && lines[0].contains(&second[..8]),
        "{listed}"
    );
    assert!(
        lines[1].starts_with("prev-2") && lines[1].contains(&first[..8]),
        "{listed}"
    );
    assert!(lines[1].contains(PHRASE), "{listed}");

    // A phrase is found by search, in the session that holds it, and the answer too.
    // (The second session's answer quotes it too, as the agent read it back.)
    let found = stdout(&history(&home, &["search", "HERON nests"]));
    assert!(found.starts_with("2 match(es)"), "{found}");
    assert!(
        found.contains(&first[..8]) && found.contains(&second[..8]),
        "{found}"
    );
    let prompts = stdout(&history(&home, &["search", "-p", "heron nests"]));
    assert!(prompts.starts_with("1 match(es)"), "{prompts}");
    assert!(
        prompts.contains(&first[..8]) && prompts.contains(PHRASE),
        "{prompts}"
    );
    let answers = stdout(&history(&home, &["search", "-r", "noted"]));
    assert!(answers.contains(&first[..8]), "{answers}");
    let nothing = stdout(&history(&home, &["search", "-p", "noted"]));
    assert!(!nothing.contains(&first[..8]), "{nothing}");

    // `prev` from the command line (no session asking) is the newest; `prev-2` the first.
    let prev = stdout(&history(&home, &["prompts", "prev"]));
    assert!(prev.contains("what did I tell you last time"), "{prev}");
    // The CLI's record of `/clear` in the new session is not a prompt the user typed.
    assert!(
        !prev.contains("command-name") && !prev.contains("/clear"),
        "{prev}"
    );
    let cleared = stdout(&history(&home, &["search", "-p", "/clear"]));
    assert!(cleared.starts_with("no matches"), "{cleared}");
    let prev2 = stdout(&history(&home, &["transcript", "prev-2"]));
    assert!(prev2.contains(PHRASE) && prev2.contains("noted"), "{prev2}");
    let none = history(&home, &["prompts", "prev-3"]);
    assert!(!none.status.success());
    let said = String::from_utf8_lossy(&none.stderr);
    assert!(said.contains("there is no session prev-3"), "{said}");
}

#[tokio::test]
async fn damaged_transcripts_are_passed_over_line_by_line() {
    let home = Home::new();
    two_sessions(&home).await;
    let ids = recorded_sessions(&home);
    let first = transcript_of(&home, &ids[0]);
    let project = first.parent().unwrap().to_path_buf();

    // A torn write and junk in the middle of a real transcript.
    let text = std::fs::read_to_string(&first).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(1, "{\"type\":\"user\",\"message\":{\"content\":");
    lines.insert(2, "\u{0}\u{1}not json at all");
    lines.push("{\"type\":\"assistant\",\"uuid\":4}");
    std::fs::write(&first, format!("{}\n{{\"type\":\"us", lines.join("\n"))).unwrap();
    // A file of binary junk, an empty one, and a directory named like a transcript.
    write_bytes(
        &project,
        "0badf00d-junk.jsonl",
        &[0xff, 0xfe, 0x00, b'\n', 0x80],
    );
    write_bytes(&project, "00000000-empty.jsonl", b"");
    std::fs::create_dir_all(project.join("11111111-dir.jsonl")).unwrap();

    let out = history(&home, &["sessions"]);
    let listed = stdout(&out);
    assert!(
        listed.contains(&ids[0][..8]) && listed.contains(&ids[1][..8]),
        "{listed}"
    );
    assert!(listed.contains(PHRASE), "{listed}");
    let notes = String::from_utf8_lossy(&out.stderr);
    assert!(notes.contains("unreadable line(s)"), "{notes}");

    let found = stdout(&history(&home, &["search", "heron"]));
    assert!(found.contains(PHRASE), "{found}");

    // `--since` keeps a session whose transcript changed in the period, messages or none, and
    // takes yesterday and local dates and times as well as spans.
    let recent = stdout(&history(&home, &["sessions", "--since", "1h"]));
    assert!(recent.contains("00000000  (empty)"), "{recent}");
    let today = chrono::Utc::now()
        .with_timezone(&chrono_tz::America::New_York)
        .date_naive();
    let midnight = today.format("%Y-%m-%d").to_string();
    let morning = format!("{midnight}T00:00");
    for since in ["yesterday", midnight.as_str(), morning.as_str()] {
        let listed = stdout(&history(&home, &["sessions", "--since", since]));
        assert!(listed.contains(&ids[0][..8]), "--since {since}: {listed}");
        let found = stdout(&history(&home, &["search", "--since", since, "heron"]));
        assert!(found.contains(PHRASE), "--since {since}: {found}");
    }
    let tomorrow = (today + chrono::Duration::days(1))
        .format("%Y-%m-%d")
        .to_string();
    let none = stdout(&history(&home, &["sessions", "--since", &tomorrow]));
    assert_eq!(none.trim(), "no sessions");
    let whole = stdout(&history(&home, &["transcript", &ids[0][..8]]));
    assert!(whole.contains(PHRASE) && whole.contains("noted"), "{whole}");
    stdout(&history(&home, &["prompts", "0badf00d"]));
    stdout(&history(&home, &["subagents"]));
}

fn write_bytes(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}
