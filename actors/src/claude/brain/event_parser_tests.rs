use super::*;
use crate::claude::brain::events::CompactBoundary;
use serde_json::json;

fn parse(frame: Value) -> Vec<BrainEvent> {
    EventParser::default().parse(frame)
}

fn delta(parent: Value) -> Value {
    json!({"type":"stream_event","parent_tool_use_id":parent,"event":{
        "type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}})
}

#[test]
fn top_level_text_delta_is_an_event_but_subagent_text_is_not() {
    assert_eq!(
        parse(delta(Value::Null)),
        vec![BrainEvent::TextDelta("hi".into())]
    );
    assert!(matches!(
        parse(delta(json!("toolu_9")))[..],
        [BrainEvent::Other(_)]
    ));
}

#[test]
fn thinking_block_starts_and_finishes_by_index() {
    let mut parser = EventParser::default();
    let start = json!({"type":"stream_event","event":{"type":"content_block_start","index":0,
        "content_block":{"type":"thinking","thinking":""}}});
    let stop =
        |i: u64| json!({"type":"stream_event","event":{"type":"content_block_stop","index":i}});
    assert_eq!(parser.parse(start), vec![BrainEvent::ThinkingStarted]);
    assert!(matches!(parser.parse(stop(1))[..], [BrainEvent::Other(_)]));
    assert_eq!(parser.parse(stop(0)), vec![BrainEvent::ThinkingFinished]);
}

#[test]
fn a_subagents_tool_call_names_the_call_that_started_it() {
    let events = parse(
        json!({"type":"assistant","parent_tool_use_id":"toolu_agent",
        "message":{"id":"m2","content":[{"type":"text","text":"looking"},
        {"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"a"}}]}}),
    );
    assert_eq!(
        events,
        vec![BrainEvent::SubagentToolUse {
            parent_tool_use_id: "toolu_agent".into(),
            name: "Read".into(),
        }],
        "no text and no tool call of the main agent"
    );
}

#[test]
fn assistant_frame_yields_tool_use_and_message() {
    let events = parse(
        json!({"type":"assistant","parent_tool_use_id":null,"message":{"id":"msg_1",
        "content":[{"type":"tool_use","id":"toolu_1","name":"Write","input":{"file_path":"a"}}]}}),
    );
    assert_eq!(
        events[0],
        BrainEvent::ToolUse {
            id: "toolu_1".into(),
            name: "Write".into(),
            input: json!({"file_path":"a"})
        }
    );
    assert_eq!(
        events[1],
        BrainEvent::AssistantMessage {
            message_id: Some("msg_1".into()),
            text: String::new(),
            api_error: None,
            context_tokens: None
        }
    );
}

#[test]
fn init_status_boundary_and_reset_are_typed() {
    let init = parse(
        json!({"type":"system","subtype":"init","session_id":"s1","model":"m",
        "tools":["Bash","mcp__discord__ping_user"],"future_field":1}),
    );
    assert_eq!(
        init,
        vec![BrainEvent::Init {
            session_id: "s1".into(),
            model: Some("m".into()),
            tools: vec!["Bash".into(), "mcp__discord__ping_user".into()]
        }]
    );
    assert_eq!(
        parse(json!({"type":"system","subtype":"status","status":"compacting"})),
        vec![BrainEvent::Compacting]
    );
    assert_eq!(
        parse(json!({"type":"system","subtype":"status","status":null,"compact_result":"success"})),
        vec![BrainEvent::CompactFinished {
            result: "success".into(),
            error: None
        }]
    );
    // As 2.1.197 refuses to compact a single exchange (and any release a summary call that
    // fails: `exhausted`).
    assert_eq!(
        parse(json!({"type":"system","subtype":"status","status":null,
            "compact_result":"failed","compact_error":"too_few_groups"})),
        vec![BrainEvent::CompactFinished {
            result: "failed".into(),
            error: Some("too_few_groups".into())
        }]
    );
    let boundary = parse(
        json!({"type":"system","subtype":"compact_boundary","compact_metadata":
        {"trigger":"auto","pre_tokens":150000,"post_tokens":2638,"duration_ms":86}}),
    );
    assert_eq!(
        boundary,
        vec![BrainEvent::CompactBoundary(CompactBoundary {
            trigger: "auto".into(),
            pre_tokens: Some(150000),
            post_tokens: Some(2638),
            duration_ms: Some(86)
        })]
    );
    assert_eq!(
        parse(json!({"type":"conversation_reset","new_conversation_id":"n","session_id":"o"})),
        vec![BrainEvent::ConversationReset {
            old_session_id: Some("o".into()),
            new_conversation_id: "n".into()
        }]
    );
}

#[test]
fn result_keeps_error_flag_reason_and_uuids() {
    let events = parse(
        json!({"type":"result","subtype":"error_during_execution","is_error":true,
        "num_turns":2,"result":null,"terminal_reason":"aborted_streaming","session_id":"s",
        "user_message_uuids":["u1"],"usage":{"input_tokens":10,"output_tokens":3},"total_cost_usd":0.5}),
    );
    let [BrainEvent::Result(result)] = &events[..] else {
        panic!("{events:?}")
    };
    assert!(result.is_error);
    assert_eq!(result.num_turns, 2);
    assert_eq!(result.terminal_reason.as_deref(), Some("aborted_streaming"));
    assert_eq!(result.user_message_uuids, vec!["u1".to_owned()]);
    assert_eq!(result.usage.input_tokens, 10);
    assert_eq!(result.total_cost_usd, Some(0.5));
}

#[test]
fn tool_result_frames_report_errors_and_unknown_frames_are_kept() {
    let events = parse(
        json!({"type":"user","parent_tool_use_id":null,"message":{"content":[
        {"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":"denied"}]}}),
    );
    assert_eq!(
        events,
        vec![BrainEvent::ToolResult {
            tool_use_id: "toolu_1".into(),
            is_error: true
        }]
    );
    let odd = json!({"type":"rate_limit_event","x":1});
    assert_eq!(parse(odd.clone()), vec![BrainEvent::Other(odd)]);
}

#[test]
fn api_failures_carry_the_cli_error_kind_status_and_retries() {
    // As CLI 2.1.330 reports a 429 from the API: retries, a synthetic message, the result.
    assert_eq!(
        parse(
            json!({"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,
            "retry_delay_ms":1214,"error_status":429,"error":"rate_limit","session_id":"s"})
        ),
        vec![BrainEvent::ApiRetry {
            attempt: 2,
            max_retries: 10,
            status: Some(429),
            error: Some("rate_limit".into())
        }]
    );
    let synthetic = parse(json!({"type":"assistant","parent_tool_use_id":null,
        "message":{"id":"m","model":"<synthetic>","content":[{"type":"text",
        "text":"Not logged in · Please run /login"}]},
        "error":"authentication_failed","is_api_error_message":true}));
    assert_eq!(
        synthetic,
        vec![BrainEvent::AssistantMessage {
            message_id: Some("m".into()),
            text: "Not logged in · Please run /login".into(),
            api_error: Some("authentication_failed".into()),
            context_tokens: None
        }]
    );
    // 2.1.197 sends the same message without `is_api_error_message`.
    let unflagged = parse(json!({"type":"assistant","parent_tool_use_id":null,
        "message":{"id":"m","model":"<synthetic>","content":[{"type":"text",
        "text":"Not logged in · Please run /login"}]},
        "error":"authentication_failed"}));
    assert_eq!(unflagged, synthetic);
    // A model's own message names no error kind even when it carries an `error` field.
    let real = parse(
        json!({"type":"assistant","message":{"id":"m","model":"claude-x",
        "content":[{"type":"text","text":"hi"}]},"error":"authentication_failed"}),
    );
    assert!(
        matches!(
            &real[..],
            [BrainEvent::AssistantMessage {
                api_error: None,
                ..
            }]
        ),
        "{real:?}"
    );
    let events = parse(json!({"type":"result","subtype":"success","is_error":true,
        "result":"Credit balance is too low","terminal_reason":"api_error",
        "api_error_status":402,"session_id":"s"}));
    let [BrainEvent::Result(result)] = &events[..] else {
        panic!("{events:?}")
    };
    assert_eq!(result.api_error_status, Some(402));
}

#[test]
fn lines_taken_are_read_from_status_frames_and_from_replays() {
    let mut p = EventParser::default();
    // 2.1.330 and later: the status frame that starts a model request names its lines.
    let status = serde_json::json!({"type": "system", "subtype": "status", "status": "requesting",
        "user_message_uuids": ["u1", "u2"], "session_id": "s"});
    assert_eq!(
        p.parse(status),
        vec![BrainEvent::LinesTaken {
            uuids: vec!["u1".into(), "u2".into()],
            text: None
        }]
    );
    // 2.1.197: a replayed line, here two of ours merged under a uuid of the CLI's own.
    let merged = serde_json::json!({"type": "user", "isReplay": true, "uuid": "r9",
        "message": {"role": "user", "content": "[t] alpha\n[t] bravo"}, "parent_tool_use_id": null});
    assert_eq!(
        p.parse(merged),
        vec![BrainEvent::LinesTaken {
            uuids: vec!["r9".into()],
            text: Some("[t] alpha\n[t] bravo".into())
        }]
    );
    // A status frame naming no line, and a user frame that is not a replay, take nothing.
    let plain = serde_json::json!({"type": "system", "subtype": "status", "status": "requesting"});
    assert!(matches!(p.parse(plain).as_slice(), [BrainEvent::Other(_)]));
}
