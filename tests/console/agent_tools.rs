//! The agent's reminder tools and `send_file` (SPEC §10), called by the real CLI in a running
//! bot: the files they write, what they refuse and how the refusal is worded, and the sent file
//! shown on the console as its path.

use std::path::PathBuf;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

/// The user's message `CALL <tool> <json>` makes the model call `mcp__discord__<tool>`; the
/// tool's result is answered with `tool said: …` on one line (`tool failed: …` for an error
/// result; refusals are ordinary results starting `Error:`, as in the original).
fn tool_caller(req: &ModelRequest) -> Reply {
    if let Some((_, output, is_error)) = req.tool_results().first() {
        let verdict = if *is_error { "failed" } else { "said" };
        return Reply::Text(format!("tool {verdict}: {}", output.replace('\n', " | ")));
    }
    let latest = req.latest_user_text();
    let Some(call) = latest.split("CALL ").nth(1) else {
        return Reply::Text("ok".into());
    };
    let call = call.lines().next().unwrap_or_default();
    let (name, input) = call.split_once(' ').unwrap_or((call, "{}"));
    Reply::ToolUse {
        name: format!("mcp__discord__{name}"),
        input: serde_json::from_str(input).expect("the test's arguments are JSON"),
    }
}

/// Asks for one tool call and returns the model's one-line account of the result.
async fn call(bot: &mut Bot, tool: &str, input: &str) -> String {
    bot.say(&format!("CALL {tool} {input}")).await;
    bot.expect("tool ").await
}

fn reminder_files(home: &Home) -> Vec<(PathBuf, String)> {
    let dir = home.data.join("reminders");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(PathBuf, String)> = entries
        .filter_map(Result::ok)
        .map(|e| (e.path(), std::fs::read_to_string(e.path()).unwrap()))
        .collect();
    files.sort();
    files
}

fn id_of(file: &str) -> String {
    file.lines()
        .find_map(|l| l.strip_prefix("id: "))
        .map(|id| id.trim_matches('"').to_owned())
        .unwrap_or_else(|| panic!("no id in {file}"))
}

#[tokio::test]
async fn the_agent_adds_lists_and_cancels_reminders_and_bad_times_are_refused() {
    let mock = MockModelApi::start(tool_caller).await.unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;

    let said = call(
        &mut bot,
        "add_reminder",
        r#"{"prompt": "water the ferns", "delay_minutes": 30, "description": "ferns"}"#,
    )
    .await;
    assert!(said.starts_with("tool said: scheduled"), "{said}");
    assert!(
        said.contains("(in 30 min)") || said.contains("(in 29 min)"),
        "{said}"
    );
    let files = reminder_files(&home);
    assert_eq!(files.len(), 1, "{files:#?}");
    let ferns = &files[0].1;
    assert!(ferns.contains("water the ferns"), "{ferns}");
    assert!(
        !ferns.contains("background:"),
        "background by default, the default left out: {ferns}"
    );
    let ferns_id = id_of(ferns);

    // A local time without offset is in the configured zone (New York, EDT in June).
    let said = call(
        &mut bot,
        "add_reminder",
        r#"{"prompt": "call the dentist", "run_at": "2030-06-03T09:30", "foreground": true}"#,
    )
    .await;
    assert!(said.starts_with("tool said: scheduled"), "{said}");
    let dentist = reminder_files(&home)
        .into_iter()
        .map(|(_, text)| text)
        .find(|t| t.contains("call the dentist"))
        .expect("the dentist reminder's file");
    assert!(dentist.contains("2030-06-03T09:30:00-04:00"), "{dentist}");
    assert!(dentist.contains("background: false"), "{dentist}");

    for (input, wording) in [
        (
            r#"{"prompt": "too late", "run_at": "2020-01-06T09:00"}"#,
            "tool said: Error: that time has already passed, so nothing was scheduled",
        ),
        (
            r#"{"prompt": "twice", "delay_minutes": 5, "run_at": "2030-01-07T09:00"}"#,
            "tool said: Error: give delay_minutes or run_at, not both.",
        ),
        (
            r#"{"prompt": "when?"}"#,
            "tool said: Error: say when — give delay_minutes or run_at (one of the two).",
        ),
        (
            r#"{"prompt": "garbled", "run_at": "next tuesday"}"#,
            "tool said: Error: run_at must look like 2026-03-02T15:30",
        ),
    ] {
        let said = call(&mut bot, "add_reminder", input).await;
        assert!(said.starts_with(wording), "{input}: {said}");
    }
    assert_eq!(reminder_files(&home).len(), 2, "refusals write nothing");

    let said = call(&mut bot, "list_reminders", "{}").await;
    assert!(said.contains(&ferns_id) && said.contains("ferns"), "{said}");
    assert!(said.contains("call the dentist"), "{said}");

    let said = call(
        &mut bot,
        "cancel_reminder",
        &format!(r#"{{"reminder_id": "{ferns_id}"}}"#),
    )
    .await;
    assert_eq!(said, format!("tool said: cancelled {ferns_id}"));
    // `id`, the argument's older name, is still read.
    let said = call(&mut bot, "cancel_reminder", r#"{"id": "deadbeef"}"#).await;
    assert_eq!(
        said,
        "tool said: Error: no pending reminder has the id deadbeef"
    );
    bot.finish().await;
    let left = reminder_files(&home);
    assert_eq!(left.len(), 1, "{left:#?}");
    assert!(left[0].1.contains("call the dentist"), "{left:#?}");
}

#[tokio::test]
async fn the_agent_sends_a_file_shown_as_its_path_and_missing_or_huge_files_are_refused() {
    let mock = MockModelApi::start(tool_caller).await.unwrap();
    let home = Home::new();
    home.write("notes/plan.txt", "1. coffee\n2. ferns\n");
    let mut bot = Bot::start(&home, &mock).await;

    let said = call(
        &mut bot,
        "send_file",
        r#"{"file_path": "notes/plan.txt", "message": "today's plan"}"#,
    )
    .await;
    assert_eq!(said, "tool said: File sent.");
    let shown = bot
        .seen
        .iter()
        .find(|l| l.contains("-# file: "))
        .unwrap_or_else(|| panic!("the file's line: {:#?}", bot.seen))
        .clone();
    let real = home.data.join("notes/plan.txt").canonicalize().unwrap();
    assert!(shown.ends_with(&real.display().to_string()), "{shown}");
    assert!(
        bot.seen.iter().any(|l| l.contains("today's plan")),
        "{:#?}",
        bot.seen
    );

    // `path`, the argument's older name, is still read.
    let said = call(&mut bot, "send_file", r#"{"path": "notes/nope.txt"}"#).await;
    let missing = home.data.join("notes/nope.txt");
    assert_eq!(
        said,
        format!(
            "tool said: Error: there is no file at {}",
            missing.display()
        )
    );

    // One byte over Discord's 25 MB (sparse: nothing is written to disk).
    let big = home.data.join("big.bin");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(25 * 1024 * 1024 + 1)
        .unwrap();
    let said = call(&mut bot, "send_file", r#"{"path": "big.bin"}"#).await;
    assert_eq!(
        said,
        "tool said: Error: Discord takes files up to 25 MB; this one is too large to send: 25.0 MB"
    );
    let said = call(&mut bot, "send_file", r#"{"path": "notes"}"#).await;
    assert!(
        said.starts_with("tool said: Error: not a regular file, so not sent"),
        "{said}"
    );
    bot.finish().await;
    let shown_files = mock
        .agent_requests()
        .iter()
        .flat_map(|r| r.tool_results())
        .filter(|(_, text, _)| text == "File sent.")
        .count();
    assert_eq!(shown_files, 1);
    // The model is offered the original's argument names.
    let request = mock.agent_requests().pop().unwrap();
    let tools = request.body["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let schema = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == format!("mcp__discord__{name}"))
            .map(|t| t["input_schema"].clone())
            .unwrap_or_else(|| panic!("{name} offered"))
    };
    let send = schema("send_file");
    for field in ["file_path", "message", "critical"] {
        assert!(send["properties"].get(field).is_some(), "{send}");
    }
    assert!(schema("cancel_reminder")["properties"]
        .get("reminder_id")
        .is_some());
}
