//! The idle footprint (SPEC §16): the bot's resident memory with its CLI children, while the
//! conversation is idle with its CLI process alive and again once `main_idle_release` (set to
//! its smallest value, one minute) has closed it; and the extra time the first message after a
//! release takes to reach the model, against warm messages. The bot runs as the console binary
//! against the mock Messages API on 127.0.0.1.

use std::collections::HashMap;
use std::time::{Duration as StdDuration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::ChildStdout;

use crate::actors::ms;
use crate::conversation::rss_kib;
use crate::support::mock_model_api::{MockModelApi, Reply};

const WARM_ROUNDS: usize = 5;

/// Every process below `root` (children, grandchildren, …), read from `/proc`.
fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of = HashMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The command name is in parentheses and may hold spaces: read after the last ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            parent_of.insert(pid, ppid);
        }
    }
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for (&child, &parent) in &parent_of {
            if parent == p {
                found.push(child);
                frontier.push(child);
            }
        }
    }
    found
}

/// Resident memory of `pid` and all its descendants, KiB; how many descendants there are.
fn tree_rss_kib(pid: u32) -> (u64, usize) {
    let kids = descendants(pid);
    let total = rss_kib(pid).unwrap_or(0) + kids.iter().filter_map(|&k| rss_kib(k)).sum::<u64>();
    (total, kids.len())
}

/// Sends `text` and returns how long it took to reach the model; waits for the answer.
async fn round(
    stdin: &mut tokio::process::ChildStdin,
    lines: &mut Lines<BufReader<ChildStdout>>,
    mock: &MockModelApi,
    text: &str,
) -> Option<StdDuration> {
    let t0 = Instant::now();
    stdin.write_all(format!("{text}\n").as_bytes()).await.ok()?;
    stdin.flush().await.ok()?;
    let arrived = crate::conversation::arrival(mock, text, StdDuration::from_secs(30))
        .await
        .map(|at| at.saturating_duration_since(t0));
    while let Ok(Some(l)) = lines.next_line().await {
        if l.contains("pong") {
            break;
        }
    }
    arrived
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

pub async fn bench_idle_release() {
    let Some(claude) = crate::support::claude_cli::find() else {
        println!("idle release: skipped — no claude CLI (run `make claude`)");
        return;
    };
    let Ok(mock) = MockModelApi::start(|_| Reply::Text("pong".into())).await else {
        println!("idle release: could not start the mock model API");
        return;
    };
    let Ok(tmp) = tempfile::tempdir() else { return };
    let home = tmp.path().join("home");
    let data = tmp.path().join("data");
    let _ = std::fs::create_dir_all(&home);
    let _ = std::fs::create_dir_all(data.join("state"));
    let _ = std::fs::write(
        data.join("state/config.json"),
        r#"{"main_idle_release": 1}"#,
    );
    let mut child = match crate::conversation::console_bot(&mock, &claude, &home, &data) {
        Ok(c) => c,
        Err(e) => {
            println!("idle release: could not start the bot: {e}");
            return;
        }
    };
    let (Some(mut stdin), Some(stdout), Some(pid)) =
        (child.stdin.take(), child.stdout.take(), child.id())
    else {
        return;
    };
    let mut lines = BufReader::new(stdout).lines();
    let mut warm = Vec::new();
    for i in 0..WARM_ROUNDS {
        if let Some(d) = round(&mut stdin, &mut lines, &mock, &format!("warm round {i}")).await {
            warm.push(d);
        }
    }
    tokio::time::sleep(StdDuration::from_secs(2)).await;
    let (before, kids_before) = tree_rss_kib(pid);
    // One minute of idleness, then the process goes; wait for the CLI child to be gone.
    let deadline = Instant::now() + StdDuration::from_secs(150);
    while !descendants(pid).is_empty() && Instant::now() < deadline {
        tokio::time::sleep(StdDuration::from_millis(500)).await;
    }
    tokio::time::sleep(StdDuration::from_secs(1)).await;
    let (after, kids_after) = tree_rss_kib(pid);
    let first = round(&mut stdin, &mut lines, &mock, "first after the release").await;
    drop(stdin);
    let _ = tokio::time::timeout(StdDuration::from_secs(15), child.wait()).await;

    println!(
        "idle, CLI process alive: bot + CLI children resident {} ({kids_before} child processes)",
        mib(before)
    );
    println!(
        "idle past main_idle_release: bot + CLI children resident {} ({kids_after} child processes)",
        mib(after)
    );
    warm.sort();
    match (first, warm.get(warm.len() / 2)) {
        (Some(first), Some(&median)) => {
            let extra = first.saturating_sub(median);
            println!(
                "first message after a release → model request: {} (warm median {}, extra {}; target ≤ 1 s)",
                ms(first),
                ms(median),
                ms(extra)
            );
        }
        _ => println!("first message after a release: not measured"),
    }
}
