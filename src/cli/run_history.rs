//! `ollim-bot routine history [ID] [--limit N]` and `ollim-bot reminder history [ID] [--limit N]`:
//! the run history (`state/runs.jsonl`), read straight from the file (no bot needed), one line
//! per run or missed time, newest last, times in OLLIM_TIMEZONE.
//!
//! ```text
//! 2026-03-02 09:00  a1b2c3d4  ok           09:00:02-09:01:10  reported  $0.0123  3 turns  -- Morning check-in
//! 2026-03-02 10:00  a1b2c3d4  missed       -- Morning check-in
//! 2026-03-02 11:00  a1b2c3d4  caught-up    -- Morning check-in
//! 2026-03-02 11:00  a1b2c3d4  failed       12:30:01-12:30:09  late  -- Morning check-in
//!     error: the claude cli exited mid-job (exit code 1)
//! ```

use anyhow::Context;
use chrono_tz::Tz;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::jobs::JobId;
use ollim_actors::records::runs::{history_file, select, JobKind, RunRecord, Trigger};

/// How many lines `history` shows without `--limit`.
pub const DEFAULT_LIMIT: usize = 20;

/// Prints the last `limit` lines of `kind` (and `id`, when given).
pub fn print(
    data: &DataDir,
    kind: JobKind,
    id: Option<String>,
    limit: usize,
    tz: Tz,
) -> anyhow::Result<()> {
    let id = id.map(|i| JobId::parse(&i)).transpose()?;
    let path = data.state_file(history_file::FILE_NAME);
    let read = history_file::read(&path).with_context(|| format!("reading {}", path.display()))?;
    if read.skipped > 0 {
        eprintln!(
            "warning: {} line(s) of {} do not read and are left out",
            read.skipped,
            path.display()
        );
    }
    let lines = select(&read.records, id.as_ref(), Some(kind), limit.max(1));
    if lines.is_empty() {
        match &id {
            Some(id) => println!("no runs of {id} recorded"),
            None => println!("no runs recorded yet"),
        }
        return Ok(());
    }
    for record in &lines {
        println!("{}", line(record, tz));
        if let Some(error) = &record.error {
            println!("    error: {error}");
        }
    }
    Ok(())
}

/// One record as a line.
pub fn line(r: &RunRecord, tz: Tz) -> String {
    let when = r.scheduled.with_timezone(&tz).format("%Y-%m-%d %H:%M");
    let mut parts = vec![format!("{when}  {}  {:<11}", r.job, r.outcome.as_str())];
    if let Some(started) = r.started {
        parts.push(format!(
            "{}-{}",
            started.with_timezone(&tz).format("%H:%M:%S"),
            r.ended.with_timezone(&tz).format("%H:%M:%S")
        ));
    }
    if let Some(count) = r.count {
        parts.push(format!("x{count}"));
    }
    match r.trigger {
        Trigger::Manual => parts.push("manual".into()),
        Trigger::Rerun => parts.push("rerun".into()),
        Trigger::Schedule => {}
    }
    if r.late_since.is_some() {
        parts.push("late".into());
    }
    if r.pinged {
        parts.push("pinged".into());
    }
    if r.reported {
        parts.push("reported".into());
    }
    if let Some(cost) = r.cost_usd {
        parts.push(format!("${cost:.4}"));
    }
    if let Some(turns) = r.turns {
        parts.push(format!("{turns} turn{}", if turns == 1 { "" } else { "s" }));
    }
    if r.alerted {
        parts.push("alerted".into());
    }
    parts.push(format!("-- {}", r.name));
    parts.join("  ")
}
