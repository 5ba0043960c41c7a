//! Discord figures, against the fake Discord and the mock Messages API on 127.0.0.1: how long the
//! bot takes from start to its greeting, and, for an owner's DM, to the 👀, to the model request,
//! and to the first visible text of the reply; and the bot's resident memory on this surface.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::actors::ms;
use crate::conversation::rss_kib;
use crate::support::fake_discord::{FakeDiscord, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

const ROUNDS: usize = 7;
const LIMIT: Duration = Duration::from_secs(60);

fn median(mut v: Vec<Duration>) -> Option<Duration> {
    v.sort();
    v.get(v.len() / 2).copied()
}

/// Polls `f` every 2 ms until it gives a value or the limit passes.
async fn until<T>(mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + LIMIT;
    while Instant::now() < deadline {
        if let Some(v) = f() {
            return Some(v);
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    None
}

pub async fn bench_discord() {
    let Some(claude) = crate::support::claude_cli::find() else {
        println!("discord: skipped — no claude CLI (run `make claude`)");
        return;
    };
    let Ok(mock) = MockModelApi::start(|_| Reply::Text("pong".into())).await else {
        println!("discord: could not start the mock model API");
        return;
    };
    let fake = FakeDiscord::start().await;
    let Ok(tmp) = tempfile::tempdir() else { return };
    let home = tmp.path().join("home");
    let _ = std::fs::create_dir_all(&home);
    let t0 = Instant::now();
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .envs(mock.cli_env(&home))
        .env("OLLIM_CLAUDE_BIN", &claude)
        .env("OLLIM_DATA_DIR", tmp.path().join("data"))
        .env("OLLIM_USER_NAME", "Sam")
        .env("OLLIM_BOT_NAME", "Ollie")
        .env("DISCORD_TOKEN", "bench.token.value")
        .env("DASHBOARD_PORT", "off")
        .env("OLLIM_DISCORD_PROXY", fake.base_url())
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            println!("discord: could not start the bot: {e}");
            return;
        }
    };
    let Some(pid) = child.id() else { return };
    let greeted = until(|| (!fake.bot_messages(DM_CHANNEL_ID).is_empty()).then(Instant::now)).await;
    let Some(greeted) = greeted else {
        println!("discord: the bot never greeted");
        return;
    };
    let start = greeted.duration_since(t0);

    let (mut eyes, mut model, mut visible) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..ROUNDS {
        let tag = format!("discord round {i}");
        let before = fake.requests().len();
        let shown_before = fake.bot_messages(DM_CHANNEL_ID).len();
        let sent = Instant::now();
        let id = fake.send_dm(OWNER_ID, &tag).await;
        let reacted = until(|| {
            fake.requests()
                .iter()
                .skip(before)
                .find(|r| {
                    r.method == "PUT" && r.path.contains(&format!("/messages/{id}/reactions"))
                })
                .map(|r| r.at)
        })
        .await;
        let asked = crate::conversation::arrival(&mock, &tag, LIMIT).await;
        let shown = until(|| {
            fake.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .skip(shown_before)
                .find(|m| m.content.contains("pong"))
                .map(|m| m.created)
        })
        .await;
        if let (Some(r), Some(a), Some(s)) = (reacted, asked, shown) {
            eyes.push(r.saturating_duration_since(sent));
            model.push(a.saturating_duration_since(sent));
            visible.push(s.saturating_duration_since(sent));
        }
        // Let the answer finish (👀 removed) before the next round.
        let _ = until(|| {
            fake.requests()
                .iter()
                .skip(before)
                .any(|r| {
                    r.method == "DELETE" && r.path.contains(&format!("/messages/{id}/reactions"))
                })
                .then_some(())
        })
        .await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss = rss_kib(pid);
    let _ = tokio::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .await;
    let _ = tokio::time::timeout(Duration::from_secs(20), child.wait()).await;

    println!("discord: start → greeting posted: {}", ms(start));
    for (what, v) in [
        ("owner DM → 👀 added", eyes),
        ("owner DM → model request", model),
        ("owner DM → first reply text on Discord", visible),
    ] {
        match median(v) {
            Some(m) => println!("discord: {what}: p50 {} over {ROUNDS} rounds", ms(m)),
            None => println!("discord: {what}: no figure (the rounds did not complete)"),
        }
    }
    match rss {
        Some(kib) => println!(
            "discord: bot resident memory at idle (CLI child excluded): {:.1} MiB",
            kib as f64 / 1024.0
        ),
        None => println!("discord: could not read the bot's memory"),
    }
}
