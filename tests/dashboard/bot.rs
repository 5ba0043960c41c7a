//! The real bot for the browser tier: `ollim-bot console` with its own data directory and HOME,
//! the real `claude` CLI against the mock model API, and the dashboard and the webhook server
//! on free ports.

use std::process::Stdio;
use std::time::Duration;

use chrono_tz::Tz;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use crate::fixtures::HOOK_SECRET;
use crate::support::home::Home;
use crate::support::mock_model_api::MockModelApi;

/// Longest wait for a line from the bot (a model turn through the real CLI included).
pub const LIMIT: Duration = Duration::from_secs(90);

pub struct Bot {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::UnboundedReceiver<String>,
    /// Everything printed so far.
    seen: Vec<String>,
    /// The dashboard's port.
    pub port: u16,
    /// The webhook server's port.
    pub hook_port: u16,
}

impl Bot {
    /// Starts the bot on `home` in `zone` with the dashboard on `port` and the webhook server on
    /// `hook_port` (taking [`HOOK_SECRET`]).
    pub async fn start(
        home: &Home,
        mock: &MockModelApi,
        zone: Tz,
        port: u16,
        hook_port: u16,
    ) -> Bot {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
            .arg("console")
            .envs(mock.cli_env(&home.home))
            .env("OLLIM_CLAUDE_BIN", crate::support::claude_cli::binary())
            .env("OLLIM_DATA_DIR", &home.data)
            .env("OLLIM_TIMEZONE", zone.name())
            .env("OLLIM_USER_NAME", "Sam")
            .env("OLLIM_BOT_NAME", "Ollie")
            .env("DASHBOARD_PORT", port.to_string())
            .env("WEBHOOK_PORT", hook_port.to_string())
            .env("WEBHOOK_SECRET", HOOK_SECRET)
            .env("RUST_LOG", "info")
            .env_remove("DISCORD_TOKEN")
            .env_remove("DASHBOARD_BIND")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start ollim-bot console");
        let errors = child.stderr.take().expect("the bot's stderr");
        tokio::spawn(async move {
            let mut r = BufReader::new(errors).lines();
            while let Ok(Some(l)) = r.next_line().await {
                eprintln!("{l}");
            }
        });
        let stdout = child.stdout.take().expect("the bot's stdout");
        let (tx, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut r = BufReader::new(stdout).lines();
            while let Ok(Some(l)) = r.next_line().await {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Bot {
            child,
            stdin,
            lines,
            seen: Vec::new(),
            port,
            hook_port,
        }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Types a line into the console.
    pub async fn say(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("the bot's stdin is open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write to the bot");
        stdin.flush().await.expect("flush the bot's stdin");
    }

    /// Reads lines until one contains `needle`; returns it. Fails after [`LIMIT`].
    pub async fn expect(&mut self, needle: &str) -> String {
        let deadline = tokio::time::Instant::now() + LIMIT;
        loop {
            match tokio::time::timeout_at(deadline, self.lines.recv()).await {
                Ok(Some(line)) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Ok(None) => panic!("bot output ended before {needle:?}; saw {:#?}", self.seen),
                Err(_) => panic!("no {needle:?} within {LIMIT:?}; saw {:#?}", self.seen),
            }
        }
    }

    /// Asks the console for a login link (`/dashboard`) and returns it.
    pub async fn login_link(&mut self) -> String {
        self.say("/dashboard").await;
        let prefix = format!("http://127.0.0.1:{}/login?token=", self.port);
        let line = self.expect(&prefix).await;
        let at = line.find(&prefix).expect("the line holds the link");
        line[at..]
            .split(|c: char| c.is_whitespace() || c == '>' || c == ')')
            .next()
            .expect("a link")
            .to_owned()
    }

    /// Closes stdin and waits for a clean exit.
    pub async fn finish(mut self) {
        drop(self.stdin.take());
        let status = tokio::time::timeout(LIMIT, self.child.wait())
            .await
            .expect("the bot exits after the end of its input")
            .expect("wait for the bot");
        assert!(status.success(), "bot exit status {status:?}");
    }
}
