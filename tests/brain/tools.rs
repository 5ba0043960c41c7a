//! Tools and hooks: the in-process MCP server, permission prompts, the Stop hook.

use ollim_actors::claude::brain::{BrainEvent, HookEvent, HookRegistration, UserMessage};
use serde_json::json;
use std::sync::atomic::AtomicU32;

use crate::harness::{until_result, Harness, TestHost, ECHO_TOOL};
use crate::support::mock_model_api::{ModelRequest, Reply};

/// Calls the echo tool once, then answers with the tool's result text.
fn echo_then_report(request: &ModelRequest) -> Reply {
    match request.tool_results().first() {
        Some((_, text, _)) => Reply::Text(format!("tool said: {text}")),
        None => Reply::ToolUse {
            name: ECHO_TOOL.into(),
            input: json!({"text": "ping 42"}),
        },
    }
}

#[tokio::test]
async fn mcp_tool_call_reaches_the_handler_and_its_result_reaches_the_model() {
    let harness = Harness::new(echo_then_report).await;
    let (process, mut events, _) = harness.start(harness.options()).await;
    process
        .send_user(&UserMessage::text("use the echo tool"))
        .expect("sent");
    let (seen, result) = until_result(&mut events).await;
    let calls = harness.host.tool_calls.lock().clone();
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].name, "echo");
    assert_eq!(calls[0].arguments, json!({"text": "ping 42"}));
    assert!(calls[0].tool_use_id.is_some(), "tool use id passed through");
    let requests = harness.mock.agent_requests();
    let results = requests
        .last()
        .map(ModelRequest::tool_results)
        .unwrap_or_default();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].1, "echoed: ping 42");
    assert!(!results[0].2, "not an error");
    assert!(seen
        .iter()
        .any(|e| matches!(e, BrainEvent::ToolUse { name, .. } if name == ECHO_TOOL)));
    assert_eq!(result.result.as_deref(), Some("tool said: echoed: ping 42"));
    process.shutdown().await;
}

#[tokio::test]
async fn denied_permission_becomes_an_error_tool_result_and_the_turn_goes_on() {
    let host = TestHost {
        deny_with: Some("not in this context".into()),
        ..TestHost::default()
    };
    let harness = Harness::with_host(host, echo_then_report).await;
    let (process, mut events, _) = harness.start(harness.options()).await;
    process
        .send_user(&UserMessage::text("use the echo tool"))
        .expect("sent");
    let (seen, result) = until_result(&mut events).await;
    let prompts = harness.host.prompts.lock().clone();
    assert_eq!(prompts.len(), 1, "host was asked once");
    assert_eq!(prompts[0].tool_name, ECHO_TOOL);
    assert!(
        harness.host.tool_calls.lock().is_empty(),
        "denied tool never ran"
    );
    let requests = harness.mock.agent_requests();
    let results = requests
        .last()
        .map(ModelRequest::tool_results)
        .unwrap_or_default();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].2, "tool result is an error");
    assert!(results[0].1.contains("not in this context"), "{results:?}");
    assert!(seen
        .iter()
        .any(|e| matches!(e, BrainEvent::ToolResult { is_error: true, .. })));
    assert!(!result.is_error, "the turn itself completes: {result:?}");
    process.shutdown().await;
}

#[tokio::test]
async fn allowed_tools_skip_the_permission_prompt() {
    let harness = Harness::new(echo_then_report).await;
    let mut options = harness.options();
    options.allowed_tools = vec![ECHO_TOOL.into()];
    let (process, mut events, _) = harness.start(options).await;
    process
        .send_user(&UserMessage::text("use the echo tool"))
        .expect("sent");
    until_result(&mut events).await;
    assert!(harness.host.prompts.lock().is_empty(), "allow rule decided");
    assert_eq!(harness.host.tool_calls.lock().len(), 1);
    process.shutdown().await;
}

#[tokio::test]
async fn stop_hook_blocking_once_makes_the_model_continue_then_empty_answer_ends() {
    let host = TestHost {
        stop_blocks: AtomicU32::new(1),
        ..TestHost::default()
    };
    let harness = Harness::with_host(host, |request| {
        if request.mentions("STOP-ACK") {
            Reply::Text("STOP-ACK done".into())
        } else {
            Reply::Text("first try".into())
        }
    })
    .await;
    let (process, mut events, _) = harness.start(harness.options()).await;
    process
        .send_user(&UserMessage::text("finish up"))
        .expect("sent");
    let (_, result) = until_result(&mut events).await;
    assert_eq!(result.num_turns, 2, "{result:?}");
    assert!(!result.is_error);
    assert_eq!(result.result.as_deref(), Some("STOP-ACK done"));
    let stops: Vec<bool> = harness
        .host
        .hooks
        .lock()
        .iter()
        .filter(|call| call.event == HookEvent::Stop)
        .map(|call| call.stop_hook_active())
        .collect();
    assert_eq!(
        stops,
        vec![false, true],
        "second stop follows the continuation"
    );
    assert_eq!(harness.mock.agent_requests().len(), 2);
    process.shutdown().await;
}

#[tokio::test]
async fn pre_tool_use_hook_can_refuse_a_tool_before_any_prompt() {
    let host = TestHost {
        pre_tool_deny: Some("state/ is off limits".into()),
        ..TestHost::default()
    };
    let harness = Harness::with_host(host, echo_then_report).await;
    let mut options = harness.options();
    options.hooks = vec![HookRegistration::on_tools(
        HookEvent::PreToolUse,
        "mcp__discord__.*",
    )];
    let (process, mut events, _) = harness.start(options).await;
    process
        .send_user(&UserMessage::text("use the echo tool"))
        .expect("sent");
    until_result(&mut events).await;
    let hooks = harness.host.hooks.lock().clone();
    assert_eq!(hooks.len(), 1, "{hooks:?}");
    assert_eq!(hooks[0].tool_name(), Some(ECHO_TOOL));
    assert!(harness.host.prompts.lock().is_empty(), "the hook decided");
    assert!(
        harness.host.tool_calls.lock().is_empty(),
        "refused tool never ran"
    );
    let requests = harness.mock.agent_requests();
    let results = requests
        .last()
        .map(ModelRequest::tool_results)
        .unwrap_or_default();
    assert!(
        results
            .first()
            .is_some_and(|r| r.2 && r.1.contains("state/ is off limits")),
        "{results:?}"
    );
    process.shutdown().await;
}

/// The pinned CLI's own list of tools (`system/init`, CLI defaults, no `--tools`) holds nothing
/// the bot's tool table does not classify: when a CLI release adds a tool this fails, naming it,
/// so the table (and what background forks and the conversation are offered) is looked at.
#[tokio::test]
async fn every_tool_the_cli_lists_at_start_is_classified_by_the_tool_table() {
    let harness = Harness::new(|_| Reply::Text("ok".into())).await;
    let (process, mut events, _) = harness.start(harness.options()).await;
    process.send_user(&UserMessage::text("hi")).expect("sent");
    let (seen, _) = until_result(&mut events).await;
    let tools = seen
        .iter()
        .find_map(|e| match e {
            BrainEvent::Init { tools, .. } => Some(tools.clone()),
            _ => None,
        })
        .expect("an init message");
    assert!(tools.iter().any(|t| t == "CronCreate"), "{tools:?}");
    // The harness serves its own `echo` tool; the bot's server never lists it.
    let listed: Vec<String> = tools
        .into_iter()
        .filter(|t| t != "mcp__discord__echo")
        .collect();
    let unknown = ollim_actors::agent::tools::offer::unclassified(&listed);
    assert!(unknown.is_empty(), "unclassified tools: {unknown:?}");
    process.shutdown().await;
}
