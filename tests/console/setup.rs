//! `/setup` on the console (SPEC §17), the real CLI against the mock: the greeting points at
//! it; it sends the setup prompt with what the bot sees of the set-up; the agent saves the
//! names with `update_names` and creates the morning routine with `ollim-bot routine add`.

use serde_json::json;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

const ROUTINE_ADD: &str = "ollim-bot routine add --cron \"0 9 * * 1-5\" -d \"Morning check-in\" -m \"Look at today's schedule and priorities with Alex\"";

#[tokio::test]
async fn setup_runs_the_walkthrough_names_and_morning_routine() {
    let mock = MockModelApi::start(|req| {
        if let Some((_, output, _)) = req.tool_results().first() {
            return Reply::Text(format!("tool said: {}", output.replace('\n', " | ")));
        }
        let latest = req.latest_user_text();
        if latest.contains("[setup]") {
            Reply::Text("quick path or full walkthrough?".into())
        } else if latest.contains("call me Alex") {
            Reply::ToolUse {
                name: "mcp__discord__update_names".into(),
                input: json!({"user_name": "Alex", "bot_name": "Pip"}),
            }
        } else if latest.contains("yes, the morning check-in") {
            Reply::ToolUse {
                name: "Bash".into(),
                input: json!({"command": ROUTINE_ADD, "description": "create the routine"}),
            }
        } else {
            Reply::Text("ok".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let cwd = home.home.join("checkout");
    std::fs::create_dir_all(&cwd).unwrap();
    let mut bot = Bot::start_in(&home, &mock, &cwd).await;
    bot.expect("i'm your assistant").await;
    bot.expect("type /setup").await;
    bot.say("/setup").await;
    bot.expect("quick path or full walkthrough?").await;
    let prompt = mock
        .agent_requests()
        .into_iter()
        .find(|r| r.latest_user_text().contains("[setup]"))
        .expect("the setup prompt")
        .latest_user_text();
    for fact in [
        "Sam asked to set Ollie up",
        "- IDENTITY.md: ",
        "- USER.md: not written yet",
        "- Google: not set up",
    ] {
        assert!(prompt.contains(fact), "{fact:?} in {prompt}");
    }

    bot.say("quick. call me Alex, and you are Pip").await;
    let said = bot.expect("tool said").await;
    assert!(said.contains("after /restart"), "{said}");
    bot.say("yes, the morning check-in at 9 sounds good").await;
    let said = bot.expect("tool said").await;
    assert!(!said.contains("denied"), "{said}");
    bot.finish().await;

    let env = std::fs::read_to_string(cwd.join(".env")).unwrap();
    assert!(env.contains("OLLIM_USER_NAME=Alex"), "{env}");
    let routines: Vec<String> = std::fs::read_dir(home.data.join("routines"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert_eq!(routines.len(), 1, "{routines:?}");
    assert!(
        routines[0].contains("cron: \"0 9 * * 1-5\""),
        "{}",
        routines[0]
    );
    assert!(routines[0].contains("Morning check-in"), "{}", routines[0]);
}

#[tokio::test]
async fn the_bundled_skills_are_installed_and_the_agent_sees_them() {
    let mock = MockModelApi::start(|_| Reply::Text("ok".into()))
        .await
        .unwrap();
    let home = Home::new();
    let edited = home.data.join("skills/improve-routine/SKILL.md");
    std::fs::create_dir_all(edited.parent().unwrap()).unwrap();
    let mine = "---\ndescription: \"my own way of fixing routines\"\n---\nask me first\n";
    std::fs::write(&edited, mine).unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("hello").await;
    bot.expect("ok").await;
    bot.finish().await;
    let job_config = std::fs::read_to_string(home.data.join("skills/job-config/SKILL.md")).unwrap();
    assert!(job_config.contains("name: \"job-config\""), "{job_config}");
    assert_eq!(
        std::fs::read_to_string(&edited).unwrap(),
        mine,
        "the owner's own file is kept"
    );
    let system = mock.agent_requests()[0].system_text();
    assert!(system.contains("job-config"), "{system}");
    assert!(system.contains("my own way of fixing routines"), "{system}");
}
