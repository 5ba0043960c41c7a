//! The console's routine commands *(ours, SPEC §16)*: `/routines` (each routine's next fire
//! time, last outcome and paused state; what runs and waits), `/run ID`, `/pause ID`,
//! `/resume ID`.

use chrono::Utc;
use chrono_tz::Tz;
use ollim_actors::bot::supervisor::Handles;
use ollim_actors::jobs::JobId;
use ollim_actors::scheduling::routines_view::{self, RoutineClick};

/// Answers a routine command; `None` when `line` is not one.
pub async fn handle(line: &str, h: &Handles, tz: Tz) -> Option<String> {
    let (cmd, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let click: fn(JobId) -> RoutineClick = match cmd {
        "/routines" => {
            let board =
                routines_view::gather(&h.scheduler, &h.run_log, &h.job_runner, Utc::now()).await;
            return Some(match board {
                Ok(board) => board.text(tz),
                Err(e) => format!("/routines failed: {e}"),
            });
        }
        "/run" => RoutineClick::Run,
        "/pause" => RoutineClick::Pause,
        "/resume" => RoutineClick::Resume,
        _ => return None,
    };
    let id = match JobId::parse(rest.trim()) {
        Ok(id) => id,
        Err(_) => return Some(format!("usage: {cmd} ID (the ids are in /routines)")),
    };
    Some(routines_view::press(click(id), &h.scheduler).await)
}
