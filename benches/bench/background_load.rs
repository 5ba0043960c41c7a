//! The owner's message under background load (issue 15): ten background jobs fire in the same
//! second and the owner writes then. Printed side by side in one run: the time from the owner's
//! console line to its model request with no background work, with `bg_fork_limit` at its
//! default 3, and with the limit effectively off (10); and the peak resident memory of the bot
//! plus all its CLI children (VmRSS summed over the process tree, sampled from /proc every
//! 50 ms), against a budget of the bot and (limit + 1) CLI processes. The bot runs as the
//! console binary with the real CLI against the mock Messages API on 127.0.0.1.

use std::path::Path;
use std::time::{Duration as StdDuration, Instant};

use chrono::Utc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::ChildStdin;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

use crate::actors::{ms, percentile};
use crate::conversation::arrival;
use crate::process_tree::{mib, sample, Peaks, Sampler};
use crate::support::mock_model_api::{MockModelApi, Reply};

/// Background jobs due in the same second, each round.
const JOBS: usize = 10;
/// Lines with no background work at the conversation's start. Each round under load is also
/// preceded by one, and the loaded lines are compared with those: the CLI's own work per line
/// grows with the conversation, so idle lines from its start would flatter the comparison.
const IDLE_ROUNDS: usize = 5;
/// Rounds under load per limit.
const BUSY_ROUNDS: usize = 5;
/// The limits compared: the default (the target is for it), and one that lets all ten run at
/// once, to show what the limit saves.
const LIMITS: [u64; 2] = [3, 10];
/// The owner writes this long after the jobs' fire time (while their CLIs start).
const OWNER_AFTER_FIRE: StdDuration = StdDuration::from_millis(100);
/// Longest wait for anything.
const LIMIT: StdDuration = StdDuration::from_secs(180);

/// The console bot: its stdin, and its stdout lines.
struct Console {
    stdin: ChildStdin,
    lines: UnboundedReceiver<String>,
}

impl Console {
    async fn say(&mut self, line: &str) {
        let _ = self.stdin.write_all(format!("{line}\n").as_bytes()).await;
        let _ = self.stdin.flush().await;
    }

    /// Reads lines until one contains `needle`; false after [`LIMIT`] or at the end.
    async fn until(&mut self, needle: &str) -> bool {
        let deadline = tokio::time::Instant::now() + LIMIT;
        while let Ok(Some(line)) = tokio::time::timeout_at(deadline, self.lines.recv()).await {
            if line.contains(needle) {
                return true;
            }
        }
        false
    }

    /// Sends the owner's line `tag`; the time until its model request, after its answer.
    async fn owner_says(&mut self, mock: &MockModelApi, tag: &str) -> Option<StdDuration> {
        let t0 = Instant::now();
        self.say(tag).await;
        let at = arrival(mock, tag, LIMIT).await?;
        self.until("pong").await.then_some(())?;
        Some(at.saturating_duration_since(t0))
    }
}

/// The job ids with a line in `state/runs.jsonl`.
fn recorded(data: &Path) -> Vec<String> {
    std::fs::read_to_string(data.join("state/runs.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["job"].as_str().map(str::to_owned))
        .collect()
}

/// Writes `JOBS` background reminders due at `due`; their ids.
fn schedule(data: &Path, prefix: &str, due: chrono::DateTime<Utc>) -> Vec<String> {
    let at = due.format("%Y-%m-%dT%H:%M:%S%.6f+00:00");
    (0..JOBS)
        .map(|i| {
            let id = format!("{prefix}j{i:02}");
            let text = format!(
                "---\nid: \"{id}\"\nrun-at: \"{at}\"\nbackground: true\n---\nload job {id}\n"
            );
            let _ = std::fs::write(data.join(format!("reminders/{id}.md")), text);
            id
        })
        .collect()
}

/// One round under load: ten jobs due in 4 s, the owner's line just after; waits until every
/// job has its history line. The owner's latency, if measured.
async fn busy_round(
    console: &mut Console,
    mock: &MockModelApi,
    data: &Path,
    prefix: &str,
) -> Option<StdDuration> {
    let lead = StdDuration::from_secs(4);
    let due_instant = Instant::now() + lead;
    let due = Utc::now() + chrono::Duration::from_std(lead).unwrap_or_default();
    let ids = schedule(data, prefix, due);
    tokio::time::sleep_until((due_instant + OWNER_AFTER_FIRE).into()).await;
    let latency = console.owner_says(mock, &format!("owner {prefix}")).await;
    let deadline = Instant::now() + LIMIT;
    while Instant::now() < deadline {
        let done = recorded(data);
        if ids.iter().all(|id| done.contains(id)) {
            return latency;
        }
        tokio::time::sleep(StdDuration::from_millis(200)).await;
    }
    println!("background load: round {prefix} did not finish within {LIMIT:?}");
    latency
}

/// Waits (bounded) until the bot runs only its conversation's CLI (the last round's forks
/// have exited); that look at the tree.
async fn quiet(bot: u32) -> Option<crate::process_tree::Sample> {
    let deadline = Instant::now() + LIMIT;
    while Instant::now() < deadline {
        let now = sample(bot);
        if now.clis <= 1 {
            return Some(now);
        }
        tokio::time::sleep(StdDuration::from_millis(100)).await;
    }
    None
}

fn spread(v: &[StdDuration]) -> String {
    let mut v = v.to_vec();
    v.sort();
    match v.last() {
        Some(max) => format!("p50 {}, max {}", ms(percentile(&v, 0.5)), ms(*max)),
        None => "not measured".to_owned(),
    }
}

fn p50(v: &[StdDuration]) -> Option<f64> {
    let mut v = v.to_vec();
    v.sort();
    (!v.is_empty()).then(|| percentile(&v, 0.5).as_secs_f64())
}

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT met"
    }
}

pub async fn bench_background_load() {
    let Some(claude) = crate::support::claude_cli::find() else {
        println!("background load: skipped — no claude CLI (run `make claude`)");
        return;
    };
    let script = |req: &crate::support::mock_model_api::ModelRequest| {
        if req.latest_user_text().contains("[reminder-bg:") {
            // Busy for ~3 s after its first token, like a job that reads and thinks.
            Reply::SlowText {
                chunks: (0..6).map(|i| format!("working {i} ")).collect(),
                delay: StdDuration::from_millis(500),
            }
        } else {
            Reply::Text("pong".into())
        }
    };
    let Ok(mock) = MockModelApi::start(script).await else {
        println!("background load: could not start the mock model API");
        return;
    };
    let Ok(tmp) = tempfile::tempdir() else { return };
    let (home, data) = (tmp.path().join("home"), tmp.path().join("data"));
    let _ = std::fs::create_dir_all(&home);
    let _ = std::fs::create_dir_all(data.join("reminders"));
    let child = crate::conversation::console_bot(&mock, &claude, &home, &data);
    let Ok(mut child) = child else {
        println!("background load: could not start the bot");
        return;
    };
    let (Some(stdin), Some(stdout), Some(pid)) =
        (child.stdin.take(), child.stdout.take(), child.id())
    else {
        return;
    };
    let (tx, lines) = unbounded_channel();
    tokio::spawn(async move {
        let mut out = BufReader::new(stdout).lines();
        while let Ok(Some(l)) = out.next_line().await {
            let _ = tx.send(l);
        }
    });
    let mut console = Console { stdin, lines };

    // The main CLI started and warm; then the owner alone.
    if console.owner_says(&mock, "warm up").await.is_none() {
        println!("background load: the bot never answered");
        return;
    }
    let mut first_idle = Vec::new();
    for i in 0..IDLE_ROUNDS {
        first_idle.extend(console.owner_says(&mock, &format!("owner idle {i}")).await);
    }
    let at_idle = sample(pid);

    let mut busy: Vec<Loaded> = Vec::new();
    for limit in LIMITS {
        if limit != 3 {
            console.say(&format!("/config bg_fork_limit {limit}")).await;
            if !console.until("bg_fork_limit").await {
                println!("background load: /config bg_fork_limit {limit} was not answered");
                return;
            }
        }
        let sampler = Sampler::start(pid);
        let (mut idle, mut latencies, mut one_cli_kib) = (Vec::new(), Vec::new(), 0);
        for round in 0..BUSY_ROUNDS {
            let prefix = format!("l{limit:02}r{round}");
            match quiet(pid).await {
                // The conversation's CLI alone, as large as the conversation is by now.
                Some(alone) => one_cli_kib = one_cli_kib.max(alone.largest_cli_kib),
                None => println!("background load: the last round's CLIs were still running"),
            }
            idle.extend(
                console
                    .owner_says(&mock, &format!("owner idle {prefix}"))
                    .await,
            );
            latencies.extend(busy_round(&mut console, &mock, &data, &prefix).await);
        }
        busy.push(Loaded {
            limit,
            idle,
            latencies,
            peaks: sampler.stop(),
            one_cli_kib,
        });
    }
    drop(console);
    let _ = child.kill().await;
    report(&first_idle, at_idle, &busy);
}

/// What one limit's rounds measured.
struct Loaded {
    limit: u64,
    /// The owner's line → its model request with nothing running, before each round.
    idle: Vec<StdDuration>,
    /// The same, 0.1 s after the round's jobs fired.
    latencies: Vec<StdDuration>,
    peaks: Peaks,
    /// The conversation's CLI alone before a round (the largest of those looks).
    one_cli_kib: u64,
}

fn report(first_idle: &[StdDuration], at_idle: crate::process_tree::Sample, busy: &[Loaded]) {
    println!(
        "background load: {JOBS} background jobs due in the same second, the owner's line {} ms after; {BUSY_ROUNDS} rounds per limit, each after an idle line",
        OWNER_AFTER_FIRE.as_millis()
    );
    let mut line = format!(
        "  owner's line → its model request: at the conversation's start, idle {}",
        spread(first_idle)
    );
    for b in busy {
        line.push_str(&format!(
            " | bg_fork_limit {}: idle {}, under load {}",
            b.limit,
            spread(&b.idle),
            spread(&b.latencies)
        ));
    }
    println!("{line}");
    let mut line =
        "  p50 under load against idle (target ≤ 1.5× at the default limit 3):".to_owned();
    for b in busy {
        let limit = b.limit;
        match (p50(&b.idle), p50(&b.latencies)) {
            (Some(i), Some(x)) if i > 0.0 && limit == LIMITS[0] => line.push_str(&format!(
                " bg_fork_limit {limit} {:.2}× {}",
                x / i,
                met(x <= 1.5 * i)
            )),
            (Some(i), Some(x)) if i > 0.0 => line.push_str(&format!(
                " bg_fork_limit {limit} {:.2}× (for comparison: no limit in effect)",
                x / i
            )),
            _ => line.push_str(&format!(" bg_fork_limit {limit} not measured")),
        }
        line.push(';');
    }
    println!("{}", line.trim_end_matches(';'));

    // One CLI process: the main conversation's, warm, at idle.
    let cli = at_idle.largest_cli_kib;
    println!(
        "  at idle: bot {} + its main CLI {} = {} ({} CLI process)",
        mib(at_idle.root_kib),
        mib(cli),
        mib(at_idle.total_kib),
        at_idle.clis
    );
    let mut line = "  peak resident, bot + all CLI children:".to_owned();
    for Loaded {
        limit, peaks: p, ..
    } in busy
    {
        line.push_str(&format!(
            " bg_fork_limit {limit}: {} (bot {}, at most {} CLI processes, the largest {}; {} samples) |",
            mib(p.total_kib),
            mib(p.root_kib),
            p.clis,
            mib(p.largest_cli_kib),
            p.samples
        ));
    }
    println!("{}", line.trim_end_matches(" |"));
    let mut line =
        "  target peak ≤ bot + (limit + 1) × the conversation's CLI alone before a round:"
            .to_owned();
    for Loaded {
        limit,
        peaks: p,
        one_cli_kib,
        ..
    } in busy
    {
        let budget = p.root_kib + (limit + 1) * one_cli_kib;
        line.push_str(&format!(
            " bg_fork_limit {limit}: {} ≤ {} + {} × {} = {} {} (CLI processes {} ≤ {} {});",
            mib(p.total_kib),
            mib(p.root_kib),
            limit + 1,
            mib(*one_cli_kib),
            mib(budget),
            met(p.total_kib <= budget),
            p.clis,
            limit + 1,
            met(p.clis as u64 <= limit + 1)
        ));
    }
    println!("{}", line.trim_end_matches(';'));
}
