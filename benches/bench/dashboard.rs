//! Dashboard figures (SPEC §21, issue 40): how long the bot takes to answer Today with 200
//! routines and 5,000 runs in the history (target ≤ 50 ms), and the bot's idle resident memory
//! with the dashboard on and off (target: at most 2 MiB more). A real console bot each time,
//! with the CLI talking to the mock Messages API; nothing leaves 127.0.0.1.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use chrono::{Duration as Span, Utc};
use ollim_actors::jobs::JobId;
use ollim_actors::records::runs::{JobKind, Outcome, RunRecord, Trigger};

use crate::conversation::rss_kib;
use crate::support::mock_model_api::{MockModelApi, Reply};

const ROUTINES: usize = 200;
const RUNS: usize = 5000;
const REQUESTS: usize = 30;
/// How long the bot is left alone before its memory is read.
const SETTLE: Duration = Duration::from_secs(3);
/// Memory readings per setting (the median is printed).
const RSS_ROUNDS: usize = 3;

fn free_port() -> Option<u16> {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").ok()?;
    Some(probe.local_addr().ok()?.port())
}

/// 200 routines with a spread of schedules (daily, weekdays, hourly), and 5,000 history lines
/// over the last ten days, a tenth of them today.
fn fixture(data: &Path) -> std::io::Result<()> {
    let routines = data.join("routines");
    std::fs::create_dir_all(&routines)?;
    for i in 0..ROUTINES {
        let cron = match i % 4 {
            0 => format!("{} {} * * *", i % 60, i % 24),
            1 => format!("{} {} * * 1-5", (i * 7) % 60, (i / 3) % 24),
            2 => format!("{} * * * *", i % 60),
            _ => format!("*/{} * * * *", 10 + i % 20),
        };
        std::fs::write(
            routines.join(format!("routine-{i:03}.md")),
            format!(
                "---\nid: r{i:03}\ncron: \"{cron}\"\ndescription: Routine number {i}\nbackground: true\n---\nDo thing {i}.\n"
            ),
        )?;
    }
    let state = data.join("state");
    std::fs::create_dir_all(&state)?;
    let now = Utc::now();
    let mut lines = String::new();
    for n in 0..RUNS {
        // Oldest first: runs n spread back over ten days, the newest tenth within today.
        let back = if n >= RUNS - RUNS / 10 {
            Span::seconds(((RUNS - n) as i64) * 30)
        } else {
            Span::minutes(((RUNS - n) as i64) * 3)
        };
        let ended = (now - back).fixed_offset();
        let i = n % ROUTINES;
        let record = RunRecord {
            run: format!("run-{n}"),
            job: JobId(format!("r{i:03}")),
            kind: JobKind::Routine,
            tag: "routine-bg".to_owned(),
            name: format!("Routine number {i}"),
            file: format!("routines/routine-{i:03}.md"),
            scheduled: ended - Span::seconds(40),
            started: Some(ended - Span::seconds(40)),
            ended,
            outcome: if n % 9 == 0 {
                Outcome::Failed
            } else {
                Outcome::Ok
            },
            pinged: n % 25 == 0,
            reported: n % 3 == 0,
            cost_usd: Some(0.01 + (n % 7) as f64 / 100.0),
            turns: Some(3),
            error: None,
            late_since: None,
            trigger: Trigger::Schedule,
            alerted: false,
            count: None,
            session: None,
        };
        if let Ok(line) = serde_json::to_string(&record) {
            lines.push_str(&line);
            lines.push('\n');
        }
    }
    std::fs::write(state.join("runs.jsonl"), lines)
}

/// A console bot on `data` with `DASHBOARD_PORT=port_value`.
fn bot(
    mock: &MockModelApi,
    claude: &Path,
    home: &Path,
    data: &Path,
    port_value: &str,
) -> std::io::Result<tokio::process::Child> {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("console")
        .envs(mock.cli_env(home))
        .env("OLLIM_CLAUDE_BIN", claude)
        .env("OLLIM_DATA_DIR", data)
        .env("OLLIM_TIMEZONE", "UTC")
        .env("DASHBOARD_PORT", port_value)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
}

/// Waits until `path` exists (the control socket: the bot is up), up to a minute.
async fn wait_for(path: &Path) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !path.exists() {
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    true
}

async fn wait_port(port: u16) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    true
}

/// A signed-in session cookie, from `ollim-bot dashboard`'s link.
async fn sign_in(data: &Path, http: &reqwest::Client) -> Option<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("dashboard")
        .env("OLLIM_DATA_DIR", data)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let link = text.split_whitespace().find(|w| w.starts_with("http://"))?;
    let res = http.get(link).send().await.ok()?;
    let set = res.headers().get("set-cookie")?.to_str().ok()?;
    Some(set.split(';').next()?.to_owned())
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

pub async fn bench_dashboard() {
    let Some(claude) = crate::support::claude_cli::find() else {
        println!("dashboard: skipped — no claude CLI (run `make claude`)");
        return;
    };
    let Ok(mock) = MockModelApi::start(|_| Reply::Text("ok".into())).await else {
        println!("dashboard: could not start the mock model API");
        return;
    };
    let Ok(tmp) = tempfile::tempdir() else { return };
    let home = tmp.path().join("home");
    let _ = std::fs::create_dir_all(&home);
    today_time(&mock, &claude, &home, tmp.path()).await;
    idle_memory(&mock, &claude, &home, tmp.path()).await;
}

async fn today_time(mock: &MockModelApi, claude: &Path, home: &Path, tmp: &Path) {
    let data = tmp.join("today");
    if let Err(e) = fixture(&data) {
        println!("dashboard: could not write the fixture: {e}");
        return;
    }
    let Some(port) = free_port() else { return };
    let Ok(mut child) = bot(mock, claude, home, &data, &port.to_string()) else {
        println!("dashboard: could not start the bot");
        return;
    };
    let Ok(http) = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
    else {
        return;
    };
    if !wait_port(port).await || !wait_for(&data.join("state/bot.sock")).await {
        println!("dashboard: the bot's dashboard never listened");
        return;
    }
    let Some(cookie) = sign_in(&data, &http).await else {
        println!("dashboard: could not sign in");
        return;
    };
    let url = format!("http://127.0.0.1:{port}/");
    let mut times = Vec::new();
    let mut bytes = 0;
    let mut fires = 0;
    for _ in 0..REQUESTS {
        let t0 = Instant::now();
        let Ok(res) = http.get(&url).header("Cookie", &cookie).send().await else {
            break;
        };
        let Ok(body) = res.text().await else { break };
        times.push(t0.elapsed());
        bytes = body.len();
        fires = body.matches("class=\"fire\"").count();
    }
    drop(child.stdin.take());
    let _ = tokio::time::timeout(Duration::from_secs(15), child.wait()).await;
    if times.is_empty() {
        println!("dashboard: Today never answered");
        return;
    }
    let first = times[0];
    let mut rest = times[1..].to_vec();
    rest.sort();
    let median = rest.get(rest.len() / 2).copied().unwrap_or(first);
    let p90 = rest.get(rest.len() * 9 / 10).copied().unwrap_or(median);
    println!(
        "dashboard: Today with {ROUTINES} routines and {RUNS} runs in the history ({fires} fire marks, {} KiB): \
         median {}, p90 {}; the first, right after the bot started, {} (target ≤ 50 ms)",
        bytes / 1024,
        ms(median),
        ms(p90),
        ms(first)
    );
}

/// The bot's resident memory once it has settled, with `DASHBOARD_PORT=setting`.
async fn settled_rss(
    mock: &MockModelApi,
    claude: &Path,
    home: &Path,
    data: &Path,
    setting: &str,
) -> Option<u64> {
    let _ = std::fs::remove_dir_all(data);
    let mut child = bot(mock, claude, home, data, setting).ok()?;
    let pid = child.id()?;
    if !wait_for(&data.join("state/bot.sock")).await {
        return None;
    }
    tokio::time::sleep(SETTLE).await;
    let rss = rss_kib(pid);
    drop(child.stdin.take());
    let _ = tokio::time::timeout(Duration::from_secs(15), child.wait()).await;
    rss
}

async fn idle_memory(mock: &MockModelApi, claude: &Path, home: &Path, tmp: &Path) {
    let data = tmp.join("idle");
    let mut off = Vec::new();
    let mut on = Vec::new();
    for _ in 0..RSS_ROUNDS {
        if let Some(kib) = settled_rss(mock, claude, home, &data, "off").await {
            off.push(kib);
        }
        let Some(port) = free_port() else { return };
        if let Some(kib) = settled_rss(mock, claude, home, &data, &port.to_string()).await {
            on.push(kib);
        }
    }
    off.sort_unstable();
    on.sort_unstable();
    let (Some(off), Some(on)) = (off.get(off.len() / 2), on.get(on.len() / 2)) else {
        println!("dashboard: idle memory could not be read");
        return;
    };
    println!(
        "dashboard: idle bot RSS {:.1} MiB with the dashboard off, {:.1} MiB on: {:+.2} MiB \
         (target ≤ +2 MiB; median of {RSS_ROUNDS})",
        *off as f64 / 1024.0,
        *on as f64 / 1024.0,
        (*on as f64 - *off as f64) / 1024.0
    );
}
