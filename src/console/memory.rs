//! `/memory` on the console (SPEC §18): `context.md`'s size and last change, and
//! `/memory undo` to revert that change (as a new commit, like `ollim-bot memory undo`).

use chrono_tz::Tz;
use ollim_actors::agent::memory::status::{status, undo_answer};
use ollim_actors::agent::memory::versions;
use ollim_actors::base::data_dir::DataDir;

/// The answer to a `/memory` line; `None` for any other line.
pub async fn answer(line: &str, data: &DataDir, tz: Tz) -> Option<String> {
    let mut words = line.split_whitespace();
    if words.next() != Some("/memory") {
        return None;
    }
    let undo = match words.next() {
        None => false,
        Some("undo") => true,
        Some(_) => return Some("usage: /memory [undo]".to_owned()),
    };
    let data = data.clone();
    // Git runs off the console's thread.
    let reply = tokio::task::spawn_blocking(move || {
        if undo {
            return undo_answer(&versions::undo(&data));
        }
        let now = status(&data);
        let mut text = now.describe(tz);
        if now.last.is_some() {
            text.push_str("\n/memory undo reverts that change");
        }
        text
    })
    .await
    .unwrap_or_else(|e| format!("could not read the memory: {e}"));
    Some(reply)
}
