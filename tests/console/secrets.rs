//! Secrets out of the agent's reach (SPEC §20), through the real CLI: the environment of the
//! conversation's and a background fork's `claude` (read from `/proc/<pid>/environ` while each
//! waits for the model) holds none of the bot's secrets, and the agent's reads of `.env` and
//! `state/token.json` — with Read or with Bash — come back refused, while `env` shows nothing
//! secret. The bot runs with `sandbox: off`, so the Bash refusals are the coarse rule that
//! stands in for the OS sandbox (`no_sandbox`); `sandbox.rs` has the kernel's. Nothing escapes
//! a sandbox that is not there, so our own command may be piped.

use parking_lot::Mutex;
use serde_json::json;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::bot::{children_named, Bot, Home, LIMIT};
use crate::support::home::background_reminder;
use crate::support::mock_model_api::{MockModelApi, Reply};

/// The secret values, each a variable the bot's `.env` sets.
const SECRETS: [(&str, &str); 6] = [
    ("DISCORD_TOKEN", "dtok-secret-7q1"),
    ("WEBHOOK_SECRET", "whsec-secret-7q2"),
    ("GITHUB_HOOK_SECRET", "hook-secret-7q3"),
    ("CLAUDE_HOOK_SECRET", "hook-secret-7q5"),
    ("MY_UNRELATED_NOTE", "note-secret-7q4"),
    // Named by a webhook spec's `secret-env`, under a prefix the CLI's own settings use.
    ("CLAUDE_STRIPE_SIGNING", "whsec-secret-7q6"),
];

/// What the Google grant file holds.
const TOKEN_IN_FILE: &str = "ya29-secret-in-file";

/// The environments of the bot's `claude` children, as `KEY=value` lines.
fn claude_environments(bot: u32) -> Vec<String> {
    children_named(bot, "--input-format")
        .into_iter()
        .filter_map(|pid| std::fs::read(format!("/proc/{pid}/environ")).ok())
        .map(|raw| String::from_utf8_lossy(&raw).replace('\0', "\n"))
        .collect()
}

fn leaks(text: &str) -> Vec<&'static str> {
    SECRETS
        .iter()
        .map(|(_, v)| *v)
        .chain([TOKEN_IN_FILE])
        .filter(|v| text.contains(v))
        .collect()
}

#[tokio::test]
async fn the_agent_sees_no_secret_in_its_environment_nor_through_its_tools() {
    let home = Home::new();
    let env_file: String = SECRETS.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
    home.write(".env", &env_file);
    home.write(
        "state/token.json",
        &json!({"token": TOKEN_IN_FILE, "refresh_token": TOKEN_IN_FILE}).to_string(),
    );
    home.write(
        "state/config.json",
        r#"{"permission_mode": "bypassPermissions", "sandbox": "off"}"#,
    );
    home.write(
        "tool-policy.yaml",
        "main_session:\n  additional_allowed: [\"Bash(env)\"]\nbg_forks:\n  additional_allowed: [\"Bash(env)\"]\n",
    );
    home.write(
        "webhooks/stripe.md",
        "---\nid: stripe\nauth: standard\nsecret-env: CLAUDE_STRIPE_SIGNING\n---\nA payment: {event}\n",
    );
    home.write(
        "reminders/peek.md",
        &background_reminder(3, "b0000009", "look around"),
    );
    let bot_pid = Arc::new(AtomicU32::new(0));
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let data = home.data.clone();
    let (pid, envs) = (Arc::clone(&bot_pid), Arc::clone(&seen));
    let mock = MockModelApi::start(move |req| {
        envs.lock()
            .extend(claude_environments(pid.load(Ordering::SeqCst)));
        let text = req.latest_user_text();
        let tool = |name: &str, input: serde_json::Value| Reply::ToolUse {
            name: name.into(),
            input,
        };
        let file = |rel: &str| json!({"file_path": data.join(rel)});
        if !req.tool_results().is_empty() {
            Reply::Text("checked".into())
        } else if text.contains("[reminder-bg:b0000009]") {
            tool("Bash", json!({"command": "env", "description": "show env"}))
        } else if text.contains("read dotenv") {
            tool("Read", file(".env"))
        } else if text.contains("cat dotenv") {
            tool("Bash", json!({"command": "cat .env", "description": "show"}))
        } else if text.contains("read token") {
            tool("Read", file("state/token.json"))
        } else if text.contains("cat token") {
            tool(
                "Bash",
                json!({"command": "cat state/token.json /proc/$PPID/environ", "description": "show"}),
            )
        } else if text.contains("pipe ours") {
            tool(
                "Bash",
                json!({"command": "ollim-bot reminder list | head -3", "description": "list"}),
            )
        } else if text.contains("print env") {
            tool("Bash", json!({"command": "env", "description": "show env"}))
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    // The bot runs where its .env is, as `make run` does.
    let mut bot = Bot::start_in_with(&home, &mock, &home.data, &[("IS_SANDBOX", "1")]).await;
    bot_pid.store(bot.pid(), Ordering::SeqCst);
    for line in [
        "read dotenv",
        "cat dotenv",
        "read token",
        "cat token",
        "pipe ours",
        "print env",
    ] {
        bot.say(line).await;
        bot.expect("checked").await;
    }
    // The background fork ran `env` (its environment was read when it first asked).
    let background_env = mock
        .first_agent_request(
            |r| {
                r.tool_results()
                    .iter()
                    .any(|(_, text, _)| text.contains("OLLIM_AGENT_SESSION=background"))
            },
            LIMIT,
        )
        .await;
    assert!(background_env.is_some(), "the background fork ran env");
    bot.finish().await;

    let environments = seen.lock().clone();
    for kind in ["conversation", "background"] {
        let marker = format!("OLLIM_AGENT_SESSION={kind}");
        assert!(
            environments.iter().any(|e| e.contains(&marker)),
            "a {kind} process was read"
        );
    }
    for env in &environments {
        assert_eq!(leaks(env), Vec::<&str>::new(), "{env}");
        assert!(
            env.contains("ANTHROPIC_API_KEY=sk-test"),
            "the CLI's own key stays: {env}"
        );
        assert!(env.contains("PATH="), "{env}");
    }

    let results: Vec<(String, bool)> = mock
        .agent_requests()
        .iter()
        .flat_map(|r| r.tool_results())
        .map(|(_, text, is_error)| (text, is_error))
        .collect();
    let refusals = results
        .iter()
        .filter(|(text, _)| text.contains("holds the bot's secrets"))
        .count();
    assert!(refusals >= 4, "four reads refused: {results:#?}");
    assert!(
        results
            .iter()
            .filter(|(text, _)| text.contains("OLLIM_AGENT_SESSION="))
            .count()
            >= 2,
        "env ran in the conversation and the background fork: {results:#?}"
    );
    for (text, _) in &results {
        assert_eq!(leaks(text), Vec::<&str>::new(), "{text}");
        assert!(!text.contains("run outside the sandbox"), "{text}");
    }
    assert!(
        results.iter().any(|(text, error)| !error
            && (text.contains("no pending reminders") || text.contains("b0000009"))),
        "the piped listing ran: {results:#?}"
    );
}
