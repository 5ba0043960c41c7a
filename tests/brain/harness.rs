//! The tier-2 harness: the real `claude` binary, a scripted mock model, a recording host, and a
//! fresh HOME and working directory per test.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ollim_actors::claude::brain::{
    BoxFuture, BrainEvent, ClaudeProcess, EventStream, Handlers, HookCall, HookEvent,
    HookRegistration, Host, InitializeInfo, PermissionDecision, PermissionMode, PermissionRequest,
    SpawnOptions, ToolCall, ToolHandler, ToolOutput, ToolSpec, TurnResult,
};
use parking_lot::Mutex;
use serde_json::{json, Value};
use tempfile::TempDir;

use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

/// Longest a single turn may take before the test fails.
pub const TURN_LIMIT: Duration = Duration::from_secs(90);

/// The tool the test host serves, as the model names it.
pub const ECHO_TOOL: &str = "mcp__discord__echo";

/// A host that records everything it is asked and answers as configured.
#[derive(Default)]
pub struct TestHost {
    /// When set, every permission prompt is denied with this message.
    pub deny_with: Option<String>,
    /// When set, every PreToolUse hook refuses the tool with this reason.
    pub pre_tool_deny: Option<String>,
    /// How many Stop hooks to block before answering `{}`.
    pub stop_blocks: AtomicU32,
    /// Permission prompts seen.
    pub prompts: Mutex<Vec<PermissionRequest>>,
    /// Hook calls seen.
    pub hooks: Mutex<Vec<HookCall>>,
    /// Tool calls seen.
    pub tool_calls: Mutex<Vec<ToolCall>>,
}

impl Host for TestHost {
    fn can_use_tool(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        Box::pin(async move {
            let input = request.input.clone();
            self.prompts.lock().push(request);
            match &self.deny_with {
                Some(message) => PermissionDecision::Deny {
                    message: message.clone(),
                },
                None => PermissionDecision::Allow {
                    updated_input: input,
                },
            }
        })
    }

    fn hook(&self, call: HookCall) -> BoxFuture<'_, Value> {
        Box::pin(async move {
            let event = call.event;
            self.hooks.lock().push(call);
            let blocks = &self.stop_blocks;
            let block = event == HookEvent::Stop
                && blocks
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok();
            if block {
                HookCall::block("Say STOP-ACK before finishing.")
            } else if let (HookEvent::PreToolUse, Some(reason)) = (event, &self.pre_tool_deny) {
                HookCall::deny_tool(reason.clone())
            } else {
                HookCall::no_opinion()
            }
        })
    }
}

impl ToolHandler for TestHost {
    fn tools(&self) -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "echo".into(),
            description: "Repeats the given text back.".into(),
            input_schema: json!({"type": "object", "properties": {"text": {"type": "string"}},
                "required": ["text"]}),
        }]
    }

    fn call(&self, call: ToolCall) -> BoxFuture<'_, ToolOutput> {
        Box::pin(async move {
            let text = call.arguments["text"].as_str().unwrap_or("").to_owned();
            self.tool_calls.lock().push(call);
            ToolOutput::ok(format!("echoed: {text}"))
        })
    }
}

/// One test's world: mock model, host, HOME and working directory.
pub struct Harness {
    /// The mock Messages API.
    pub mock: MockModelApi,
    /// The recording host.
    pub host: Arc<TestHost>,
    home: TempDir,
    cwd: TempDir,
}

impl Harness {
    /// A harness whose model answers with `script`.
    pub async fn new(script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static) -> Self {
        Self::with_host(TestHost::default(), script).await
    }

    /// A harness with a configured host.
    pub async fn with_host(
        host: TestHost,
        script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let mock = MockModelApi::start(script)
            .await
            .expect("binding 127.0.0.1:0");
        Self {
            mock,
            host: Arc::new(host),
            home: TempDir::new().expect("temp HOME"),
            cwd: TempDir::new().expect("temp cwd"),
        }
    }

    /// Options for a process pointed at the mock, with a Stop hook registered.
    pub fn options(&self) -> SpawnOptions {
        let mut options = SpawnOptions::new(crate::support::claude_cli::binary(), self.cwd.path());
        options.env = self.mock.cli_env(self.home.path());
        options.permission_mode = Some(PermissionMode::Default);
        options.hooks = vec![HookRegistration::on(HookEvent::Stop)];
        options.control_timeout = Duration::from_secs(30);
        options.label = "tier2".into();
        options
    }

    /// Handlers backed by the recording host.
    pub fn handlers(&self) -> Handlers {
        Handlers {
            host: self.host.clone(),
            tools: self.host.clone(),
        }
    }

    /// Starts and initializes a process.
    pub async fn start(
        &self,
        options: SpawnOptions,
    ) -> (ClaudeProcess, EventStream, InitializeInfo) {
        tokio::time::timeout(TURN_LIMIT, ClaudeProcess::start(&options, self.handlers()))
            .await
            .expect("claude start timed out")
            .unwrap_or_else(|err| panic!("claude failed to start: {err}"))
    }
}

/// Collects events until the turn's result.
pub async fn until_result(events: &mut EventStream) -> (Vec<BrainEvent>, TurnResult) {
    let mut seen = Vec::new();
    let collect = async {
        while let Some(event) = events.recv().await {
            match event {
                BrainEvent::Result(result) => return Some(result),
                BrainEvent::Exited(exit) => panic!("claude exited mid-turn: {exit:?}"),
                other => seen.push(other),
            }
        }
        None
    };
    let result = tokio::time::timeout(TURN_LIMIT, collect)
        .await
        .expect("turn did not finish in time")
        .expect("event stream ended without a result");
    (seen, result)
}

/// The streamed text of a turn's events.
pub fn streamed_text(events: &[BrainEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            BrainEvent::TextDelta(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The CLI said the turn took the line `uuid`, the way its release says it: 2.1.330 and later
/// name it in the result; 2.1.197 replays it as it takes it (`releases`' table).
pub fn turn_named_line(events: &[BrainEvent], result: &TurnResult, uuid: &str) -> bool {
    let release = crate::support::cli_release::under_test();
    if release.names_its_lines() {
        return result.user_message_uuids.iter().any(|u| u == uuid);
    }
    result.user_message_uuids.is_empty()
        && events.iter().any(|e| {
            matches!(e, BrainEvent::LinesTaken { uuids, .. } if uuids.iter().any(|u| u == uuid))
        })
}
