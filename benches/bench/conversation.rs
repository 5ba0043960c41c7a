//! Conversation figures: the bot's own resident memory at idle (the CLI child excluded), and
//! the time the bot adds between a console line and the model request it causes, next to the
//! same measurement for the CLI driven directly. Both talk to the mock Messages API on
//! 127.0.0.1; nothing leaves the machine.

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration as StdDuration, Instant};

use ollim_actors::claude::brain::{
    mcp::NoTools, ClaudeProcess, Handlers, PermissionMode, SpawnOptions, UserMessage,
};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::actors::ms;
use crate::support::mock_model_api::{MockModelApi, Reply};

const ROUNDS: usize = 7;
/// Longest wait for a request to reach the mock.
const ARRIVAL_LIMIT: StdDuration = StdDuration::from_secs(6);

pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The bot on the console surface with `data` as its data directory and the CLI talking to
/// `mock`: stdin and stdout piped, warnings only, killed when dropped.
pub fn console_bot(
    mock: &MockModelApi,
    claude: &std::path::Path,
    home: &std::path::Path,
    data: &std::path::Path,
) -> std::io::Result<tokio::process::Child> {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("console")
        .envs(mock.cli_env(home))
        .env("OLLIM_CLAUDE_BIN", claude)
        .env("OLLIM_DATA_DIR", data)
        .env("DASHBOARD_PORT", "off")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
}

fn median(mut v: Vec<StdDuration>) -> StdDuration {
    v.sort();
    v[v.len() / 2]
}

/// Waits (up to `limit`) until the mock has a request whose latest user text contains `needle`;
/// when it arrived.
pub async fn arrival(mock: &MockModelApi, needle: &str, limit: StdDuration) -> Option<Instant> {
    mock.first_agent_request(|r| r.latest_user_text().contains(needle), limit)
        .await
        .map(|r| r.received_at)
}

pub async fn bench_conversation() {
    let Some(claude) = crate::support::claude_cli::find() else {
        println!("conversation: skipped — no claude CLI (run `make claude`)");
        return;
    };
    let Ok(mock) = MockModelApi::start(|_| Reply::Text("pong".into())).await else {
        println!("conversation: could not start the mock model API");
        return;
    };
    let Ok(tmp) = tempfile::tempdir() else { return };
    let home = tmp.path().join("home");
    let _ = std::fs::create_dir_all(&home);

    // The bot.
    let mut child = match console_bot(&mock, &claude, &home, &tmp.path().join("data")) {
        Ok(c) => c,
        Err(e) => {
            println!("conversation: could not start the bot: {e}");
            return;
        }
    };
    let (Some(mut stdin), Some(stdout), Some(pid)) =
        (child.stdin.take(), child.stdout.take(), child.id())
    else {
        return;
    };
    let mut lines = BufReader::new(stdout).lines();
    let mut bot = Vec::new();
    for i in 0..ROUNDS {
        let tag = format!("bot round {i}");
        let t0 = Instant::now();
        let _ = stdin.write_all(format!("{tag}\n").as_bytes()).await;
        let _ = stdin.flush().await;
        if let Some(at) = arrival(&mock, &tag, ARRIVAL_LIMIT).await {
            bot.push(at.saturating_duration_since(t0));
        }
        while let Ok(Some(l)) = lines.next_line().await {
            if l.contains("pong") {
                break;
            }
        }
    }
    tokio::time::sleep(StdDuration::from_secs(2)).await;
    let rss = rss_kib(pid);
    drop(stdin);
    let _ = tokio::time::timeout(StdDuration::from_secs(15), child.wait()).await;

    // The CLI alone, driven directly.
    let mut options = SpawnOptions::new(&claude, tmp.path());
    options.env = mock.cli_env(&home);
    options.permission_mode = Some(PermissionMode::DontAsk);
    let handlers = Handlers {
        host: Arc::new(ollim_actors::claude::brain::host::DenyAll),
        tools: Arc::new(NoTools),
    };
    let mut direct = Vec::new();
    if let Ok((process, mut events, _init)) = ClaudeProcess::start(&options, handlers).await {
        for i in 0..ROUNDS {
            let tag = format!("direct round {i}");
            let t0 = Instant::now();
            if process.send_user(&UserMessage::text(tag.clone())).is_err() {
                break;
            }
            if let Some(at) = arrival(&mock, &tag, ARRIVAL_LIMIT).await {
                direct.push(at.saturating_duration_since(t0));
            }
            while let Some(ev) = events.recv().await {
                if matches!(ev, ollim_actors::claude::brain::BrainEvent::Result(_)) {
                    break;
                }
            }
        }
        let _ = process.shutdown().await;
    }

    match rss {
        Some(kib) => println!(
            "bot resident memory at idle (CLI child excluded): {:.1} MiB",
            kib as f64 / 1024.0
        ),
        None => println!("bot resident memory at idle: unavailable"),
    }
    if bot.is_empty() || direct.is_empty() {
        println!("console line → first model request: not measured");
        return;
    }
    let (b, d) = (median(bot), median(direct));
    let added = b.as_secs_f64() * 1e3 - d.as_secs_f64() * 1e3;
    println!(
        "console line → first model request: {} through the bot, {} with the CLI alone (difference {added:+.2} ms; median of {ROUNDS})",
        ms(b),
        ms(d),
    );
}
