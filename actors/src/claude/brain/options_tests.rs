use super::*;

fn options() -> SpawnOptions {
    SpawnOptions::new("/bin/claude", "/data")
}

fn value_after<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    let at = args.iter().position(|a| a == flag)?;
    args.get(at + 1).map(String::as_str)
}

#[test]
fn always_speaks_stream_json_with_partial_messages_and_stdio_permissions() {
    let args = options().args();
    assert_eq!(value_after(&args, "--output-format"), Some("stream-json"));
    assert_eq!(value_after(&args, "--input-format"), Some("stream-json"));
    assert!(args.contains(&"--verbose".to_owned()));
    assert!(args.contains(&"--include-partial-messages".to_owned()));
    assert_eq!(
        value_after(&args, "--permission-prompt-tool"),
        Some("stdio")
    );
    let mcp: serde_json::Value =
        serde_json::from_str(value_after(&args, "--mcp-config").unwrap_or("null"))
            .unwrap_or_default();
    assert_eq!(
        mcp,
        serde_json::json!({"mcpServers":{"discord":{"type":"sdk","name":"discord"}}})
    );
}

#[test]
fn the_spend_limits_are_flags_only_when_set() {
    let args = options().args();
    assert!(!args.contains(&"--max-budget-usd".to_owned()));
    assert!(!args.contains(&"--max-turns".to_owned()));
    let mut o = options();
    o.max_budget_usd = Some(0.75);
    o.max_turns = Some(40);
    let args = o.args();
    assert_eq!(value_after(&args, "--max-budget-usd"), Some("0.7500"));
    assert_eq!(value_after(&args, "--max-turns"), Some("40"));
}

#[test]
fn an_http_mcp_server_joins_the_discord_server_in_the_mcp_config() {
    let mut opts = options();
    opts.http_mcp = vec![("docs".into(), "http://127.0.0.1:9/mcp".into())];
    let args = opts.args();
    let mcp: serde_json::Value =
        serde_json::from_str(value_after(&args, "--mcp-config").unwrap_or("null"))
            .unwrap_or_default();
    assert_eq!(
        mcp,
        serde_json::json!({"mcpServers":{
            "discord":{"type":"sdk","name":"discord"},
            "docs":{"type":"http","url":"http://127.0.0.1:9/mcp"}
        }})
    );
}

#[test]
fn resume_and_session_id_use_the_equals_form() {
    let mut opts = options();
    opts.session = SessionStart::Resume("-odd-id".into());
    assert!(opts.args().contains(&"--resume=-odd-id".to_owned()));
    assert!(!opts.args().contains(&"--fork-session".to_owned()));
    opts.session = SessionStart::Fork("abc".into());
    let args = opts.args();
    assert!(args.contains(&"--resume=abc".to_owned()));
    assert!(args.contains(&"--fork-session".to_owned()));
    opts.session = SessionStart::NewWithId("u-1".into());
    assert!(opts.args().contains(&"--session-id=u-1".to_owned()));
}

#[test]
fn tool_lists_are_one_comma_joined_value_and_absent_when_empty() {
    let mut opts = options();
    assert!(!opts.args().contains(&"--allowedTools".to_owned()));
    opts.allowed_tools = vec!["Read".into(), "Bash(ollim-bot help)".into()];
    opts.disallowed_tools = vec!["WebFetch".into()];
    let args = opts.args();
    assert_eq!(
        value_after(&args, "--allowedTools"),
        Some("Read,Bash(ollim-bot help)")
    );
    assert_eq!(value_after(&args, "--disallowedTools"), Some("WebFetch"));
    assert!(!args.contains(&"--tools".to_owned()));
}

#[test]
fn built_in_tools_are_named_or_emptied_with_tools() {
    let mut opts = options();
    opts.tools = Some(vec!["Bash".into(), "Read".into()]);
    assert_eq!(value_after(&opts.args(), "--tools"), Some("Bash,Read"));
    opts.tools = Some(Vec::new());
    assert_eq!(value_after(&opts.args(), "--tools"), Some(""));
}

#[test]
fn thinking_model_mode_prompt_and_sources_map_to_their_flags() {
    let mut opts = options();
    opts.thinking = Some(Thinking::Budget(8000));
    opts.model = Some("claude-sonnet-4-5".into());
    opts.permission_mode = Some(PermissionMode::DontAsk);
    opts.append_system_prompt = Some("be brief\nreally".into());
    opts.setting_sources = Some(vec!["user".into(), "project".into()]);
    let args = opts.args();
    assert_eq!(value_after(&args, "--max-thinking-tokens"), Some("8000"));
    assert_eq!(value_after(&args, "--model"), Some("claude-sonnet-4-5"));
    assert_eq!(value_after(&args, "--permission-mode"), Some("dontAsk"));
    assert_eq!(
        value_after(&args, "--append-system-prompt"),
        Some("be brief\nreally")
    );
    assert!(args.contains(&"--setting-sources=user,project".to_owned()));
    opts.thinking = Some(Thinking::Disabled);
    assert_eq!(value_after(&opts.args(), "--thinking"), Some("disabled"));
    opts.thinking = Some(Thinking::Adaptive);
    assert_eq!(value_after(&opts.args(), "--thinking"), Some("adaptive"));
}

#[test]
fn environment_names_us_and_lets_the_caller_override() {
    let mut opts = options();
    opts.env
        .insert("ANTHROPIC_BASE_URL".into(), "http://x".into());
    opts.env
        .insert("CLAUDE_CODE_ENTRYPOINT".into(), "custom".into());
    let env = opts.env_overrides();
    assert_eq!(env.get("PWD").map(String::as_str), Some("/data"));
    assert_eq!(
        env.get("CLAUDE_CODE_SDK_READS_SESSION_STATE")
            .map(String::as_str),
        Some("1")
    );
    assert_eq!(
        env.get("ANTHROPIC_BASE_URL").map(String::as_str),
        Some("http://x")
    );
    assert_eq!(
        env.get("CLAUDE_CODE_ENTRYPOINT").map(String::as_str),
        Some("custom")
    );
    assert_eq!(
        options()
            .env_overrides()
            .get("CLAUDE_CODE_ENTRYPOINT")
            .map(String::as_str),
        Some(ENTRYPOINT)
    );
}
