//! A quiet console: the log goes to `logs/ollim-bot.log` in the data directory; the terminal
//! shows the conversation and one short line per warning; `-v` brings the full log back.

use std::sync::Arc;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

/// A routine file the scheduler cannot parse: it logs a warning naming it.
const BROKEN_ROUTINE: &str = "---\nid: \"deadbeef\"\ncron: \"not a cron\"\n---\nhello\n";

fn log_file(home: &Home) -> String {
    std::fs::read_to_string(home.data.join("logs").join("ollim-bot.log")).unwrap_or_default()
}

#[tokio::test]
async fn the_terminal_gets_no_info_lines_and_one_short_line_per_warning() {
    let mock = MockModelApi::start(|_| Reply::Text("all quiet here".into()))
        .await
        .unwrap();
    let home = Home::new();
    home.write("routines/broken.md", BROKEN_ROUTINE);
    let mut bot = Bot::start(&home, &mock).await;
    let stderr = Arc::clone(&bot.stderr);
    bot.expect("i'm your assistant").await;
    bot.say("hello").await;
    bot.expect("all quiet here").await;
    let stdout = bot.finish().await;
    let terminal: Vec<String> = stdout.iter().chain(stderr.lock().iter()).cloned().collect();
    let info: Vec<&String> = terminal.iter().filter(|l| l.contains("INFO")).collect();
    assert!(info.is_empty(), "INFO lines on the terminal: {info:#?}");
    let notes: Vec<&String> = terminal
        .iter()
        .filter(|l| l.starts_with("warning: ") && l.contains("broken.md"))
        .collect();
    assert!(
        !notes.is_empty(),
        "a short line about the broken routine: {terminal:#?}"
    );
    assert!(notes.iter().all(|l| l.chars().count() <= 200), "{notes:#?}");
    let log = log_file(&home);
    assert!(
        log.contains("INFO") && log.contains("main session started"),
        "the full log is in the file: {log}"
    );
    assert!(log.contains("WARN") && log.contains("broken.md"), "{log}");
    // The CLI's version, as `claude --version` gives it (2.1.332's initialize answer lacks it).
    let version = std::process::Command::new(crate::support::claude_cli::binary())
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8_lossy(&version.stdout);
    let release = version.split_whitespace().next().unwrap();
    assert!(
        log.lines()
            .any(|l| l.contains("using the claude cli") && l.contains(release)),
        "the start log names the CLI's version {release}: {log}"
    );
    assert!(!log.contains("version=?"), "{log}");
}

#[tokio::test]
async fn verbose_puts_the_full_log_back_on_stderr() {
    let mock = MockModelApi::start(|_| Reply::Text("loud".into()))
        .await
        .unwrap();
    let home = Home::new();
    let mut bot = Bot::start_args(&home, &mock, &["-v"], &[]).await;
    let stderr = Arc::clone(&bot.stderr);
    bot.expect("i'm your assistant").await;
    bot.say("hello").await;
    bot.expect("loud").await;
    bot.finish().await;
    let lines = stderr.lock().clone();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("INFO") && l.contains("main session started")),
        "{lines:#?}"
    );
    assert!(log_file(&home).contains("main session started"));
}

#[tokio::test]
async fn ollim_log_file_moves_the_console_log() {
    let mock = MockModelApi::start(|_| Reply::Text("elsewhere".into()))
        .await
        .unwrap();
    let home = Home::new();
    let path = home.home.join("custom").join("bot.log");
    let path_text = path.display().to_string();
    let mut bot = Bot::start_with(&home, &mock, &[("OLLIM_LOG_FILE", &path_text)]).await;
    bot.expect("i'm your assistant").await;
    bot.finish().await;
    let log = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(log.contains("main session started"), "{log}");
    assert!(log_file(&home).is_empty(), "nothing in the default file");
}
