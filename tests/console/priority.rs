//! Background work yields the CPU to the conversation *(issue 15)*: while a background fork
//! runs, its `claude` process is at `nice` 19, and the conversation's own `claude` process
//! keeps the bot's priority. Read from `/proc` of the real
//! processes the console bot started.

use std::time::Duration;

use crate::bot::{children_named, Bot, Home, LIMIT};
use crate::support::home::background_reminder as reminder_in;
use crate::support::mock_model_api::{MockModelApi, Reply};

/// `(nice, scheduling policy)` of `pid`: fields 19 and 41 of `/proc/PID/stat`.
fn priority_of(pid: u32) -> (i64, u32) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the process is alive");
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // `fields` starts at field 3 (the state).
    (
        fields[19 - 3].parse().expect("nice is a number"),
        fields[41 - 3].parse().expect("policy is a number"),
    )
}

fn cmdline(pid: u32) -> String {
    String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default())
        .replace('\0', " ")
}

#[tokio::test]
async fn a_background_forks_cli_runs_at_nice_19_and_the_conversations_at_the_bots_priority() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("[reminder-bg:p0000001]") {
            // Keeps the fork's CLI alive while the test looks at it.
            Reply::SlowText {
                chunks: vec!["still ".into(), "working".into()],
                delay: Duration::from_secs(2),
            }
        } else {
            Reply::Text("hi there".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    std::fs::create_dir_all(home.data.join("reminders")).unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("hello").await;
    bot.expect("hi there").await;
    std::fs::write(
        home.data.join("reminders/slow.md"),
        reminder_in(2, "p0000001", "a slow background job"),
    )
    .unwrap();
    mock.first_agent_request(
        |r| r.latest_user_text().contains("[reminder-bg:p0000001]"),
        LIMIT,
    )
    .await
    .expect("the background job reached the model");

    let own_nice = rustix::process::getpriority_process(None)
        .map(i64::from)
        .unwrap_or(0);
    let clis = children_named(bot.pid(), "claude");
    let (forks, mains): (Vec<u32>, Vec<u32>) = clis
        .iter()
        .partition(|&&pid| cmdline(pid).contains("--fork-session"));
    assert_eq!(
        (forks.len(), mains.len()),
        (1, 1),
        "one fork and the main CLI: {clis:?}"
    );
    assert_eq!(
        priority_of(forks[0]),
        (19, 0),
        "the fork's CLI: nice 19, normal class"
    );
    assert_eq!(
        priority_of(mains[0]),
        (own_nice.min(19), 0),
        "the main CLI: as the bot, normal class"
    );
    bot.finish().await;
}
