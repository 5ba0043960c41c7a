//! `/memory` on Discord (SPEC §18): the size and last change of `context.md` with an Undo
//! button; pressing it reverts that change (a new commit), and pressing it again — now that
//! the last change is the undo — changes nothing and says why.

use std::process::Command;

use serde_json::{json, Value};

use crate::bot::{Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

fn answers(fake: &FakeDiscord, click: u64) -> Option<String> {
    let texts: Vec<String> = fake
        .interaction_responses(click)
        .iter()
        .filter_map(|b| b.get("content").and_then(Value::as_str).map(str::to_owned))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_shows_the_last_change_and_its_undo_button_reverts_it_once() {
    let mock = MockModelApi::start(|_| Reply::Text("hi".into()))
        .await
        .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    home.write("context.md", "- first\n");
    let bot = Bot::start(&home, &mock, &fake).await;
    // Found at start: committed as a change of its own. Then one more, as the file hook
    // commits the agent's write.
    home.write("context.md", "- first\n- second\n");
    git(&home.data, &["add", "context.md"]);
    git(
        &home.data,
        &["commit", "-q", "-m", "auto: memory: write context.md"],
    );

    fake.slash(OWNER_ID, "memory", json!([])).await;
    let shown = fake
        .wait_for("the /memory answer", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.content.contains("context.md: 17 characters"))
        })
        .await;
    assert!(
        shown
            .content
            .contains("auto: memory: write context.md  (+1 -0)"),
        "{}",
        shown.content
    );
    let button = shown.components[0]["components"][0].clone();
    assert_eq!(button["label"], "Undo");
    let id = button["custom_id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("act:memory_undo:"), "{id}");

    let undo = fake.click_button(OWNER_ID, shown.id, &id).await;
    let said = fake
        .wait_for("the undo's answer", LIMIT, |f| answers(f, undo))
        .await;
    assert!(said.contains("context.md has 8 characters again"), "{said}");
    assert_eq!(
        std::fs::read_to_string(home.data.join("context.md")).unwrap(),
        "- first\n"
    );
    let again = fake.click_button(OWNER_ID, shown.id, &id).await;
    let said = fake
        .wait_for("the second press's answer", LIMIT, |f| answers(f, again))
        .await;
    assert!(
        said.contains("nothing undone: context.md has changed since"),
        "{said}"
    );
    let log = git(&home.data, &["log", "--format=%s", "--", "context.md"]);
    let log: Vec<&str> = log.lines().collect();
    assert_eq!(log.len(), 3, "{log:?}");
    assert!(log[0].starts_with("auto: memory: undo "), "{log:?}");
    assert_eq!(log[2], "auto: memory: as found at start");
    assert!(bot.stop().await);
}
