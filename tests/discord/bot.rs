//! A running `ollim-bot` on its Discord surface: pointed at the fake Discord through
//! `OLLIM_DISCORD_PROXY` and at the mock model API through the real `claude` CLI, with its own
//! data directory and HOME. Its log is kept for assertions and for failure messages.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID};
use crate::support::mock_model_api::MockModelApi;

/// Longest wait for anything the bot should do.
pub const LIMIT: Duration = Duration::from_secs(60);
/// A token shaped like Discord's (the fake accepts any).
pub const TOKEN: &str = "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gabcde.fakefakefakefakefakefakefakefakefake00";

pub use crate::support::home::Home;

pub struct Bot {
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
}

impl Bot {
    /// Starts the bot and waits until it has greeted the owner (initialisation done).
    pub async fn start(home: &Home, mock: &MockModelApi, fake: &FakeDiscord) -> Bot {
        let bot = Self::spawn(home, mock, fake, &[]);
        let greeted = greetings(fake);
        fake.wait_for("the greeting", LIMIT, |f| {
            (greetings(f) > greeted).then_some(())
        })
        .await;
        bot
    }

    /// Starts the bot without waiting for anything.
    pub fn spawn(
        home: &Home,
        mock: &MockModelApi,
        fake: &FakeDiscord,
        extra: &[(&str, &str)],
    ) -> Bot {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ollim-bot"));
        cmd.envs(mock.cli_env(&home.home))
            .env("OLLIM_CLAUDE_BIN", crate::support::claude_cli::binary())
            .env("OLLIM_DATA_DIR", &home.data)
            .env("OLLIM_TIMEZONE", "America/New_York")
            .env("OLLIM_USER_NAME", "Sam")
            .env("OLLIM_BOT_NAME", "Ollie")
            .env("DISCORD_TOKEN", TOKEN)
            .env("DASHBOARD_PORT", "off")
            .env("OLLIM_DISCORD_PROXY", fake.base_url())
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("RUST_LOG", "info,serenity=warn,poise=warn")
            .env_remove("HTTP_PROXY")
            .env_remove("HTTPS_PROXY")
            .env_remove("http_proxy")
            .env_remove("https_proxy")
            .envs(extra.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("start ollim-bot");
        let log = Arc::new(Mutex::new(Vec::new()));
        for stream in [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
        ]
        .into_iter()
        .flatten()
        {
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                let mut lines = BufReader::new(stream).lines();
                while let Ok(Some(l)) = lines.next_line().await {
                    log.lock().push(l);
                }
            });
        }
        Bot { child, log }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("the bot is running")
    }

    /// Everything the bot has logged so far.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().clone()
    }

    /// Sends SIGTERM and waits for the exit; returns whether it exited cleanly.
    pub async fn stop(mut self) -> bool {
        if let Some(pid) = self.child.id() {
            let _ = Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status()
                .await;
        }
        let status = tokio::time::timeout(LIMIT, self.child.wait())
            .await
            .expect("the bot exits after SIGTERM")
            .expect("wait");
        status.success()
    }

    /// Waits for the process to end by itself; returns its exit code and log.
    pub async fn exit(mut self) -> (Option<i32>, Vec<String>) {
        let status = tokio::time::timeout(LIMIT, self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("the bot did not exit; log {:#?}", self.log()))
            .expect("wait");
        // Let the log readers catch up.
        tokio::time::sleep(Duration::from_millis(200)).await;
        (status.code(), self.log())
    }
}

/// How many greetings the bot has posted in the owner's DM channel.
pub fn greetings(fake: &FakeDiscord) -> usize {
    fake.bot_messages(DM_CHANNEL_ID)
        .iter()
        .filter(|m| {
            m.content.starts_with("hi! i'm your assistant")
                || m.content.starts_with("hey, i'm back")
        })
        .count()
}

/// Waits until the bot has posted (or edited to) a live message in the owner's DM containing
/// `needle`; returns it.
pub async fn said(fake: &FakeDiscord, needle: &str) -> crate::support::fake_discord::Message {
    fake.wait_for(&format!("a message saying {needle:?}"), LIMIT, |f| {
        f.bot_messages(DM_CHANNEL_ID)
            .into_iter()
            .find(|m| !m.deleted && m.content.contains(needle))
    })
    .await
}
