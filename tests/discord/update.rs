//! `/update` through the real binary: against a local bare repository as the remote, with the
//! build command replaced through `OLLIM_BUILD_COMMAND` (the variable a real install uses for a
//! different build), new commits are pulled, built, announced, recorded as `restarting` in the
//! session history, and the binary runs again; a failing step is reported and the bot keeps
//! running.

use serde_json::{json, Value};

use crate::bot::{greetings, said, Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::git_remote::Repos;
use crate::support::mock_model_api::{MockModelApi, Reply};

/// Starts a bot updating from `repos` with `build`, and has one conversation turn (so a
/// session id is saved).
async fn started(repos: &Repos, build: &str) -> (MockModelApi, FakeDiscord, Home, Bot) {
    let mock = MockModelApi::start(|_| Reply::Text("noted".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    let dir = repos.bot.display().to_string();
    let bot = Bot::spawn(
        &home,
        &mock,
        &fake,
        &[("OLLIM_PROJECT_DIR", &dir), ("OLLIM_BUILD_COMMAND", build)],
    );
    fake.wait_for("the greeting", LIMIT, |f| (greetings(f) == 1).then_some(()))
        .await;
    let asked = fake.send_dm(OWNER_ID, "remember the milk").await;
    said(&fake, "noted").await;
    // The 👀 comes off once the turn is over: only then is the conversation quiet.
    fake.wait_for("the turn over", LIMIT, |f| {
        f.requests()
            .iter()
            .any(|r| {
                r.method == "DELETE" && r.path.contains(&format!("/messages/{asked}/reactions"))
            })
            .then_some(())
    })
    .await;
    (mock, fake, home, bot)
}

fn answered(fake: &FakeDiscord, interaction: u64, needle: &str) -> Option<String> {
    fake.interaction_responses(interaction)
        .iter()
        .filter_map(|b| {
            b.get("content")
                .or_else(|| b.pointer("/data/content"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .find(|t| t.contains(needle))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_pulls_builds_announces_and_runs_the_new_binary() {
    let repos = Repos::new();
    repos.release(&["snooze buttons", "quieter console"], "v0.2.0");
    let (_mock, fake, home, bot) = started(&repos, "touch built-by-the-test").await;
    let pid = bot.pid();
    let asked = fake.slash(OWNER_ID, "update", json!([])).await;
    let text = fake
        .wait_for("the announcement", LIMIT, |f| {
            answered(f, asked, "updating and restarting...")
        })
        .await;
    assert_eq!(
        text,
        "updating and restarting...\n- quieter console\n- snooze buttons"
    );
    fake.wait_for("the greeting after the restart", LIMIT, |f| {
        (greetings(f) == 2).then_some(())
    })
    .await;
    assert!(fake
        .bot_messages(DM_CHANNEL_ID)
        .iter()
        .any(|m| m.content == "shutting down: update installed"));
    assert_eq!(bot.pid(), pid, "the same process, re-executed");
    assert_eq!(Repos::head(&repos.bot), Repos::head(&repos.dev), "pulled");
    assert!(repos.bot.join("built-by-the-test").exists(), "built");
    let history = std::fs::read_to_string(home.state("session_history.jsonl")).unwrap();
    let session = std::fs::read_to_string(home.state("sessions.json")).unwrap();
    let last: Value = serde_json::from_str(history.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "restarting", "{history}");
    assert_eq!(last["session_id"], session.trim());
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_build_is_reported_and_the_bot_keeps_running() {
    let repos = Repos::new();
    repos.release(&["breaks the build"], "v0.2.0");
    let (_mock, fake, _home, bot) = started(&repos, "echo 'error[E0425]: oops' >&2; exit 7").await;
    let asked = fake.slash(OWNER_ID, "update", json!([])).await;
    let text = fake
        .wait_for("the failure", LIMIT, |f| {
            answered(f, asked, "update failed")
        })
        .await;
    assert!(
        text.starts_with("update failed: `echo 'error[E0425]: oops' >&2; exit 7` returned 7")
            && text.contains("error[E0425]: oops"),
        "{text}"
    );
    fake.send_dm(OWNER_ID, "still there?").await;
    fake.wait_for("a second answer", LIMIT, |f| {
        (f.bot_messages(DM_CHANNEL_ID)
            .iter()
            .filter(|m| m.content == "noted")
            .count()
            >= 2)
            .then_some(())
    })
    .await;
    assert_eq!(fake.identify_count(), 1, "no restart");
    assert!(bot.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_new_is_already_up_to_date() {
    let repos = Repos::new();
    let (_mock, fake, _home, bot) = started(&repos, "exit 9").await;
    let asked = fake.slash(OWNER_ID, "update", json!([])).await;
    fake.wait_for("up to date", LIMIT, |f| {
        answered(f, asked, "already up to date.")
    })
    .await;
    assert_eq!(fake.identify_count(), 1, "no restart");
    assert!(bot.stop().await);
}
