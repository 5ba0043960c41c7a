//! Background-fork figures: the bot's own resident memory while 10 background forks run (their
//! CLI children excluded), and the delay from a job's fire time to its CLI's first model request.
//! The bot runs as the console binary against the mock Messages API on 127.0.0.1.

use std::time::{Duration as StdDuration, Instant};

use chrono::Utc;

use crate::actors::{ms, percentile};
use crate::conversation::rss_kib;
use crate::support::mock_model_api::{MockModelApi, Reply};

/// Runs the measurement with one job, then with ten due at the same instant.
pub async fn bench_forks() {
    for n in [1, 10] {
        run(n).await;
    }
}

async fn run(n: usize) {
    let Some(claude) = crate::support::claude_cli::find() else {
        println!("forks: skipped — no claude CLI (run `make claude`)");
        return;
    };
    let script = |req: &crate::support::mock_model_api::ModelRequest| {
        if req.latest_user_text().contains("[reminder-bg:") {
            // Keep the forks busy long enough to measure them side by side.
            Reply::SlowText {
                chunks: (0..16).map(|i| format!("step {i} ")).collect(),
                delay: StdDuration::from_millis(500),
            }
        } else {
            Reply::Text("ok".into())
        }
    };
    let Ok(mock) = MockModelApi::start(script).await else {
        println!("forks: could not start the mock model API");
        return;
    };
    let Ok(tmp) = tempfile::tempdir() else { return };
    let home = tmp.path().join("home");
    let data = tmp.path().join("data");
    let _ = std::fs::create_dir_all(&home);
    let _ = std::fs::create_dir_all(data.join("reminders"));

    // Fire times a few seconds out, all at once; wall time mapped onto the mock's clock.
    let (t0_instant, t0_wall) = (Instant::now(), Utc::now());
    let due = t0_wall + chrono::Duration::seconds(6);
    let due_instant = t0_instant + (due - t0_wall).to_std().unwrap_or_default();
    for i in 0..n {
        let at = due
            .with_timezone(&chrono_tz::UTC)
            .format("%Y-%m-%dT%H:%M:%S%.6f%:z");
        let text = format!(
            "---\nid: \"f{i:07}\"\nrun-at: \"{at}\"\nbackground: true\nupdate-main-session: \"freely\"\n---\nbench job {i}\n"
        );
        let _ = std::fs::write(data.join(format!("reminders/bench-{i}.md")), text);
    }
    let child = crate::conversation::console_bot(&mock, &claude, &home, &data);
    let Ok(mut child) = child else {
        println!("forks: could not start the bot");
        return;
    };
    // Nobody reads the console here: drain it so the bot never blocks on a full pipe.
    if let Some(mut out) = child.stdout.take() {
        tokio::spawn(async move { tokio::io::copy(&mut out, &mut tokio::io::sink()).await });
    }
    let Some(pid) = child.id() else { return };

    let mut delays = Vec::new();
    let deadline = Instant::now() + StdDuration::from_secs(60);
    while delays.len() < n && Instant::now() < deadline {
        delays = mock
            .agent_requests()
            .iter()
            .filter(|r| r.latest_user_text().contains("[reminder-bg:f"))
            .map(|r| r.received_at.saturating_duration_since(due_instant))
            .collect();
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
    // All forks are mid-answer now: measure the bot alone.
    let rss = rss_kib(pid);
    let _ = child.kill().await;

    match rss {
        Some(kib) => println!(
            "bot resident memory with {} background forks running (CLI children excluded): {:.1} MiB",
            delays.len(),
            kib as f64 / 1024.0
        ),
        None => println!("bot resident memory with forks: unavailable"),
    }
    if delays.is_empty() {
        println!("fire time → first model request: not measured");
        return;
    }
    delays.sort();
    println!(
        "fire time → the fork's first model request ({} jobs due at once): p50 {}, max {}",
        delays.len(),
        ms(percentile(&delays, 0.5)),
        ms(*delays.last().unwrap_or(&StdDuration::ZERO))
    );
}
