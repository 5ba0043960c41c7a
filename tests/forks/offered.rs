//! What each kind of session is offered, read from the `tools` the real CLI sends the mock
//! model (SPEC §6, §9, §16): each kind exactly its row of the tool table — a background fork
//! its effective set, the conversation the assistant's built-ins with only its own `discord`
//! tools — and nobody the CLI's scheduling tools.

use std::collections::BTreeSet;

use actix::Addr;
use ollim_actors::agent::tools::{BackgroundRules, SessionKind};
use ollim_actors::conversation::main_session::{Command, ForkButton, MainSession, Say};
use ollim_actors::conversation::surface::SurfaceEvent;

use crate::rig::{bg_reminder, rig, Rig};
use crate::support::mock_model_api::{ModelRequest, Reply};

/// The CLI's own scheduling, which must never be offered.
const SCHEDULING: [&str; 4] = ["CronCreate", "CronDelete", "CronList", "ScheduleWakeup"];

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

fn offered(request: &ModelRequest) -> BTreeSet<String> {
    request.tool_names().into_iter().collect()
}

/// The built-ins of an offer: the model sees the CLI's `Task` as `Agent`.
fn built_ins(tools: &BTreeSet<String>) -> BTreeSet<String> {
    tools
        .iter()
        .filter(|t| !t.starts_with("mcp__"))
        .cloned()
        .collect()
}

/// Fires the reminder `id` (written with `extra` frontmatter, due `minute` minutes after the
/// start) and returns its first request.
async fn first_request(rig: &Rig, id: &str, minute: i64, extra: &str) -> ModelRequest {
    rig.write(
        &format!("reminders/{id}.md"),
        &bg_reminder(id, minute, extra, "look around"),
    );
    rig.registered(1).await;
    rig.advance_to(minute);
    let tag = format!("[reminder-bg:{id}]");
    rig.until("the job's model call", |r| !r.requests_for(&tag).is_empty())
        .await;
    rig.requests_for(&tag).remove(0)
}

fn quiet(_: &ModelRequest) -> Reply {
    Reply::Text("nothing to do".into())
}

#[actix_rt::test]
async fn a_job_with_no_allowed_tools_is_offered_exactly_the_default_set() {
    let rig = rig(quiet, |_| {}).await;
    // A chain link with checks left: every reply tool applies.
    let request = first_request(&rig, "e1000001", 1, "max-chain: 2\n").await;
    let defaults = set(&[
        "Bash",
        "Read",
        "Glob",
        "Grep",
        "mcp__discord__add_reminder",
        "mcp__discord__list_reminders",
        "mcp__discord__cancel_reminder",
        "mcp__discord__discord_embed",
        "mcp__discord__follow_up_chain",
        "mcp__discord__ping_user",
        "mcp__discord__report_updates",
        "mcp__discord__send_file",
    ]);
    assert_eq!(offered(&request), defaults);
    // The preamble lists the set, the default set being a restriction too.
    let prompt = request.latest_user_text();
    let section = prompt
        .split("TOOL RESTRICTIONS:")
        .nth(1)
        .unwrap_or_else(|| panic!("no tool restrictions in {prompt}"));
    for tool in [
        "mcp__discord__report_updates",
        "mcp__discord__ping_user",
        "mcp__discord__discord_embed",
        "mcp__discord__follow_up_chain",
        "mcp__discord__send_file",
        "Bash(ollim-bot help)",
        "Bash(ollim-bot tasks *)",
        "Read(./**.md)",
        "Glob(./**.md)",
        "Grep(./**.md)",
        "mcp__discord__add_reminder",
        "mcp__discord__list_reminders",
        "mcp__discord__cancel_reminder",
    ] {
        assert!(
            section.contains(&format!("  - {tool}\n")),
            "{tool}: {section}"
        );
    }
}

#[actix_rt::test]
async fn no_ping_and_blocked_take_their_tools_away() {
    let rig = rig(quiet, |_| {}).await;
    let silent = first_request(&rig, "e1000002", 1, "allow-ping: false\n").await;
    let defaults = [
        "Bash",
        "Read",
        "Glob",
        "Grep",
        "mcp__discord__add_reminder",
        "mcp__discord__list_reminders",
        "mcp__discord__cancel_reminder",
    ];
    let with_defaults = |extra: &[&str]| {
        let mut all = set(&defaults);
        all.extend(set(extra));
        all
    };
    assert_eq!(
        offered(&silent),
        with_defaults(&["mcp__discord__report_updates"])
    );
    for gone in ["mcp__discord__ping_user", "mcp__discord__send_file"] {
        assert!(!silent.latest_user_text().contains(&format!("  - {gone}")));
    }
    rig.settle().await;
    let blocked = first_request(
        &rig,
        "e1000003",
        2,
        "update-main-session: \"blocked\"\nmax-chain: 3\n",
    )
    .await;
    assert_eq!(
        offered(&blocked),
        with_defaults(&[
            "mcp__discord__discord_embed",
            "mcp__discord__ping_user",
            "mcp__discord__send_file"
        ])
    );
}

#[actix_rt::test]
async fn a_job_allowed_web_search_gets_it_beside_the_defaults_and_no_other_built_in() {
    let rig = rig(quiet, |_| {}).await;
    let extra = "allowed-tools:\n  - \"Read\"\n  - \"WebSearch\"\n  - \"CronCreate\"\n  - \"mcp__discord__enter_fork\"\n";
    let request = first_request(&rig, "e1000004", 1, extra).await;
    let tools = offered(&request);
    assert_eq!(
        built_ins(&tools),
        set(&["Bash", "Read", "Glob", "Grep", "WebSearch"]),
        "{tools:?}"
    );
    assert!(!tools.contains("mcp__discord__enter_fork"), "{tools:?}");
    let prompt = request.latest_user_text();
    assert!(prompt.contains("  - Read\n"), "{prompt}");
    assert!(prompt.contains("  - WebSearch\n"), "{prompt}");
    assert!(!prompt.contains("  - CronCreate"), "{prompt}");
    assert!(!prompt.contains("  - mcp__discord__enter_fork"), "{prompt}");
}

/// Main session: "hello", then `/fork`: the fork greets.
fn conversation(req: &ModelRequest) -> Reply {
    if req.latest_user_text().contains("[fork-started]") {
        Reply::Text("fork here".into())
    } else if req.latest_user_text().contains("[reminder-bg:") {
        Reply::Text("nothing to do".into())
    } else {
        Reply::Text("hello there".into())
    }
}

/// What the table says `kind` is offered, by the names the model sees: the built-ins for
/// `--tools` (given `granted` by the tool policy) and the `discord` tools its server lists.
/// `ToolSearch` is left out: the CLI sends it only to Anthropic's API, never to the mock.
fn table_row(kind: &SessionKind, granted: &[&str]) -> BTreeSet<String> {
    let granted: Vec<String> = granted.iter().map(|g| (*g).to_owned()).collect();
    kind.built_in_tools(&granted)
        .into_iter()
        .filter(|t| t != "ToolSearch")
        .map(|t| if t == "Task" { "Agent".to_owned() } else { t })
        .chain(kind.listed_tools().into_iter().map(|t| t.qualified()))
        .collect()
}

/// Opens a fork about `topic` and returns its first request.
async fn fork_request(rig: &Rig, main: &Addr<MainSession>, topic: &str) -> ModelRequest {
    let answer = main
        .send(Command::Fork(Some(topic.to_owned())))
        .await
        .unwrap();
    assert!(answer.starts_with("entering fork"), "{answer}");
    let needle = format!("Topic: {topic}");
    rig.until("the fork's greeting", |r| {
        !r.requests_for(&needle).is_empty()
    })
    .await;
    rig.requests_for(&needle).remove(0)
}

/// Every kind of session, in one bot, is offered exactly its row of the tool table — so a CLI
/// release that adds a built-in, or offers one the bot did not ask for, fails here by name —
/// and that row holds the assistant's built-ins, none of the coding agent's and none of the
/// CLI's scheduling; the tool policy's `main_session.additional_allowed` brings a coding
/// built-in back from the next start of a conversation's process.
#[actix_rt::test]
async fn each_kind_of_session_is_offered_exactly_its_row_of_the_tool_table() {
    let rig = rig(conversation, |_| {}).await;
    let main = rig.handles.main_session.clone().unwrap();
    main.do_send(Say {
        text: "hi".into(),
        images: vec![],
    });
    rig.until("the answer", |r| {
        r.screen
            .events()
            .iter()
            .any(|e| matches!(e, SurfaceEvent::Reply(t) if t == "hello there"))
    })
    .await;
    let main_tools = offered(&rig.requests_for("hi")[0]);
    let bg_tools = offered(&first_request(&rig, "e1000008", 1, "").await);
    rig.settle().await;
    let fork_tools = offered(&fork_request(&rig, &main, "first").await);

    let background = SessionKind::Background(BackgroundRules::default());
    assert_eq!(main_tools, table_row(&SessionKind::Main, &[]));
    assert_eq!(fork_tools, table_row(&SessionKind::InteractiveFork, &[]));
    assert_eq!(bg_tools, table_row(&background, &[]));

    let assistant = set(&[
        "Agent",
        "Bash",
        "Read",
        "Write",
        "Edit",
        "Glob",
        "Grep",
        "WebFetch",
        "WebSearch",
        "Skill",
    ]);
    for tools in [&main_tools, &fork_tools] {
        assert_eq!(built_ins(tools), assistant);
        for tool in [
            "mcp__discord__discord_embed",
            "mcp__discord__add_reminder",
            "mcp__discord__list_reminders",
            "mcp__discord__cancel_reminder",
            "mcp__discord__send_file",
        ] {
            assert!(tools.contains(tool), "{tool} missing: {tools:?}");
        }
        for tool in ["mcp__discord__ping_user", "mcp__discord__follow_up_chain"] {
            assert!(!tools.contains(tool), "{tool} offered: {tools:?}");
        }
    }
    assert_eq!(built_ins(&bg_tools), set(&["Bash", "Read", "Glob", "Grep"]));
    assert!(main_tools.contains("mcp__discord__enter_fork"));
    for tool in ["save_context", "report_updates", "exit_fork"] {
        let tool = format!("mcp__discord__{tool}");
        assert!(!main_tools.contains(&tool), "{tool}");
        assert!(fork_tools.contains(&tool), "{tool}");
    }
    assert!(!fork_tools.contains("mcp__discord__enter_fork"));

    // The policy grants a coding built-in; the next fork's process is offered it.
    std::fs::write(
        rig.data.root().join("tool-policy.yaml"),
        "main_session:\n  additional_allowed:\n    - \"Workflow\"\n    - \"CronCreate\"\n",
    )
    .unwrap();
    main.send(Command::EndFork(ForkButton::Exit)).await.unwrap();
    rig.until("the fork's end", |r| {
        r.screen
            .events()
            .iter()
            .any(|e| matches!(e, SurfaceEvent::ForkEnded(_)))
    })
    .await;
    let granted = offered(&fork_request(&rig, &main, "second").await);
    assert_eq!(
        granted,
        table_row(&SessionKind::InteractiveFork, &["Workflow", "CronCreate"])
    );
    assert!(granted.contains("Workflow"), "{granted:?}");
    for tools in [&main_tools, &fork_tools, &bg_tools, &granted] {
        for tool in SCHEDULING {
            assert!(!tools.contains(tool), "{tool} offered: {tools:?}");
        }
    }
}

#[actix_rt::test]
async fn no_background_fork_is_offered_the_clis_scheduling_even_when_named() {
    let rig = rig(quiet, |_| {}).await;
    let extra = "allowed-tools:\n  - \"CronCreate\"\n  - \"ScheduleWakeup\"\n  - \"CronList\"\n";
    let request = first_request(&rig, "e1000005", 1, extra).await;
    let tools = offered(&request);
    for tool in SCHEDULING {
        assert!(!tools.contains(tool), "{tool} offered: {tools:?}");
    }
    assert_eq!(built_ins(&tools), set(&["Bash", "Read", "Glob", "Grep"]));
}

/// A background job may send a file from the data directory, never one outside it; it need not
/// name `send_file`, but a job that may not ping is not offered it.
#[actix_rt::test]
async fn a_background_fork_sends_only_data_directory_files_and_only_when_it_may_ping() {
    fn script(req: &ModelRequest) -> Reply {
        let result = crate::rig::tool_result_text(req);
        if result.contains("only files inside the data directory") {
            crate::rig::call(
                "mcp__discord__send_file",
                serde_json::json!({"path": "notes/summary.txt"}),
            )
        } else if !result.is_empty() {
            Reply::Text(format!("done: {result}"))
        } else if req.latest_user_text().contains("send the summary") {
            let outside = req
                .latest_user_text()
                .split("OUTSIDE=")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .unwrap_or_default()
                .trim_end_matches('"')
                .to_owned();
            crate::rig::call(
                "mcp__discord__send_file",
                serde_json::json!({ "path": outside }),
            )
        } else {
            Reply::Text("nothing to do".into())
        }
    }
    let rig = rig(script, |_| {}).await;
    std::fs::create_dir_all(rig.data.root().join("notes")).unwrap();
    rig.write("notes/summary.txt", "all quiet");
    let outside = rig.data.root().parent().unwrap().join("outside.txt");
    std::fs::write(&outside, "secret").unwrap();
    let id = "e1000006";
    rig.write(
        &format!("reminders/{id}.md"),
        &bg_reminder(
            id,
            1,
            "allowed-tools:\n  - \"mcp__discord__send_file\"\n",
            &format!("send the summary OUTSIDE={}", outside.display()),
        ),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.settle().await;
    let requests = rig.requests_for(&format!("[reminder-bg:{id}]"));
    assert!(offered(&requests[0]).contains("mcp__discord__send_file"));
    let results: Vec<String> = requests
        .iter()
        .map(crate::rig::tool_result_text)
        .filter(|t| !t.is_empty())
        .collect();
    assert_eq!(
        results,
        [
            "Error: background tasks may send only files inside the data directory.",
            "File sent."
        ]
    );
    let sent: Vec<std::path::PathBuf> = rig
        .screen
        .events()
        .into_iter()
        .filter_map(|e| match e {
            SurfaceEvent::File { file, .. } => Some(file.path),
            _ => None,
        })
        .collect();
    let inside = rig
        .data
        .root()
        .join("notes/summary.txt")
        .canonicalize()
        .unwrap();
    assert_eq!(sent, [inside]);

    // Not named: offered all the same, as a way back like `discord_embed`; a job that may not
    // ping is not offered it.
    let plain = first_request(&rig, "e1000007", 2, "").await;
    assert!(offered(&plain).contains("mcp__discord__send_file"));
    let silent = first_request(&rig, "e1000008", 3, "allow-ping: false\n").await;
    assert!(!offered(&silent).contains("mcp__discord__send_file"));
}
