//! A plain conversation: handshake, streaming, the system prompt, interrupts.

use std::time::Duration;

use ollim_actors::claude::brain::{BrainEvent, ImageBlock, UserMessage};

use crate::harness::{streamed_text, until_result, Harness, ECHO_TOOL};
use crate::support::mock_model_api::Reply;

#[tokio::test]
async fn initialize_round_trip_serves_the_mcp_handshake_first() {
    let harness = Harness::new(|_| Reply::Text("hello".into())).await;
    let (process, mut events, init) = harness.start(harness.options()).await;
    // The release the CLI says it is must be the one the run asked for (the pinned one, or the
    // one `make test-cli` installed).
    let binary = crate::support::claude_cli::binary();
    let version = crate::support::claude_cli::version(&binary);
    if let Some(expected) = crate::support::claude_cli::expected_version(&binary) {
        assert_eq!(
            version,
            expected,
            "{} is not the release this run is for",
            binary.display()
        );
    }
    // Some releases leave the version out of the handshake; one that names it names the same.
    if let Some(reported) = init.claude_code_version() {
        assert_eq!(reported, version, "the handshake's version");
    }
    assert!(
        !init.models().is_empty(),
        "initialize response lists models"
    );
    process
        .send_user(&UserMessage::text("hi"))
        .expect("user line written");
    let (seen, _) = until_result(&mut events).await;
    let tools = seen.iter().find_map(|e| match e {
        BrainEvent::Init { tools, .. } => Some(tools.clone()),
        _ => None,
    });
    let tools = tools.expect("a system/init event");
    assert!(
        tools.iter().any(|t| t == ECHO_TOOL),
        "MCP tools/list served: {tools:?}"
    );
    let offered = harness.mock.agent_requests()[0].tool_names();
    assert!(
        offered.iter().any(|t| t == ECHO_TOOL),
        "model sees the tool: {offered:?}"
    );
    process.shutdown().await;
}

#[tokio::test]
async fn reply_streams_as_text_deltas_and_ends_with_a_success_result() {
    let harness = Harness::new(|_| Reply::Text("streamed answer from the mock".into())).await;
    let (process, mut events, _) = harness.start(harness.options()).await;
    let uuid = process
        .send_user(&UserMessage::text("say something"))
        .expect("sent");
    let (seen, result) = until_result(&mut events).await;
    let deltas = seen
        .iter()
        .filter(|e| matches!(e, BrainEvent::TextDelta(_)))
        .count();
    assert!(deltas >= 2, "answer arrived in pieces: {seen:?}");
    assert_eq!(streamed_text(&seen), "streamed answer from the mock");
    assert_eq!(result.subtype, "success");
    assert!(!result.is_error);
    assert_eq!(
        result.result.as_deref(),
        Some("streamed answer from the mock")
    );
    assert!(
        crate::harness::turn_named_line(&seen, &result, &uuid),
        "{result:?} {seen:?}"
    );
    let init_session = seen.iter().find_map(|e| match e {
        BrainEvent::Init { session_id, .. } => Some(session_id.clone()),
        _ => None,
    });
    assert!(!result.session_id.is_empty());
    assert_eq!(init_session.as_deref(), Some(result.session_id.as_str()));
    let exit = process.shutdown().await;
    assert!(exit.success(), "clean exit after stdin closed: {exit:?}");
}

#[tokio::test]
async fn appended_system_prompt_reaches_the_model() {
    let harness = Harness::new(|_| Reply::Text("ok".into())).await;
    let mut options = harness.options();
    options.append_system_prompt = Some("You are ollim-bot. MARKER-7731.".into());
    let (process, mut events, _) = harness.start(options).await;
    process.send_user(&UserMessage::text("hi")).expect("sent");
    until_result(&mut events).await;
    let system = harness.mock.agent_requests()[0].system_text();
    assert!(system.contains("MARKER-7731"), "system prompt: {system}");
    process.shutdown().await;
}

#[tokio::test]
async fn interrupt_ends_a_slow_answer_with_an_error_and_the_next_message_is_answered() {
    let harness = Harness::new(|request| {
        if request.latest_user_text().contains("second") {
            Reply::Text("second answer".into())
        } else {
            let chunks = (0..40).map(|i| format!("word{i} ")).collect();
            Reply::SlowText {
                chunks,
                delay: Duration::from_millis(250),
            }
        }
    })
    .await;
    let (process, mut events, _) = harness.start(harness.options()).await;
    process
        .send_user(&UserMessage::text("first, take your time"))
        .expect("sent");
    let first_delta = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(event) = events.recv().await {
            if matches!(event, BrainEvent::TextDelta(_)) {
                return true;
            }
        }
        false
    });
    assert!(
        first_delta.await.unwrap_or(false),
        "slow answer started streaming"
    );
    process.interrupt().await.expect("interrupt answered");
    let (_, result) = until_result(&mut events).await;
    assert!(result.is_error, "{result:?}");
    assert_eq!(result.terminal_reason.as_deref(), Some("aborted_streaming"));
    process
        .send_user(&UserMessage::text("second question"))
        .expect("sent");
    let (seen, result) = until_result(&mut events).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(streamed_text(&seen), "second answer");
    process.shutdown().await;
}

/// A 1×1 PNG.
const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

#[tokio::test]
async fn images_reach_the_model_as_base64_blocks() {
    let harness = Harness::new(|_| Reply::Text("a pixel".into())).await;
    let (process, mut events, _) = harness.start(harness.options()).await;
    let message = UserMessage {
        text: "what is this?".into(),
        images: vec![ImageBlock {
            media_type: "image/png".into(),
            data: PIXEL_PNG.into(),
        }],
    };
    process.send_user(&message).expect("sent");
    let (_, result) = until_result(&mut events).await;
    assert!(!result.is_error, "{result:?}");
    let request = harness.mock.agent_requests().pop().expect("a model call");
    let images: Vec<_> = request
        .messages()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "image")
        .collect();
    assert_eq!(images.len(), 1, "{:?}", request.messages());
    assert_eq!(images[0]["source"]["type"], "base64");
    assert!(request.latest_user_text().contains("what is this?"));
    process.shutdown().await;
}

/// Subagent binding accepts the CLI's own subagents by name without a file
/// (`subagent_binding::BUILT_IN`): the pinned CLI must still bring exactly those, or a job bound
/// to one would be refused (or one no longer there accepted).
#[tokio::test]
async fn the_clis_own_subagents_are_the_ones_binding_accepts() {
    let harness = Harness::new(|_| Reply::Text("hello".into())).await;
    let (process, _events, init) = harness.start(harness.options()).await;
    let mut listed: Vec<String> = init
        .raw
        .get("agents")
        .and_then(|a| a.as_array())
        .expect("the initialize response lists agents")
        .iter()
        .filter_map(|a| a.get("name").and_then(|n| n.as_str()).map(str::to_owned))
        .collect();
    listed.sort();
    let mut ours: Vec<String> = ollim_actors::jobs::subagent_binding::BUILT_IN
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    ours.sort();
    assert_eq!(listed, ours, "the CLI's own subagents changed");
    process.shutdown().await;
}
