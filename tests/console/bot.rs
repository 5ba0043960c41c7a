//! A running `ollim-bot console` with piped stdin/stdout, its own data directory and HOME.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use crate::support::mock_model_api::MockModelApi;

/// Longest wait for any expected line.
pub const LIMIT: Duration = Duration::from_secs(90);

pub use crate::support::home::Home;

pub struct Bot {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::UnboundedReceiver<String>,
    /// Everything printed so far.
    pub seen: Vec<String>,
    /// Everything written to stderr so far (also echoed to the test's stderr).
    pub stderr: Arc<Mutex<Vec<String>>>,
}

impl Bot {
    pub async fn start(home: &Home, mock: &MockModelApi) -> Bot {
        Self::start_with(home, mock, &[]).await
    }

    pub async fn start_with(home: &Home, mock: &MockModelApi, extra: &[(&str, &str)]) -> Bot {
        Self::start_args(home, mock, &[], extra).await
    }

    /// Starts `ollim-bot console <args>` with `extra` in its environment.
    pub async fn start_args(
        home: &Home,
        mock: &MockModelApi,
        args: &[&str],
        extra: &[(&str, &str)],
    ) -> Bot {
        Self::start_command(home, mock, "console", args, extra).await
    }

    /// Starts `ollim-bot console` in the working directory `cwd`.
    pub async fn start_in(home: &Home, mock: &MockModelApi, cwd: &Path) -> Bot {
        Self::spawn(home, mock, "console", &[], &[], Some(cwd)).await
    }

    /// Starts `ollim-bot console` in the working directory `cwd` with `extra` in its
    /// environment.
    pub async fn start_in_with(
        home: &Home,
        mock: &MockModelApi,
        cwd: &Path,
        extra: &[(&str, &str)],
    ) -> Bot {
        Self::spawn(home, mock, "console", &[], extra, Some(cwd)).await
    }

    /// Starts `ollim-bot <command> <args>` (e.g. `chat`) with `extra` in its environment.
    pub async fn start_command(
        home: &Home,
        mock: &MockModelApi,
        command: &str,
        args: &[&str],
        extra: &[(&str, &str)],
    ) -> Bot {
        Self::spawn(home, mock, command, args, extra, None).await
    }

    async fn spawn(
        home: &Home,
        mock: &MockModelApi,
        command: &str,
        args: &[&str],
        extra: &[(&str, &str)],
        cwd: Option<&Path>,
    ) -> Bot {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ollim-bot"));
        if let Some(dir) = cwd {
            cmd.current_dir(dir);
        }
        cmd.arg(command)
            .args(args)
            .envs(mock.cli_env(&home.home))
            .env("OLLIM_CLAUDE_BIN", crate::support::claude_cli::binary())
            .env("OLLIM_DATA_DIR", &home.data)
            .env("OLLIM_TIMEZONE", "America/New_York")
            .env("OLLIM_USER_NAME", "Sam")
            .env("OLLIM_BOT_NAME", "Ollie")
            .env("RUST_LOG", "info")
            .env("DASHBOARD_PORT", "off")
            .env_remove("DISCORD_TOKEN")
            .envs(extra.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("start ollim-bot console");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let errors = child.stderr.take().expect("stderr");
        let kept = Arc::clone(&stderr);
        tokio::spawn(async move {
            let mut r = BufReader::new(errors).lines();
            while let Ok(Some(l)) = r.next_line().await {
                eprintln!("{l}");
                kept.lock().push(l);
            }
        });
        let stdout = child.stdout.take().expect("stdout");
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
            stderr,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id().expect("bot pid")
    }

    pub async fn say(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write to bot");
        stdin.flush().await.expect("flush");
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

    /// `kill -9`s the bot and its CLI children (a crash) and waits until the bot is gone.
    pub async fn crash(mut self) {
        let children = self
            .child
            .id()
            .map(|pid| children_named(pid, ""))
            .unwrap_or_default();
        self.child.start_kill().expect("kill -9 the bot");
        for pid in children {
            // SIGKILL; a child that already left is fine.
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
        tokio::time::timeout(LIMIT, self.child.wait())
            .await
            .expect("a killed bot is reaped")
            .expect("wait");
    }

    /// Sends SIGTERM, then waits for a clean exit like [`Self::finish`] (stdin stays open).
    pub async fn terminate(self) -> Vec<String> {
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success(), "SIGTERM sent");
        self.wait_exit().await
    }

    /// Closes stdin and waits for a clean exit, collecting the rest of the output.
    pub async fn finish(mut self) -> Vec<String> {
        drop(self.stdin.take());
        self.wait_exit().await
    }

    /// Waits for a clean exit, collecting the rest of the output.
    async fn wait_exit(mut self) -> Vec<String> {
        let status = tokio::time::timeout(LIMIT, self.child.wait())
            .await
            .expect("bot exits after end of input")
            .expect("wait");
        while let Ok(Some(l)) =
            tokio::time::timeout(Duration::from_secs(2), self.lines.recv()).await
        {
            self.seen.push(l);
        }
        assert!(
            status.success(),
            "bot exit status {status:?}; output {:#?}",
            self.seen
        );
        self.seen
    }
}

/// The pids of `parent`'s children whose command line mentions `needle`.
pub fn children_named(parent: u32, needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat"))
            .unwrap_or_default();
        // Field 4 (after the parenthesised name) is the parent pid.
        let ppid = stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        let cmdline = std::fs::read(Path::new("/proc").join(pid.to_string()).join("cmdline"))
            .unwrap_or_default();
        if ppid == Some(parent) && String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(pid);
        }
    }
    found
}
