//! One bot per data directory: simultaneous starts leave exactly one running, and a pid file
//! that names some other process never keeps the bot from starting.

use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

use crate::bot::{Bot, Home, LIMIT};
use crate::support::mock_model_api::{MockModelApi, Reply};

fn console(home: &Home, mock: &MockModelApi) -> Child {
    Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("console")
        .envs(mock.cli_env(&home.home))
        .env("OLLIM_CLAUDE_BIN", crate::support::claude_cli::binary())
        .env("OLLIM_DATA_DIR", &home.data)
        .env("OLLIM_TIMEZONE", "America/New_York")
        .env("RUST_LOG", "warn")
        .env("DASHBOARD_PORT", "off")
        .env_remove("DISCORD_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start ollim-bot console")
}

/// How one start ended up.
enum Outcome {
    /// It runs: it answered `/ping-budget`. Holds the process, still running.
    Running(Child),
    /// It exited, with its code and what it said on stderr.
    Exited(Option<i32>, String),
}

/// Asks a started bot for its budget and waits until it either answers (it runs) or its
/// output ends (it stopped).
async fn outcome(mut child: Child) -> Outcome {
    let stdin = child.stdin.as_mut().expect("stdin");
    // A bot that already left cannot read this; that is fine.
    let _ = stdin.write_all(b"/ping-budget\n").await;
    let _ = stdin.flush().await;
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let answered = tokio::time::timeout(LIMIT, async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("budget:") {
                return true;
            }
        }
        false
    })
    .await
    .expect("each start either answers or stops");
    if answered {
        return Outcome::Running(child);
    }
    let mut stderr = String::new();
    let mut pipe = child.stderr.take().expect("stderr");
    let _ = pipe.read_to_string(&mut stderr).await;
    let status = tokio::time::timeout(LIMIT, child.wait())
        .await
        .expect("a stopped start exits")
        .expect("wait");
    Outcome::Exited(status.code(), stderr)
}

#[tokio::test]
async fn six_simultaneous_starts_leave_exactly_one_bot_running() {
    let mock = MockModelApi::start(|_| Reply::Text("hello".into()))
        .await
        .unwrap();
    let home = Home::new();
    let children: Vec<Child> = (0..6).map(|_| console(&home, &mock)).collect();
    let outcomes = futures_util::future::join_all(children.into_iter().map(outcome)).await;
    let mut running = Vec::new();
    let mut refused = Vec::new();
    for outcome in outcomes {
        match outcome {
            Outcome::Running(child) => running.push(child),
            Outcome::Exited(code, stderr) => refused.push((code, stderr)),
        }
    }
    assert_eq!(
        running.len(),
        1,
        "exactly one bot runs; the others said: {refused:#?}"
    );
    let winner = running.pop().expect("one runs");
    let pid = winner.id().expect("running bot has a pid");
    for (code, stderr) in &refused {
        assert_eq!(*code, Some(1), "{stderr}");
        assert!(
            stderr.contains("already running") && stderr.contains(&format!("(pid {pid})")),
            "a refused start names the running bot's pid {pid}: {stderr}"
        );
    }
    let pid_file = std::fs::read_to_string(home.state("bot.pid")).expect("pid file");
    assert_eq!(pid_file.trim(), pid.to_string());
    finish(winner).await;
}

/// Ends a running console bot by closing its input; it must exit cleanly.
async fn finish(mut child: Child) {
    drop(child.stdin.take());
    let status = tokio::time::timeout(LIMIT, child.wait())
        .await
        .expect("bot exits after end of input")
        .expect("wait");
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn a_pid_file_naming_an_unrelated_ollim_bot_process_does_not_block_the_start() {
    let mock = MockModelApi::start(|_| Reply::Text("hello".into()))
        .await
        .unwrap();
    let home = Home::new();
    // Someone watching the profile: its command line says "ollim-bot".
    let editor = Editor(
        std::process::Command::new("tail")
            .args(["-F", "/home/sam/.ollim-bot/USER.md"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start a stand-in editor"),
    );
    let editor_pid = editor.0.id();
    // Until the child has exec'd, its command line is still the test's own.
    let deadline = std::time::Instant::now() + LIMIT;
    while !String::from_utf8_lossy(
        &std::fs::read(format!("/proc/{editor_pid}/cmdline")).unwrap_or_default(),
    )
    .contains("ollim-bot")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the stand-in's command line mentions ollim-bot"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    home.write("state/bot.pid", &format!("{editor_pid}\n"));

    let mut bot = Bot::start(&home, &mock).await;
    bot.say("/ping-budget").await;
    bot.expect("budget:").await;
    let pid_file = std::fs::read_to_string(home.state("bot.pid")).expect("pid file");
    assert_eq!(pid_file.trim(), bot.pid().to_string());
    bot.finish().await;
    drop(editor);
}

/// A stand-in process, killed when the test ends however it ends.
struct Editor(std::process::Child);

impl Drop for Editor {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
