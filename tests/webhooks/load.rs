//! A bounded burst on loopback: 300 invalid and 30 valid requests from a few concurrent
//! tasks. The server answers every one, dispatches each valid one exactly once and none of
//! the invalid ones.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::harness::{post, Hooks, Verdict, CI_SPEC};

const TASKS: usize = 6;
const INVALID: usize = 300;
const VALID: usize = 30;

#[actix_rt::test]
async fn burst_of_mixed_requests_dispatches_each_valid_one_once() {
    // Room for the whole burst: the rate limit is not what this test measures.
    let roomy = CI_SPEC.replace("id: \"ci\"\n", "id: \"ci\"\nrate-limit: 1000\n");
    let hooks = Hooks::start(&[("ci.md", &roomy)], Verdict::Safe).await;
    let started = Instant::now();
    let addr = hooks.addr;
    let mut tasks = Vec::new();
    for t in 0..TASKS {
        tasks.push(tokio::spawn(async move {
            let mut statuses = Vec::new();
            let mut i = t;
            while i < INVALID + VALID {
                let (status, _) = if i < VALID {
                    let body = format!(r#"{{"repo": "repo-{i}", "status": "ok"}}"#);
                    post(addr, "ci", Some("Bearer hook-secret"), body.as_bytes()).await
                } else {
                    match i % 3 {
                        0 => post(addr, "ci", Some("Bearer wrong"), b"{}").await,
                        1 => post(addr, "ci", Some("Bearer hook-secret"), b"{oops").await,
                        _ => {
                            let body = format!(r#"{{"repo": "repo-{i}", "status": "meh"}}"#);
                            post(addr, "ci", Some("Bearer hook-secret"), body.as_bytes()).await
                        }
                    }
                };
                statuses.push((i, status));
                i += TASKS;
            }
            statuses
        }));
    }
    let mut answered = 0;
    for task in tasks {
        for (i, status) in task.await.unwrap() {
            let expected = if i < VALID {
                202
            } else if i % 3 == 0 {
                401
            } else {
                400
            };
            assert_eq!(status, expected, "request {i}");
            answered += 1;
        }
    }
    assert_eq!(answered, INVALID + VALID);
    let jobs = hooks.recorder.until(VALID).await;
    let mut seen: HashMap<String, usize> = HashMap::new();
    for job in &jobs {
        let repo = job
            .prompt
            .lines()
            .find_map(|l| l.strip_prefix("| - repo: "))
            .unwrap_or("?")
            .to_owned();
        *seen.entry(repo).or_default() += 1;
    }
    assert_eq!(jobs.len(), VALID, "{seen:?}");
    for i in 0..VALID {
        assert_eq!(
            seen.get(&format!("repo-{i}")),
            Some(&1),
            "repo-{i}: {seen:?}"
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the burst took {:?}",
        started.elapsed()
    );
    hooks.stop().await;
}
