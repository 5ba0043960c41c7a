//! The OS sandbox's cost (issue 39): the same CLI process driven with and without the sandbox
//! rules the bot generates, side by side — the start of a conversation turn (a line sent → its
//! model request), and a background job's turn (a fresh process whose turn runs one Bash
//! command, start to result). The mock model on 127.0.0.1 answers; nothing leaves the machine.
//!
//! Where a sandboxed job's extra time goes (measured with `strace -f -tt` on 2.1.332): the CLI
//! starts its sandbox in each new process — `bwrap --version`, `npm root -g` (a search for its
//! Java proxy agent that the settings cannot skip: `javaAgentJarPath` is not passed on from
//! them), the socat bridge to its proxy — and then, per command, a ripgrep scan of the working
//! directory for files it always protects and a bubblewrap start. `npm root -g` is most of it
//! (about 0.3 s here); the rules we generate (literal paths, only those that exist) cost next to
//! nothing. So the line after the figures times that probe on its own.

use std::sync::Arc;
use std::time::{Duration as StdDuration, Instant};

use ollim_actors::agent::permissions::tool_policy::ToolPolicy;
use ollim_actors::agent::sandbox_rules::{rules, Session};
use ollim_actors::claude::brain::{
    mcp::NoTools, BrainEvent, ClaudeProcess, Handlers, PermissionMode, SpawnOptions, UserMessage,
};
use ollim_actors::claude::sandbox::{self, SandboxSetting, Sandboxing};
use serde_json::json;

use crate::actors::ms;
use crate::conversation::arrival;
use crate::support::mock_model_api::{MockModelApi, Reply};

const ROUNDS: usize = 5;
const LIMIT: StdDuration = StdDuration::from_secs(30);

fn median(mut v: Vec<StdDuration>) -> Option<StdDuration> {
    v.sort();
    v.get(v.len() / 2).copied()
}

fn options(
    claude: &std::path::Path,
    data: &std::path::Path,
    mock: &MockModelApi,
    home: &std::path::Path,
    sandboxed: bool,
) -> SpawnOptions {
    let mut o = SpawnOptions::new(claude, data);
    o.env = mock.cli_env(home);
    o.permission_mode = Some(PermissionMode::DontAsk);
    o.allowed_tools = vec!["Bash(true)".to_owned()];
    o.tools = Some(vec!["Bash".to_owned()]);
    let allowed = o.allowed_tools.clone();
    o.sandbox = sandboxed.then(|| Sandboxing {
        setting: SandboxSetting::On,
        rules: rules(
            data,
            None,
            &ToolPolicy::default(),
            Session::Background(&allowed),
            SandboxSetting::On,
        ),
    });
    o
}

fn handlers() -> Handlers {
    Handlers {
        host: Arc::new(ollim_actors::claude::brain::host::DenyAll),
        tools: Arc::new(NoTools),
    }
}

/// Median time from a line sent to a running process to its model request.
async fn turn_start(options: &SpawnOptions, mock: &MockModelApi, tag: &str) -> Option<StdDuration> {
    let (process, mut events, _) = ClaudeProcess::start(options, handlers()).await.ok()?;
    let mut times = Vec::new();
    for i in 0..ROUNDS {
        let line = format!("{tag} turn {i}");
        let t0 = Instant::now();
        process.send_user(&UserMessage::text(line.clone())).ok()?;
        if let Some(at) = arrival(mock, &line, LIMIT).await {
            times.push(at.saturating_duration_since(t0));
        }
        while let Some(ev) = events.recv().await {
            if matches!(ev, BrainEvent::Result(_)) {
                break;
            }
        }
    }
    let _ = process.shutdown().await;
    median(times)
}

/// Median time for a fresh process to start and finish a turn that runs `true` with Bash.
async fn job(options: &SpawnOptions, tag: &str) -> Option<StdDuration> {
    let mut times = Vec::new();
    for i in 0..ROUNDS {
        let t0 = Instant::now();
        let (process, mut events, _) = ClaudeProcess::start(options, handlers()).await.ok()?;
        process
            .send_user(&UserMessage::text(format!("{tag} job {i}")))
            .ok()?;
        while let Some(ev) = events.recv().await {
            if matches!(ev, BrainEvent::Result(_)) {
                times.push(t0.elapsed());
                break;
            }
        }
        let _ = process.shutdown().await;
    }
    median(times)
}

pub async fn bench_sandbox() {
    let Some(claude) = crate::support::claude_cli::find() else {
        println!("sandbox: skipped — no claude CLI (run `make claude`)");
        return;
    };
    let support = sandbox::support();
    if !support.available() {
        println!("sandbox: skipped — {support}");
        return;
    }
    let Ok(mock) = MockModelApi::start(|req| {
        if !req.tool_results().is_empty() || !req.latest_user_text().contains(" job ") {
            Reply::Text("done".into())
        } else {
            Reply::ToolUse {
                name: "Bash".into(),
                input: json!({"command": "true", "description": "nothing"}),
            }
        }
    })
    .await
    else {
        println!("sandbox: could not start the mock model API");
        return;
    };
    let Ok(tmp) = tempfile::tempdir() else { return };
    let home = tmp.path().join("home");
    let data = tmp.path().join("data");
    let _ = std::fs::create_dir_all(&home);
    let _ = std::fs::create_dir_all(data.join("state"));
    let mut rows = Vec::new();
    for sandboxed in [false, true] {
        let o = options(&claude, &data, &mock, &home, sandboxed);
        let tag = if sandboxed { "on" } else { "off" };
        rows.push((tag, turn_start(&o, &mock, tag).await, job(&o, tag).await));
    }
    let show = |d: Option<StdDuration>| d.map_or_else(|| "not measured".to_owned(), ms);
    for (tag, start, job) in &rows {
        println!(
            "sandbox {tag}: conversation turn start {}, background job with one Bash call {} (median of {ROUNDS})",
            show(*start),
            show(*job)
        );
    }
    if let [(_, Some(s0), Some(j0)), (_, Some(s1), Some(j1))] = rows.as_slice() {
        let pct =
            |a: &StdDuration, b: &StdDuration| (b.as_secs_f64() / a.as_secs_f64() - 1.0) * 100.0;
        println!(
            "sandbox cost: turn start {:+.1} %, background job {:+.1} %",
            pct(s0, s1),
            pct(j0, j1)
        );
    }
    if let Some(probe) = npm_probe() {
        println!(
            "  of which, at each sandboxed CLI start: its `npm root -g` (looking for a Java proxy \
             agent; no setting skips it) {}",
            ms(probe)
        );
    }
}

/// How long `npm root -g` takes here (median of three): the CLI runs it once in every process
/// that sets up its sandbox, on the way to its first command — most of what a sandboxed
/// background job pays. `None` without `npm` (then the CLI's probe fails at once).
fn npm_probe() -> Option<StdDuration> {
    let mut times = Vec::new();
    for _ in 0..3 {
        let t0 = Instant::now();
        let out = std::process::Command::new("sh")
            .args(["-c", "npm root -g"])
            .current_dir("/")
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        times.push(t0.elapsed());
    }
    median(times)
}
