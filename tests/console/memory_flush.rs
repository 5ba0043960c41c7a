//! Flush before forgetting (SPEC §18), through the real CLI against the mock: `/compact` and
//! `/clear` are each preceded by exactly one `[memory-flush]` request whose answer becomes a
//! snapshot in `memory/sessions/`; a context past `memory_flush_at` flushes once, not once per
//! turn; a failed flush never stops the clear; `memory_flush off` sends none. One bot goes
//! through all of it (each step leaves the conversation as the next needs it).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

const TAG: &str = "[memory-flush]";
const COMPACT_ASK: &str = "CRITICAL: Respond with TEXT ONLY";

/// A flush request: the tag in the latest user message, which is not the compaction's. 2.1.197
/// appends its summary request to the last user message (here the flush's) and offers tools
/// with it; later releases send it as a message of its own.
fn is_flush(r: &ModelRequest) -> bool {
    let latest = r.latest_user_text();
    latest.contains(TAG) && !latest.contains(COMPACT_ASK)
}

fn flushes(mock: &MockModelApi) -> Vec<ModelRequest> {
    mock.agent_requests().into_iter().filter(is_flush).collect()
}

/// The snapshot files, sorted by name, with their text.
fn snapshots(home: &Home) -> Vec<(String, String)> {
    let dir = home.data.join("memory/sessions");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .map(|d| {
            d.map(|e| {
                let e = e.unwrap();
                let name = e.file_name().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(e.path()).unwrap())
            })
            .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn session_id(home: &Home) -> String {
    std::fs::read_to_string(home.state("sessions.json"))
        .unwrap()
        .trim()
        .to_owned()
}

/// The snapshot of `reason` (there must be exactly one), checked against its session.
fn snapshot_of(home: &Home, reason: &str, session: &str, summary: &str) {
    let all = snapshots(home);
    let found: Vec<&(String, String)> = all
        .iter()
        .filter(|(_, text)| text.contains(&format!("\nreason: {reason}\n")))
        .collect();
    assert_eq!(found.len(), 1, "one {reason} snapshot: {all:#?}");
    let (name, text) = found[0];
    // `YYYY-MM-DD-HHMM-<id8>.md`, `-2.md` for a second one in the same minute.
    assert!(
        name.len() >= 25 && name[15..].starts_with(&format!("-{}", &session[..8])),
        "named for its time and session: {name}"
    );
    let (front, body) = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .unwrap_or_else(|| panic!("frontmatter: {text}"));
    let field = |k: &str| {
        front
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{k}: ")))
            .unwrap_or_else(|| panic!("{k} in {front}"))
            .to_owned()
    };
    assert_eq!(field("session"), session);
    let from = chrono::DateTime::parse_from_rfc3339(&field("from")).unwrap();
    let to = chrono::DateTime::parse_from_rfc3339(&field("to")).unwrap();
    assert!(from <= to, "{front}");
    assert_eq!(body.trim(), summary);
}

#[tokio::test]
async fn compact_clear_and_a_full_context_each_flush_once_and_a_failed_flush_still_clears() {
    let failing = Arc::new(AtomicBool::new(false));
    let summaries = Arc::new(AtomicU32::new(0));
    let (fail, count) = (Arc::clone(&failing), Arc::clone(&summaries));
    let mock = MockModelApi::start(move |req| {
        let latest = req.latest_user_text();
        if latest.contains(COMPACT_ASK) {
            return Reply::Text("summary of the conversation so far".into());
        }
        if latest.contains(TAG) {
            if fail.load(Ordering::SeqCst) {
                return Reply::ApiError {
                    status: 402,
                    kind: "billing_error".into(),
                    message: "credit balance too low".into(),
                };
            }
            let n = count.fetch_add(1, Ordering::SeqCst) + 1;
            return Reply::Text(format!("SUMMARY {n}: the blue folder is in the attic"));
        }
        Reply::Text("sure".into())
    })
    .await
    .unwrap();
    mock.script_side_calls(|req| {
        if req.latest_user_text().contains(COMPACT_ASK) {
            Reply::Text("summary of the conversation so far".into())
        } else {
            Reply::Text("ok".into())
        }
    });
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("the blue folder is in the attic").await;
    bot.expect("sure").await;

    // /compact: one flush, then the compaction's own request.
    let session = session_id(&home);
    bot.say("/compact").await;
    bot.expect("saving what to remember").await;
    bot.expect("compacted").await;
    assert_eq!(flushes(&mock).len(), 1);
    let all = mock.all_requests();
    let flush_at = all.iter().position(is_flush).unwrap();
    let compact_at = all
        .iter()
        .position(|r| r.latest_user_text().contains(COMPACT_ASK))
        .expect("the compaction asked the model");
    assert!(flush_at < compact_at, "the flush comes first");
    snapshot_of(
        &home,
        "compact",
        &session,
        "SUMMARY 1: the blue folder is in the attic",
    );

    // Past `memory_flush_at` of the window: one flush after the turn that crossed it, none
    // after the next ones (a flush after "two" would be sent before "three" and answered
    // before it). 10 % of the default model's window, so the CLI itself does not compact yet.
    bot.say("/config memory_flush_at 10").await;
    bot.expect("memory_flush_at set to 10%").await;
    mock.report_input_tokens(120_000);
    bot.say("one").await;
    bot.expect("sure").await;
    bot.expect("saving what to remember").await;
    for line in ["two", "three"] {
        bot.say(line).await;
        bot.expect("sure").await;
    }
    assert_eq!(
        flushes(&mock).len(),
        2,
        "one threshold flush, not one per turn"
    );
    snapshot_of(
        &home,
        "threshold",
        &session_id(&home),
        "SUMMARY 2: the blue folder is in the attic",
    );
    mock.report_input_tokens(10);

    // /clear: one flush, its snapshot, then the clear.
    let session = session_id(&home);
    bot.say("/clear").await;
    bot.expect("saving what to remember").await;
    bot.expect("conversation cleared").await;
    assert_eq!(flushes(&mock).len(), 3);
    snapshot_of(
        &home,
        "clear",
        &session,
        "SUMMARY 3: the blue folder is in the attic",
    );
    assert_ne!(session_id(&home), session, "cleared");

    // A flush the model fails: said, and the clear happens anyway.
    bot.say("a new topic").await;
    bot.expect("sure").await;
    failing.store(true, Ordering::SeqCst);
    let session = session_id(&home);
    bot.say("/clear").await;
    bot.expect("couldn't save a snapshot").await;
    bot.expect("conversation cleared").await;
    assert_eq!(
        flushes(&mock).len(),
        4,
        "tried once: {:#?}",
        mock.all_requests()
            .iter()
            .map(|r| (r.path.clone(), r.is_agent_call(), r.latest_user_text()))
            .collect::<Vec<_>>()
    );
    assert_ne!(
        session_id(&home),
        session,
        "cleared despite the failed flush"
    );
    assert_eq!(snapshots(&home).len(), 3, "no snapshot of a failed flush");

    // Off: no flush at all.
    failing.store(false, Ordering::SeqCst);
    bot.say("/config memory_flush off").await;
    bot.expect("memory_flush set to off").await;
    bot.say("something to forget").await;
    bot.expect("sure").await;
    bot.say("/clear").await;
    bot.expect("conversation cleared").await;
    let seen = bot.finish().await;
    assert_eq!(flushes(&mock).len(), 4, "memory_flush off sends none");
    assert!(
        !seen.iter().any(|l| l.contains("SUMMARY")),
        "a flush's answer is never shown: {seen:#?}"
    );

    // What the flushes saved is found again.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .args(["memory", "search", "attic"])
        .env("OLLIM_DATA_DIR", &home.data)
        .output()
        .unwrap();
    let hits = String::from_utf8(out.stdout).unwrap();
    assert_eq!(hits.lines().count(), 3, "{hits}");
    assert!(
        hits.lines()
            .all(|l| l.starts_with("memory/sessions/") && l.contains(".md:8  SUMMARY")),
        "{hits}"
    );
}
