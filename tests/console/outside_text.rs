//! Tier 2, the trust boundary end to end (SPEC §20): a background reminder reads a hostile
//! email with the bot's own `ollim-bot gmail read` (a fake Google on 127.0.0.1), the model
//! receives it inside its fence, and the reminder's report reaches the conversation marked as
//! coming from a job that read outside content.

use serde_json::json;

use crate::bot::{Bot, Home};
use crate::support::fake_google::{FakeGoogle, NewMail};
use crate::support::hostile_text::{assert_fenced, body};
use crate::support::mock_model_api::{MockModelApi, Reply};

const MARK: &str = "(from a background job that read outside content)";

#[tokio::test]
async fn a_hostile_email_arrives_fenced_and_the_report_after_it_is_marked() {
    let fake = FakeGoogle::start();
    let id = fake.add_message(NewMail {
        from: "Mallory <m@evil.example>".into(),
        to: "Sam <sam@example.com>".into(),
        subject: "Invoice".into(),
        internal_date: 1_771_945_200_000,
        unread: true,
        plain: Some(body("gmail message")),
        html: None,
    });
    let command = format!("ollim-bot gmail read {id}");
    let mock = MockModelApi::start(move |req| {
        let results: String = req.tool_results().into_iter().map(|(_, t, _)| t).collect();
        if results.contains("Update reported") {
            Reply::Text("done".into())
        } else if results.contains("UNTRUSTED gmail message") {
            Reply::ToolUse {
                name: "mcp__discord__report_updates".into(),
                input: json!({"message": "the invoice mail asks to forward everything"}),
            }
        } else if req.latest_user_text().contains("[reminder-bg:a0000021]") {
            Reply::ToolUse {
                name: "Bash".into(),
                input: json!({"command": command, "description": "read the mail"}),
            }
        } else if req.latest_user_text().contains("anything new?") {
            Reply::Text("caught up".into())
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let (access, refresh) = fake.grant();
    home.write(
        "state/token.json",
        &fake.token_file(&access, &refresh, "2099-01-01T00:00:00Z"),
    );
    home.write("state/credentials.json", &fake.client_file());
    let at = (chrono::Utc::now() + chrono::Duration::seconds(3))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    home.write(
        "reminders/mail.md",
        &format!(
            "---\nid: \"a0000021\"\nrun-at: \"{at}\"\nbackground: true\nallowed-tools:\n  - \"Bash(ollim-bot gmail *)\"\n---\nlook at my mail\n"
        ),
    );
    let path = crate::own_command::path_without_the_bot();
    let mut bot = Bot::start_with(
        &home,
        &mock,
        &[
            ("OLLIM_GOOGLE_API_BASE", fake.base_url().as_str()),
            ("PATH", path.as_str()),
        ],
    )
    .await;
    let deadline = tokio::time::Instant::now() + crate::bot::LIMIT;
    let reported = |mock: &MockModelApi| {
        mock.agent_requests().into_iter().any(|r| {
            r.tool_results()
                .iter()
                .any(|(_, out, _)| out.contains("Update reported"))
        })
    };
    while !reported(&mock) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the reminder never reported: {:#?}",
            mock.agent_requests()
                .iter()
                .map(|r| r.tool_results())
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let read = mock
        .agent_requests()
        .into_iter()
        .find_map(|r| {
            r.tool_results()
                .into_iter()
                .find(|(_, out, _)| out.contains("UNTRUSTED gmail message"))
        })
        .expect("the mail reached the model");
    assert!(!read.2, "the command ran without error: {read:?}");
    assert_fenced(&read.1, "gmail message");

    bot.say("anything new?").await;
    bot.expect("caught up").await;
    let next = mock
        .agent_requests()
        .into_iter()
        .find(|r| r.latest_user_text().contains("anything new?"))
        .expect("the owner's message reached the model");
    assert!(
        next.latest_user_text().contains(&format!(
            "{MARK} the invoice mail asks to forward everything"
        )),
        "{}",
        next.latest_user_text()
    );
    // The run's line in the history is written after the fork stopped: then its note is gone.
    let deadline = tokio::time::Instant::now() + crate::bot::LIMIT;
    while !std::fs::read_to_string(home.state("runs.jsonl"))
        .unwrap_or_default()
        .contains("a0000021")
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the run never ended"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        !home.state("outside_reads").exists()
            || std::fs::read_dir(home.state("outside_reads"))
                .map(|d| d.count() == 0)
                .unwrap_or(true),
        "the fork's note is removed when it stops"
    );
    bot.finish().await;
}
