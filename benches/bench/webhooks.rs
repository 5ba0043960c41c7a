//! Webhook figures (SPEC §13) on loopback: how many refused requests per second the server
//! answers, and how long a valid one takes to get its 202 and to reach the job recipient.

use std::time::Instant;

use crate::actors::{ms, percentile};
use crate::webhook_harness::{post, Hooks, Verdict, CI_SPEC, SECRET};

const REJECTED: usize = 2000;
const CONCURRENCY: usize = 4;
const ACCEPTED: usize = 50;

pub async fn bench_webhooks() {
    let hooks = Hooks::start(&[("ci.md", CI_SPEC)], Verdict::Safe).await;
    let addr = hooks.addr;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for t in 0..CONCURRENCY {
        tasks.push(tokio::spawn(async move {
            for i in (t..REJECTED).step_by(CONCURRENCY) {
                if i % 2 == 0 {
                    post(addr, "ci", Some("Bearer wrong"), b"{}").await;
                } else {
                    post(addr, "ci", Some(&format!("Bearer {SECRET}")), b"{oops").await;
                }
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    let took = started.elapsed();
    println!(
        "webhooks: {REJECTED} refused requests (401/400, {CONCURRENCY} clients) in {} = {:.0} req/s",
        ms(took),
        REJECTED as f64 / took.as_secs_f64()
    );
    let mut answered = Vec::new();
    let mut dispatched = Vec::new();
    for i in 0..ACCEPTED {
        let body = format!(r#"{{"repo": "repo-{i}", "status": "ok"}}"#);
        let sent = Instant::now();
        let (status, _) = hooks.post("ci", &body).await;
        answered.push(sent.elapsed());
        if status == 202 {
            hooks.recorder.until(i + 1).await;
            dispatched.push(sent.elapsed());
        }
    }
    answered.sort();
    dispatched.sort();
    if dispatched.len() < ACCEPTED {
        println!(
            "webhooks: only {} of {ACCEPTED} valid requests were dispatched",
            dispatched.len()
        );
    }
    if !dispatched.is_empty() {
        println!(
            "webhooks: valid request → 202 p50 {} p95 {}; → job dispatched p50 {} p95 {}",
            ms(percentile(&answered, 0.5)),
            ms(percentile(&answered, 0.95)),
            ms(percentile(&dispatched, 0.5)),
            ms(percentile(&dispatched, 0.95)),
        );
    }
    hooks.stop().await;
}
