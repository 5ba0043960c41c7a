//! The owner's commands on a full disk *(ours, issue 28)*: a command that changes stored state
//! answers with the failure — the file that was not saved and why — instead of "set" or
//! "paused", the file keeps its previous content, the bot keeps the old value, and once space
//! is back the same command works. `/clear`, which the CLI has done by then, says it will not
//! last a restart. On the set-up of `full_disk` (a tmpfs the test mounts as
//! the data directory and fills; without root the test fails, saying why).

use crate::bot::{Bot, Home};
use crate::full_disk::{cli, expect_each, fill, reminder_files, Tmpfs};
use crate::support::mock_model_api::{MockModelApi, Reply};

/// The id `ollim-bot routine add` printed (`scheduled <id>: …`).
fn scheduled_id(out: &std::process::Output) -> String {
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    said.strip_prefix("scheduled ")
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_else(|| panic!("no id in {said:?}"))
        .to_owned()
}

/// The one routine file's path and content.
fn routine_file(home: &Home) -> (std::path::PathBuf, String) {
    let mut files: Vec<_> = std::fs::read_dir(home.data.join("routines"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let path = files.remove(0);
    let text = std::fs::read_to_string(&path).unwrap();
    (path, text)
}

/// A refusal names the file, the system's reason, and that nothing changed.
fn names_the_failure(line: &str, file: &str) {
    assert!(
        line.contains(file) && line.contains("No space left on device"),
        "{line}"
    );
}

#[tokio::test]
async fn on_a_full_disk_config_pause_clear_and_reminder_add_answer_with_the_failure_and_keep_the_old_state(
) {
    let home = Home::new();
    // Dropped before `home`: unmounted before its directory is removed.
    let _disk = Tmpfs::mount(&home.data, "16m");
    let mock = MockModelApi::start(|_| Reply::Text("ok".into()))
        .await
        .unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("hello").await;
    bot.expect("ok").await;
    bot.say("/config bg_fork_limit 2").await;
    bot.expect("bg_fork_limit set to 2").await;
    let config_before = std::fs::read_to_string(home.state("config.json")).unwrap();
    let id = scheduled_id(&cli(
        &home,
        &[
            "routine",
            "add",
            "--cron",
            "0 9 * * *",
            "-m",
            "water the plants",
        ],
    ));
    let (routine_path, routine_before) = routine_file(&home);
    assert!(
        cli(&home, &["reminder", "add", "--delay", "30", "-m", "before"])
            .status
            .success()
    );
    let reminders_before = reminder_files(&home);
    let session_before = std::fs::read_to_string(home.state("sessions.json")).unwrap();

    let filler = fill(&home.data);
    bot.say("/config bg_fork_limit 5").await;
    let [_notice, refused] = <[String; 2]>::try_from(
        expect_each(&mut bot, &["the disk is full", "couldn't save"]).await,
    )
    .unwrap();
    names_the_failure(&refused, "config.json");
    assert!(refused.ends_with("nothing changed"), "{refused}");
    assert!(
        !bot.seen.iter().any(|l| l.contains("set to 5")),
        "{:#?}",
        bot.seen
    );
    bot.say("/config bg_fork_limit").await;
    bot.expect("bg_fork_limit: 2").await;

    bot.say(&format!("/pause {id}")).await;
    let refused = bot.expect(&format!("could not pause {id}")).await;
    names_the_failure(&refused, &routine_path.display().to_string());

    let added = cli(
        &home,
        &["reminder", "add", "--delay", "30", "-m", "while full"],
    );
    let said = String::from_utf8_lossy(&added.stderr);
    assert!(!added.status.success(), "{said}");
    names_the_failure(&said, "/reminders/");

    // `/clear` cannot be taken back from the CLI: it says the clearing will not last.
    bot.say("/clear").await;
    let warned = bot.expect("a restart would bring the old one back").await;
    names_the_failure(&warned, "sessions.json");
    bot.expect("conversation cleared").await;
    assert_eq!(
        std::fs::read_to_string(home.state("sessions.json")).unwrap(),
        session_before
    );

    assert_eq!(
        std::fs::read_to_string(home.state("config.json")).unwrap(),
        config_before
    );
    assert_eq!(
        std::fs::read_to_string(&routine_path).unwrap(),
        routine_before
    );
    assert_eq!(reminder_files(&home), reminders_before);

    std::fs::remove_file(&filler).unwrap();
    bot.say("/config bg_fork_limit 5").await;
    expect_each(&mut bot, &["disk space is back", "bg_fork_limit set to 5"]).await;
    bot.say(&format!("/pause {id}")).await;
    bot.expect("stays listed and never fires").await;
    assert!(std::fs::read_to_string(&routine_path)
        .unwrap()
        .contains("paused: true"));
    assert!(
        cli(&home, &["reminder", "add", "--delay", "30", "-m", "after"])
            .status
            .success()
    );
    assert_eq!(reminder_files(&home).len(), reminders_before.len() + 1);
    bot.finish().await;
}
