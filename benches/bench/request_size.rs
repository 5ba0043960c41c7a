//! What every model request carries before the conversation says anything (issue 24): the
//! system prompt's characters and the tool definitions' bytes, per kind of session, read from
//! the real CLI's first request to the mock Messages API on 127.0.0.1; beside the figures
//! measured before the request was made leaner. `OLLIM_BENCH_DUMP=<dir>` also writes each
//! request body there, for a closer look.

use std::time::Duration as StdDuration;

use chrono::Utc;
use tokio::io::AsyncWriteExt;

use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

/// The figures of one request: system prompt characters (all of it, and the bot's own part,
/// the text after the CLI's preset) and tool definition bytes (the `tools` array as JSON).
#[derive(Debug, Clone, Copy)]
struct Size {
    system: usize,
    ours: usize,
    tools: usize,
}

impl Size {
    fn of(request: &ModelRequest, ours_starts_with: &str) -> Self {
        let system = request.system_text();
        let ours = system
            .find(ours_starts_with)
            .map_or(0, |at| system[at..].chars().count());
        Self {
            system: system.chars().count(),
            ours,
            tools: request.body["tools"].to_string().len(),
        }
    }

    fn total(self) -> usize {
        self.system + self.tools
    }
}

/// Measured before the change (commit e212be9, the pinned CLI 2.1.330, the same requests as
/// below): every session carried the same 21,802 characters of ours.
const BEFORE: [(&str, Size); 3] = [
    (
        "conversation",
        Size {
            system: 26_922,
            ours: 21_802,
            tools: 57_083,
        },
    ),
    (
        "interactive fork",
        Size {
            system: 26_922,
            ours: 21_802,
            tools: 57_686,
        },
    ),
    (
        "background fork",
        Size {
            system: 26_922,
            ours: 21_802,
            tools: 13_264,
        },
    ),
];

/// The conversation's system prompt and tools as issue 24 measured them (22,841 + 64,139):
/// the target is half of it.
const ISSUE_24_CONVERSATION: usize = 86_980;

pub async fn bench_request_size() {
    let Some(claude) = crate::support::claude_cli::find() else {
        println!("request size: skipped — no claude CLI (run `make claude`)");
        return;
    };
    let Ok(mock) = MockModelApi::start(|req: &ModelRequest| {
        if req.latest_user_text().contains("[fork-started]") {
            Reply::Text("fork here".into())
        } else {
            Reply::Text("ok".into())
        }
    })
    .await
    else {
        println!("request size: could not start the mock model API");
        return;
    };
    let Ok(tmp) = tempfile::tempdir() else { return };
    let home = tmp.path().join("home");
    let data = tmp.path().join("data");
    let _ = std::fs::create_dir_all(&home);
    let _ = std::fs::create_dir_all(data.join("reminders"));
    // A background reminder with every default, due a few seconds after the start.
    let due = (Utc::now() + chrono::Duration::seconds(8))
        .with_timezone(&chrono_tz::UTC)
        .format("%Y-%m-%dT%H:%M:%S%.6f%:z");
    let _ = std::fs::write(
        data.join("reminders/size.md"),
        format!("---\nid: \"f5120001\"\nrun-at: \"{due}\"\nbackground: true\n---\nsize job\n"),
    );
    let Ok(mut child) = crate::conversation::console_bot(&mock, &claude, &home, &data) else {
        println!("request size: could not start the bot");
        return;
    };
    let Some(mut stdin) = child.stdin.take() else {
        return;
    };
    if let Some(mut out) = child.stdout.take() {
        tokio::spawn(async move { tokio::io::copy(&mut out, &mut tokio::io::sink()).await });
    }
    let limit = StdDuration::from_secs(30);
    let first = |needle: &'static str| {
        let mock = &mock;
        async move {
            mock.first_agent_request(|r| r.latest_user_text().contains(needle), limit)
                .await
        }
    };
    let _ = stdin.write_all(b"size line\n").await;
    let _ = stdin.flush().await;
    let main = first("size line").await;
    let _ = stdin.write_all(b"/fork sizes\n").await;
    let _ = stdin.flush().await;
    let fork = first("[fork-started]").await;
    let bg = first("[reminder-bg:f5120001]").await;
    let _ = child.kill().await;
    // The bot's own text starts with its profile, `IDENTITY.md`'s first line.
    let identity = std::fs::read_to_string(data.join("IDENTITY.md")).unwrap_or_default();
    let ours_starts = identity.lines().next().unwrap_or("## Capturing tasks");

    println!(
        "request size (first model request: system prompt characters, the bot's own in brackets, \
         + tool definition bytes):"
    );
    let mut targets = Vec::new();
    for ((kind, before), request) in BEFORE.iter().zip([main, fork, bg]) {
        let Some(request) = request else {
            println!("  {kind}: not measured");
            continue;
        };
        if let Ok(dir) = std::env::var("OLLIM_BENCH_DUMP") {
            let _ = std::fs::write(format!("{dir}/{kind}.json"), request.body.to_string());
        }
        let now = Size::of(&request, ours_starts);
        println!(
            "  {kind}: before {} ({}) + {} = {}; now {} ({}) + {} = {} ({} tools, {:.0} % of before)",
            before.system,
            before.ours,
            before.tools,
            before.total(),
            now.system,
            now.ours,
            now.tools,
            now.total(),
            request.tool_names().len(),
            100.0 * now.total() as f64 / before.total() as f64,
        );
        targets.push((*kind, now.total()));
    }
    for (kind, total) in targets {
        match kind {
            "conversation" => println!(
                "  target: the conversation at most half of issue 24's {ISSUE_24_CONVERSATION}: {total} ({})",
                if total * 2 <= ISSUE_24_CONVERSATION { "met" } else { "NOT met" }
            ),
            "background fork" => println!(
                "  target: the background fork no larger than before ({}): {total} ({})",
                BEFORE[2].1.total(),
                if total <= BEFORE[2].1.total() { "met" } else { "NOT met" }
            ),
            _ => {}
        }
    }
}
