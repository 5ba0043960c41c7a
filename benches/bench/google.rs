//! Google figures against the fake Google on 127.0.0.1: the wall time of `ollim-bot tasks list`
//! from process start to exit (the agent runs it as a child process), with a fresh token, and
//! with an expired one that is refreshed and rewritten first.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::actors::{ms, percentile};
use crate::support::fake_google::FakeGoogle;

const RUNS: usize = 30;
const TASKS: usize = 25;

fn run_list(data: &std::path::Path, base: &str) -> Option<Duration> {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .args(["tasks", "list"])
        .env("OLLIM_DATA_DIR", data)
        .env("OLLIM_TIMEZONE", "UTC")
        .env("OLLIM_GOOGLE_API_BASE", base)
        .env("NO_PROXY", "127.0.0.1")
        .output()
        .ok()?;
    let took = started.elapsed();
    (out.status.success() && String::from_utf8_lossy(&out.stdout).lines().count() == TASKS)
        .then_some(took)
}

fn report(what: &str, mut times: Vec<Duration>) {
    if times.len() < RUNS {
        println!(
            "google: {what}: only {} of {RUNS} runs succeeded",
            times.len()
        );
    }
    if times.is_empty() {
        return;
    }
    times.sort();
    println!(
        "google: `tasks list` ({TASKS} tasks, {what}), process start to exit: p50 {} p95 {} min {} ({} runs)",
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.95)),
        ms(times[0]),
        times.len()
    );
}

pub fn bench_google() {
    let fake = FakeGoogle::start();
    for i in 0..TASKS {
        fake.add_task(&format!("task {i}"), None, false);
    }
    let Ok(tmp) = tempfile::tempdir() else {
        println!("google: no temporary directory");
        return;
    };
    let data = tmp.path().to_path_buf();
    let state = data.join("state");
    if std::fs::create_dir_all(&state).is_err()
        || std::fs::write(state.join("credentials.json"), fake.client_file()).is_err()
    {
        println!("google: could not prepare the data directory");
        return;
    }
    let (access, refresh) = fake.grant();
    let fresh = fake.token_file(&access, &refresh, "2099-01-01T00:00:00Z");
    let expired = fake.token_file(&access, &refresh, "2000-01-01T00:00:00Z");
    let base = fake.base_url();
    let mut times = Vec::new();
    for _ in 0..RUNS {
        let _ = std::fs::write(state.join("token.json"), &fresh);
        times.extend(run_list(&data, &base));
    }
    report("fresh token", times);
    let mut times = Vec::new();
    for _ in 0..RUNS {
        let _ = std::fs::write(state.join("token.json"), &expired);
        times.extend(run_list(&data, &base));
    }
    report("expired token: refresh + rewrite first", times);
}
