//! The CLI's own limits (SPEC §19): what `--max-turns` and `--max-budget-usd` do to a turn whose
//! model keeps calling a tool. The job runner records such a run `over-budget` from the result
//! frame these tests pin down. Either way the process stays up for the next input (stream-json)
//! and exits 1 when its input closes; the result frame is the signal, not the exit.

use ollim_actors::claude::brain::UserMessage;
use serde_json::json;

use crate::harness::{until_result, Harness, ECHO_TOOL};
use crate::support::mock_model_api::{ModelRequest, Reply};

/// A runaway model: it calls the echo tool again after every result.
fn forever(_request: &ModelRequest) -> Reply {
    Reply::ToolUse {
        name: ECHO_TOOL.into(),
        input: json!({"text": "again"}),
    }
}

#[tokio::test]
async fn max_turns_ends_a_runaway_turn_with_error_max_turns() {
    let harness = Harness::new(forever).await;
    let mut options = harness.options();
    options.max_turns = Some(3);
    let (process, mut events, _) = harness.start(options).await;
    process.send_user(&UserMessage::text("loop")).expect("sent");
    let (_, result) = until_result(&mut events).await;
    assert_eq!(result.subtype, "error_max_turns", "{result:?}");
    assert!(result.is_error, "{result:?}");
    // Three model calls; `num_turns` counts the ending as a fourth.
    assert_eq!(harness.mock.agent_requests().len(), 3);
    assert_eq!(result.terminal_reason.as_deref(), Some("max_turns"));
    process.shutdown().await;
}

#[tokio::test]
async fn max_budget_ends_a_runaway_turn_with_error_max_budget_usd() {
    let harness = Harness::new(forever).await;
    // Each call reads a million tokens: dollars a call at any model's price.
    harness.mock.report_input_tokens(1_000_000);
    let mut options = harness.options();
    options.max_budget_usd = Some(0.5);
    let (process, mut events, _) = harness.start(options).await;
    process.send_user(&UserMessage::text("loop")).expect("sent");
    let (_, result) = until_result(&mut events).await;
    assert_eq!(result.subtype, "error_max_budget_usd", "{result:?}");
    assert!(result.is_error, "{result:?}");
    let release = crate::support::cli_release::under_test();
    let reason = release
        .reports_resets_and_budgets()
        .then_some("budget_exhausted");
    assert_eq!(result.terminal_reason.as_deref(), reason, "{release}");
    // The budget is checked after each call: the call that passed it is paid for.
    assert_eq!(harness.mock.agent_requests().len(), 1);
    process.shutdown().await;
}
