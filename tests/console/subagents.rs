//! Installed subagent specs follow the shipped text at start (SPEC §14): a data directory holding
//! the previous release's copies — history-reviewer and user-proxy calling `claude-history` — as
//! that release installed them. The bot brings the unedited copy up to date and leaves the one the
//! user edited alone, and the real CLI reads the new spec.

use serde_json::Value;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

/// The previous release's templates (before `ollim-bot history`).
const OLD_HISTORY_REVIEWER: &str =
    include_str!("../fixtures/agents-claude-history/history-reviewer.md");
const OLD_USER_PROXY: &str = include_str!("../fixtures/agents-claude-history/user-proxy.md");
/// What this release ships.
const NEW_HISTORY_REVIEWER: &str = include_str!("../../config/agents/history-reviewer.md");

/// The names the test bot runs with (`OLLIM_USER_NAME`, `OLLIM_BOT_NAME`).
fn named(template: &str) -> String {
    template
        .replace("{USER_NAME}", "Sam")
        .replace("{BOT_NAME}", "Ollie")
}

/// The fingerprint `state/agents.json` records for a text it installed: 64-bit FNV-1a. This is
/// the on-disk format earlier releases wrote; if it changed, every user's untouched copy would
/// count as edited and never update again.
fn fingerprint(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("fnv1a64:{hash:016x}")
}

/// The CLI's line for `agent` in its listing of agent types (a context message of the
/// conversation, one `- name: description (Tools: …)` line per agent), as the model received it.
/// 2.1.330 and later send the listing as a text block, 2.1.197 as a message whose content is
/// the bare string: both are read.
fn listed_agent(req: &crate::support::mock_model_api::ModelRequest, agent: &str) -> String {
    let texts: Vec<&str> = req
        .messages()
        .iter()
        .flat_map(|m| match &m["content"] {
            Value::String(text) => vec![text.as_str()],
            Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
            _ => Vec::new(),
        })
        .collect();
    let prefix = format!("- {agent}:");
    texts
        .iter()
        .flat_map(|t| t.lines())
        .find(|l| l.starts_with(&prefix))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("the CLI lists no {agent}: {texts:#?}"))
}

#[tokio::test]
async fn an_unedited_old_spec_is_updated_at_start_and_an_edited_one_is_kept() {
    let home = Home::new();
    let old_reviewer = named(OLD_HISTORY_REVIEWER);
    let old_proxy = named(OLD_USER_PROXY);
    let edited_proxy = format!("{old_proxy}\nAlways answer as Sam would on a Monday.\n");
    home.write(".claude/agents/history-reviewer.md", &old_reviewer);
    home.write(".claude/agents/user-proxy.md", &edited_proxy);
    // What the earlier release recorded when it installed both.
    let manifest = serde_json::json!({"installed": {
        "history-reviewer.md": fingerprint(&old_reviewer),
        "user-proxy.md": fingerprint(&old_proxy),
    }});
    home.write("state/agents.json", &manifest.to_string());

    let mock = MockModelApi::start(|_req| Reply::Text("hello Sam".into()))
        .await
        .unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("hi").await;
    bot.expect("hello Sam").await;
    bot.finish().await;

    let reviewer = std::fs::read_to_string(home.data.join(".claude/agents/history-reviewer.md"))
        .expect("history-reviewer.md");
    assert_eq!(reviewer, named(NEW_HISTORY_REVIEWER));
    assert!(!reviewer.contains("claude-history"), "{reviewer}");
    let proxy = std::fs::read_to_string(home.data.join(".claude/agents/user-proxy.md"))
        .expect("user-proxy.md");
    assert_eq!(proxy, edited_proxy, "the user's edit is kept");

    // The manifest now records the new text for the updated file, the old one for the kept.
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(home.state("agents.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["installed"]["history-reviewer.md"],
        fingerprint(&reviewer)
    );
    assert_eq!(
        manifest["installed"]["user-proxy.md"],
        fingerprint(&old_proxy)
    );

    // The real CLI read the installed specs: the model is offered history-reviewer with the new
    // tool and user-proxy as the user left it.
    let req = mock
        .agent_requests()
        .into_iter()
        .find(|r| r.latest_user_text().contains("hi"))
        .expect("the agent's request");
    let reviewer = listed_agent(&req, "history-reviewer");
    assert!(
        reviewer.ends_with("(Tools: Bash(ollim-bot history *))"),
        "{reviewer}"
    );
    let proxy = listed_agent(&req, "user-proxy");
    assert!(proxy.contains("Bash(claude-history *)"), "{proxy}");
}
