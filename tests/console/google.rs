//! Google on the console, with a fake Google on 127.0.0.1: the Google buttons, (tier 2) a
//! background routine allowed `Bash(ollim-bot tasks *)` whose `ollim-bot tasks list` output
//! reaches the model, what the agent is told about calendars and task lists, and
//! `google_task_list` choosing the list a bare task button acts on. Signing in and losing the
//! grant are in `google_auth.rs`, which starts its bot the same way (`bot_with_google`).

use serde_json::json;

use crate::bot::{Bot, Home};
use crate::support::fake_google::FakeGoogle;
use crate::support::mock_model_api::{MockModelApi, Reply};

pub(crate) async fn bot_with_google(home: &Home, mock: &MockModelApi, fake: &FakeGoogle) -> Bot {
    home.write("state/credentials.json", &fake.client_file());
    Bot::start_with(
        home,
        mock,
        &[("OLLIM_GOOGLE_API_BASE", fake.base_url().as_str())],
    )
    .await
}

pub(crate) fn hi() -> impl Fn(&crate::support::mock_model_api::ModelRequest) -> Reply + Send + Sync
{
    |_| Reply::Text("hi".into())
}

#[tokio::test]
async fn google_buttons_call_the_apis_and_queue_updates() {
    let fake = FakeGoogle::start();
    let milk = fake.add_task("Buy milk", None, false);
    let junk = fake.add_task("Old errand", None, false);
    let event = fake.add_event(json!({
        "summary": "Dentist",
        "start": {"dateTime": "2026-07-01T13:00:00Z"},
        "end": {"dateTime": "2026-07-01T14:00:00Z"},
    }));
    let buttons = json!([
        {"label": "Done", "action": format!("task_done:{milk}")},
        {"label": "Drop", "action": format!("task_del:{junk}")},
        {"label": "Cancel", "action": format!("event_del:{event}")},
        {"label": "Gone", "action": "task_done:no-such-task"},
    ]);
    let mock = MockModelApi::start(move |req| {
        if !req.tool_results().is_empty() {
            Reply::Text("there you go".into())
        } else if req.latest_user_text().contains("my day") {
            Reply::ToolUse {
                name: "mcp__discord__discord_embed".into(),
                input: json!({"title": "Today", "description": "3 things", "buttons": buttons}),
            }
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
    let mut bot = bot_with_google(&home, &mock, &fake).await;
    bot.say("show me my day").await;
    bot.expect("press a button with /button N").await;
    bot.expect("there you go").await;
    bot.say("/button 1").await;
    bot.expect("done ✓").await;
    bot.say("/button 4").await;
    bot.expect("failed: google has no such item").await;
    // A delete asks first (SPEC §20): the question's buttons are the last embed's now.
    bot.say("/button 2").await;
    bot.expect("Delete 'Old errand'?").await;
    bot.expect("press a button with /button N").await;
    assert_eq!(fake.tasks().len(), 2, "nothing deleted before Delete");
    bot.say("/button 1").await;
    bot.expect("deleted 'Old errand'.").await;
    bot.say("show me my day").await;
    bot.expect("there you go").await;
    bot.say("/button 3").await;
    bot.expect("Delete 'Dentist' (Wed 13:00)?").await;
    bot.expect("press a button with /button N").await;
    bot.say("/button 1").await;
    bot.expect("deleted 'Dentist' (Wed 13:00).").await;
    bot.say("/updates").await;
    bot.expect("User deleted calendar event \"Dentist\"").await;
    bot.finish().await;
    // The earlier updates reached the conversation with its second turn.
    for update in [
        "User completed task \"Buy milk\"",
        "User deleted task \"Old errand\"",
    ] {
        assert!(
            mock.agent_requests().iter().any(|r| r.mentions(update)),
            "{update}"
        );
    }
    let tasks = fake.tasks();
    assert_eq!(tasks.len(), 1, "{tasks:#?}");
    assert_eq!(tasks[0]["status"], "completed");
    assert!(fake.events().is_empty());
}

#[tokio::test]
async fn a_background_routine_lists_tasks_with_the_bots_own_command() {
    let fake = FakeGoogle::start();
    let milk = fake.add_task("Buy milk", Some("2026-02-24"), false);
    let mock = MockModelApi::start(|req| {
        if let Some((_, output, _)) = req.tool_results().first() {
            Reply::Text(format!("the list said: {output}"))
        } else if req.latest_user_text().contains("[reminder-bg:a0000011]") {
            Reply::ToolUse {
                name: "Bash".into(),
                input: json!({"command": "ollim-bot tasks list", "description": "list the tasks"}),
            }
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
    let at = (chrono::Utc::now() + chrono::Duration::seconds(3))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    home.write(
        "reminders/tasks.md",
        &format!(
            "---\nid: \"a0000011\"\nrun-at: \"{at}\"\nbackground: true\nallowed-tools:\n  - \"Bash(ollim-bot tasks *)\"\n---\nlook at my tasks\n"
        ),
    );
    home.write("state/credentials.json", &fake.client_file());
    let path = crate::own_command::path_without_the_bot();
    let bot = Bot::start_with(
        &home,
        &mock,
        &[
            ("OLLIM_GOOGLE_API_BASE", fake.base_url().as_str()),
            ("PATH", path.as_str()),
        ],
    )
    .await;
    let expected = format!("  {milk}  2026-02-24    [ ]  Buy milk");
    let deadline = tokio::time::Instant::now() + crate::bot::LIMIT;
    let result = loop {
        let found = mock.agent_requests().into_iter().find_map(|r| {
            r.tool_results()
                .into_iter()
                .find(|(_, out, _)| out.contains("Buy milk") || out.contains("ollim-bot"))
        });
        if let Some(found) = found {
            break found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no tool result reached the model"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    assert!(!result.2, "the command ran without error: {result:?}");
    assert!(
        result.1.contains(&expected),
        "the listing reached the model: {result:?}"
    );
    assert_eq!(
        fake.requests_to("/tasks/v1/").len(),
        1,
        "the fake was asked once"
    );
    bot.finish().await;
}

#[tokio::test]
async fn the_agent_is_told_about_calendars_task_lists_and_the_buttons_that_name_them() {
    let mock = MockModelApi::start(hi()).await.unwrap();
    let fake = FakeGoogle::start();
    let home = Home::new();
    let mut bot = bot_with_google(&home, &mock, &fake).await;
    bot.say("hello").await;
    bot.expect("hi").await;
    bot.finish().await;
    let request = mock.agent_requests().last().cloned().expect("a model call");
    let system = request.system_text();
    for needle in [
        "ollim-bot cal calendars",
        "--calendar <id>",
        "(calendar '<id>' not found — skipped)",
        "ollim-bot tasks show <id>",
        "`[+]` after a title",
        "--list <id>",
    ] {
        assert!(system.contains(needle), "{needle} missing from the prompt");
    }
    let embed = request.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["name"] == "mcp__discord__discord_embed")
        .expect("the embed tool is offered")
        .to_string();
    // The button forms are said once, in the tool's description, not again in the prompt.
    for form in [
        "event_del:<calendar_id>/<event_id>",
        "task_done:<list_id>/<task_id>",
        "task_del:<list_id>/<task_id>",
    ] {
        assert!(
            embed.contains(form),
            "the button action's description names {form}: {embed}"
        );
        assert!(!system.contains(form), "{form} repeated in the prompt");
    }
}

#[tokio::test]
async fn config_chooses_the_task_list_a_bare_task_button_acts_on() {
    let fake = FakeGoogle::start();
    let milk = fake.add_task_to("errands", "Buy milk", None);
    let review = fake.add_event_to(
        "work@example.com",
        json!({"summary": "Review",
               "start": {"dateTime": "2026-07-01T13:00:00Z"},
               "end": {"dateTime": "2026-07-01T14:00:00Z"}}),
    );
    let buttons = json!([
        {"label": "Done", "action": format!("task_done:{milk}")},
        {"label": "Cancel", "action": format!("event_del:work@example.com/{review}")},
    ]);
    let mock = MockModelApi::start(move |req| {
        if !req.tool_results().is_empty() {
            Reply::Text("there you go".into())
        } else if req.latest_user_text().contains("my day") {
            Reply::ToolUse {
                name: "mcp__discord__discord_embed".into(),
                input: json!({"title": "Today", "buttons": buttons}),
            }
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
    let mut bot = bot_with_google(&home, &mock, &fake).await;
    bot.say("/config google_task_list two words").await;
    bot.expect("google_task_list: \"two words\" is not allowed")
        .await;
    bot.say("/config google_task_list errands").await;
    bot.expect("google_task_list set to errands").await;
    bot.say("show me my day").await;
    bot.expect("there you go").await;
    bot.say("/button 1").await;
    bot.expect("done ✓").await;
    bot.say("/button 2").await;
    bot.expect("Delete 'Review' (Wed 13:00)?").await;
    bot.expect("press a button with /button N").await;
    bot.say("/button 1").await;
    bot.expect("deleted 'Review' (Wed 13:00).").await;
    bot.finish().await;
    assert_eq!(fake.tasks_in("errands")[0]["status"], "completed");
    assert!(fake.events_in("work@example.com").is_empty());
}
