use super::*;

const GOOD: &str = r#"{"type":"queue-operation","operation":"enqueue","content":"hi"}
{"parentUuid":null,"type":"user","message":{"role":"user","content":"call the dentist"},"uuid":"u1","timestamp":"2026-03-02T14:00:00.000Z","sessionId":"s"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"On it."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ollim-bot reminder list"}}]},"uuid":"a1","timestamp":"2026-03-02T14:00:05.000Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"no pending reminders"}]}]},"uuid":"r1","timestamp":"2026-03-02T14:00:06.000Z"}
{"type":"user","isMeta":true,"message":{"role":"user","content":"meta"},"uuid":"m1"}
"#;

#[test]
fn prompts_answers_calls_and_results_in_order() {
    let t = Transcript::parse(GOOD);
    assert_eq!(t.skipped_lines, 0);
    let kinds: Vec<(Kind, &str)> = t
        .entries
        .iter()
        .map(|e| (e.kind, e.text.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (Kind::Prompt, "call the dentist"),
            (Kind::Answer, "On it."),
            (Kind::ToolCall, "Bash(ollim-bot reminder list)"),
            (Kind::ToolResult, "no pending reminders"),
        ]
    );
    let (first, last) = t.span().unwrap();
    assert_eq!((last - first).num_seconds(), 6);
}

#[test]
fn the_clis_records_of_its_own_commands_are_not_prompts() {
    let text = r#"{"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>"},"uuid":"c1","timestamp":"2026-03-02T15:00:00.000Z"}
{"type":"user","message":{"role":"user","content":"<local-command-stdout></local-command-stdout>"},"uuid":"c2","timestamp":"2026-03-02T15:00:00.100Z"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<local-command-stdout>Set model to haiku</local-command-stdout>"}]},"uuid":"c3"}
{"type":"user","message":{"role":"user","content":"what is <command-name> in the transcript?"},"uuid":"u2","timestamp":"2026-03-02T15:01:00.000Z"}
"#;
    let t = Transcript::parse(&format!("{GOOD}{text}"));
    assert_eq!(t.skipped_lines, 0);
    let prompts: Vec<&str> = t.prompts().map(|e| e.text.as_str()).collect();
    assert_eq!(
        prompts,
        [
            "call the dentist",
            "what is <command-name> in the transcript?"
        ]
    );
}

#[test]
fn damaged_lines_are_skipped_and_counted() {
    let damaged = format!(
        "{GOOD}{{\"type\":\"user\",\"message\":{{\"content\":\"cut off\n\u{0}\u{1}garbage\n{}\n{{\"type\":\"user\",\"message\":{{\"content\":42}},\"uuid\":\"x\"}}\n",
        "[1,2,3]"
    );
    let t = Transcript::parse(&damaged);
    assert_eq!(t.prompts().count(), 1);
    assert_eq!(t.skipped_lines, 3);
}

#[test]
fn notices_tool_record_text_and_reminders_are_not_prompts() {
    let text = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]},"uuid":"i1","timestamp":"2026-03-02T14:01:00.000Z"}
{"type":"user","message":{"role":"user","content":"<task-notification>\n<task-id>b7</task-id>\n<status>completed</status>\n<summary>done</summary>\n</task-notification>"},"uuid":"n1","timestamp":"2026-03-02T14:02:00.000Z"}
{"type":"user","sourceToolAssistantUUID":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"ok"},{"type":"text","text":"Base directory for this skill: /x"}]},"uuid":"s1","timestamp":"2026-03-02T14:03:00.000Z"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>\nThe date is Friday.\n</system-reminder>"},{"type":"text","text":"water the plants"}]},"uuid":"u2","timestamp":"2026-03-02T14:04:00.000Z"}
"#;
    let t = Transcript::parse(&format!("{GOOD}{text}"));
    assert_eq!(t.skipped_lines, 0);
    let prompts: Vec<&str> = t.prompts().map(|e| e.text.as_str()).collect();
    assert_eq!(prompts, ["call the dentist", "water the plants"]);
    let results = t.entries.iter().filter(|e| e.kind == Kind::ToolResult);
    assert_eq!(results.count(), 5, "{:#?}", t.entries);
}

#[test]
fn discord_calls_are_part_of_the_answer() {
    let text = r#"{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"mcp__discord__ping_user","input":{"message":"hello exhausted"}}]},"uuid":"a2","timestamp":"2026-03-02T14:05:00.000Z"}
"#;
    let t = Transcript::parse(&format!("{GOOD}{text}"));
    let sent = t.entries.last().unwrap();
    assert_eq!(sent.kind, Kind::Sent);
    assert!(sent.kind.is_answer());
    assert_eq!(sent.text, "[mcp__discord__ping_user] hello exhausted");
}

#[test]
fn a_raw_line_separator_stays_inside_its_record() {
    let text = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"one\u{2028}two\"},\"uuid\":\"l1\"}\n";
    let t = Transcript::parse(text);
    assert_eq!(t.skipped_lines, 0);
    assert_eq!(t.prompts().next().unwrap().text, "one\u{2028}two");
}
