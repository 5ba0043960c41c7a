//! What the living memory adds to every request (issue 26, SPEC §18): the characters of the
//! system prompt's memory section — the guide with no `context.md`, then with a 2,000-character
//! one — read from the real CLI's requests to the mock Messages API, as `request size` does. One
//! console bot: its first line is measured without the file; the file is written, `/clear`
//! starts the cleared conversation in a new process (the memory changed), and the next line is
//! measured with it.

use std::time::Duration as StdDuration;

use tokio::io::AsyncWriteExt;

use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

/// The size of the file the second measurement carries.
const FILE_CHARS: usize = 2_000;

pub async fn bench_memory_size() {
    let Some(claude) = crate::support::claude_cli::find() else {
        println!("memory size: skipped — no claude CLI (run `make claude`)");
        return;
    };
    let Ok(mock) = MockModelApi::start(|_: &ModelRequest| Reply::Text("ok".into())).await else {
        println!("memory size: could not start the mock model API");
        return;
    };
    let Ok(tmp) = tempfile::tempdir() else { return };
    let home = tmp.path().join("home");
    let data = tmp.path().join("data");
    let _ = std::fs::create_dir_all(&home);
    let Ok(mut child) = crate::conversation::console_bot(&mock, &claude, &home, &data) else {
        println!("memory size: could not start the bot");
        return;
    };
    let Some(mut stdin) = child.stdin.take() else {
        return;
    };
    if let Some(mut out) = child.stdout.take() {
        tokio::spawn(async move { tokio::io::copy(&mut out, &mut tokio::io::sink()).await });
    }
    let limit = StdDuration::from_secs(30);
    say(&mut stdin, "without memory").await;
    let without = mock
        .first_agent_request(|r| r.latest_user_text().contains("without memory"), limit)
        .await;
    let line = "- a remembered fact, about as long as a line in a real memory file\n";
    let text: String = line
        .repeat(FILE_CHARS / line.len() + 1)
        .chars()
        .take(FILE_CHARS)
        .collect();
    let _ = std::fs::write(data.join("context.md"), &text);
    say(&mut stdin, "/clear").await;
    say(&mut stdin, "with memory").await;
    let with = mock
        .first_agent_request(|r| r.latest_user_text().contains("with memory"), limit)
        .await;
    let _ = child.kill().await;
    let section = |r: &ModelRequest| {
        let system = r.system_text();
        system
            .find("## Memory\n")
            .map_or(0, |at| system[at..].chars().count())
    };
    match (without, with) {
        (Some(without), Some(with)) => {
            let (none, full) = (section(&without), section(&with));
            println!(
                "memory size (characters the memory section adds to every request's system prompt):\n  \
                 no context.md: {none} (the guide)\n  a {FILE_CHARS}-character context.md: {full} \
                 ({} more; whole system prompt {} → {})",
                full.saturating_sub(none),
                without.system_text().chars().count(),
                with.system_text().chars().count(),
            );
        }
        _ => println!("memory size: not measured (the bot did not answer both lines)"),
    }
}

/// Writes one line to the bot's input.
async fn say(stdin: &mut tokio::process::ChildStdin, line: &str) {
    let _ = stdin.write_all(format!("{line}\n").as_bytes()).await;
    let _ = stdin.flush().await;
}
