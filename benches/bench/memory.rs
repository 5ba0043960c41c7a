//! Memory figures (SPEC §18): `ollim-bot memory search` over 5,000 generated session snapshots
//! (target ≤ 50 ms), run as the agent runs it (a child process, median of 5) and in-process;
//! and what the `[memory-flush]` turn adds to `/clear` through the console bot and the real CLI
//! against the mock, beside the mock's own answer time for the flush (target: added ≤ the
//! mock's time + 1 s).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::actors::ms;
use crate::support::mock_model_api::{MockModelApi, Reply};

const SNAPSHOTS: usize = 5000;
const RUNS: usize = 5;
/// In one snapshot in fifty.
const WORD: &str = "dentist";
/// How the mock answers a flush: four pieces, each after this pause.
const FLUSH_PIECE_DELAY: Duration = Duration::from_millis(100);
const FLUSH_PIECES: u32 = 4;
const CLEARS: usize = 5;
/// Longest wait for one expected console line.
const LINE_LIMIT: Duration = Duration::from_secs(60);

/// Writes `count` snapshot files of about 80 words each under `data/memory/sessions`.
fn generate(data: &std::path::Path, count: usize) -> std::io::Result<u64> {
    let dir = data.join("memory/sessions");
    std::fs::create_dir_all(&dir)?;
    let vocabulary = [
        "garden",
        "invoice",
        "meeting",
        "walk",
        "coffee",
        "report",
        "call",
        "mum",
        "friday",
        "project",
        "deadline",
        "groceries",
        "gym",
        "book",
        "train",
        "plan",
        "budget",
        "email",
        "doctor",
        "birthday",
        "review",
        "notes",
        "shed",
        "paint",
        "holiday",
        "tax",
        "car",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut bytes = 0;
    for i in 0..count {
        let mut body = String::new();
        for line in 0..8 {
            for _ in 0..10 {
                let w = vocabulary[(next() % vocabulary.len() as u64) as usize];
                body.push_str(w);
                body.push(' ');
            }
            if line == 3 && i % 50 == 0 {
                body.push_str(WORD);
            }
            body.push('\n');
        }
        let text = format!(
            "---\nsession: {i:08x}-0000\nreason: clear\nfrom: 2026-01-01T09:00:00+00:00\n\
             to: 2026-01-01T10:00:00+00:00\n---\n\n{body}"
        );
        bytes += text.len() as u64;
        let day = i % 28 + 1;
        std::fs::write(
            dir.join(format!("2026-01-{day:02}-{:04}-{i:08x}.md", i % 2400)),
            text,
        )?;
    }
    Ok(bytes)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn bench_search() -> std::io::Result<()> {
    let tmp = tempfile::tempdir()?;
    let data = tmp.path().join("data");
    let bytes = generate(&data, SNAPSHOTS)?;
    let search = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ollim-bot"));
        c.args(["memory", "search", WORD, "--limit", "10"])
            .env("OLLIM_DATA_DIR", &data)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    };
    // Warm the page cache.
    let _ = search().status();
    let mut child = Vec::new();
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let ok = search().status().map(|s| s.success()).unwrap_or(false);
        if !ok {
            println!("memory search: the command failed");
            return Ok(());
        }
        child.push(t0.elapsed());
    }
    let mut inside = Vec::new();
    let mut hits = 0;
    for _ in 0..RUNS {
        let t0 = Instant::now();
        match ollim_actors::agent::memory_search::search(&data, WORD, 10) {
            Ok(found) => hits = found.hits.len(),
            Err(e) => {
                println!("memory search: {e}");
                return Ok(());
            }
        }
        inside.push(t0.elapsed());
    }
    println!(
        "memory search over {SNAPSHOTS} snapshots ({:.1} MB, '{WORD}' in 1 in 50, {hits} hits shown): {} as a command (target ≤ 50 ms), {} in-process (median of {RUNS})",
        bytes as f64 / 1e6,
        ms(median(child)),
        ms(median(inside)),
    );
    Ok(())
}

async fn say(stdin: &mut tokio::process::ChildStdin, line: &str) {
    let _ = stdin.write_all(format!("{line}\n").as_bytes()).await;
    let _ = stdin.flush().await;
}

/// Reads console lines until one contains `needle`.
async fn until<R: tokio::io::AsyncBufRead + Unpin>(
    lines: &mut tokio::io::Lines<R>,
    needle: &str,
) -> bool {
    let wait = async {
        while let Ok(Some(l)) = lines.next_line().await {
            if l.contains(needle) {
                return true;
            }
        }
        false
    };
    tokio::time::timeout(LINE_LIMIT, wait)
        .await
        .unwrap_or(false)
}

async fn bench_flush() {
    let Some(claude) = crate::support::claude_cli::find() else {
        println!("memory flush: skipped — no claude CLI (run `make claude`)");
        return;
    };
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("[memory-flush]") {
            Reply::SlowText {
                chunks: (0..FLUSH_PIECES).map(|i| format!("summary {i} ")).collect(),
                delay: FLUSH_PIECE_DELAY,
            }
        } else {
            Reply::Text("pong".into())
        }
    })
    .await;
    let Ok(mock) = mock else {
        println!("memory flush: could not start the mock model API");
        return;
    };
    let Ok(tmp) = tempfile::tempdir() else { return };
    let home = tmp.path().join("home");
    let _ = std::fs::create_dir_all(&home);
    let data = tmp.path().join("data");
    let mut child = match crate::conversation::console_bot(&mock, &claude, &home, &data) {
        Ok(c) => c,
        Err(e) => {
            println!("memory flush: could not start the bot: {e}");
            return;
        }
    };
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return;
    };
    let mut lines = BufReader::new(stdout).lines();
    let mut with_flush = Vec::new();
    let mut without = Vec::new();
    for flush_on in [true, false] {
        if !flush_on {
            say(&mut stdin, "/config memory_flush off").await;
            if !until(&mut lines, "memory_flush set to off").await {
                println!("memory flush: /config did not answer");
                return;
            }
        }
        for i in 0..CLEARS {
            say(&mut stdin, &format!("round {i}")).await;
            if !until(&mut lines, "pong").await {
                println!("memory flush: no answer to a message");
                return;
            }
            let t0 = Instant::now();
            say(&mut stdin, "/clear").await;
            if !until(&mut lines, "conversation cleared").await {
                println!("memory flush: /clear did not finish");
                return;
            }
            if flush_on {
                with_flush.push(t0.elapsed());
            } else {
                without.push(t0.elapsed());
            }
        }
    }
    drop(stdin);
    drop(lines);
    let _ = child.kill().await;
    let mock_answer = FLUSH_PIECE_DELAY * FLUSH_PIECES;
    let (w, wo) = (median(with_flush), median(without));
    let added = w.saturating_sub(wo);
    println!(
        "/clear with the memory flush: {} (without: {}) — the flush adds {}; the mock's own answer to it takes {} (target: added ≤ {} + 1 s; median of {CLEARS})",
        ms(w),
        ms(wo),
        ms(added),
        ms(mock_answer),
        ms(mock_answer),
    );
}

pub async fn bench_memory() {
    if let Err(e) = bench_search() {
        println!("memory search: could not make the snapshots: {e}");
    }
    bench_flush().await;
}
