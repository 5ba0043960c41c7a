//! How a background fork's run ended, as it tells the job runner ([`ForkEnd`]), and the words
//! the owner reads about it (the job's name, the time limit).

use std::time::Duration;

use super::background::BackgroundJob;
use crate::jobs::Job;

/// How a background fork ended, told to whoever started it when the actor stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForkOutcome {
    /// The job ran to its end.
    Completed,
    /// It could not start, its CLI failed or exited mid-job, or the actor stopped otherwise.
    Failed,
    /// It passed `bg_fork_timeout`.
    TimedOut,
    /// *(ours)* The CLI stopped it at its `--max-turns` or `--max-budget-usd`.
    OverBudget,
}

/// Everything a stopped fork tells the runner about its run.
#[derive(Debug, Clone, PartialEq)]
pub struct ForkEnd {
    /// How it ended.
    pub outcome: ForkOutcome,
    /// It pinged the owner (a ping or an embed that went out).
    pub pinged: bool,
    /// It reported back.
    pub reported: bool,
    /// The CLI's reported cost, in US dollars.
    pub cost_usd: Option<f64>,
    /// The CLI's reported model turns.
    pub turns: Option<u32>,
    /// What went wrong, when it did not complete.
    pub error: Option<String>,
    /// *(ours)* When it failed for a passing cause (an overloaded API, the network, the CLI
    /// dying before any tool ran): that cause. The runner may run it again.
    pub transient: Option<String>,
    /// The CLI session it ran in, once the CLI named it (its transcript).
    pub session: Option<String>,
}

/// The longest error kept for the run history.
pub(super) const MAX_ERROR_CHARS: usize = 300;

pub(super) fn short_error(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(MAX_ERROR_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// `30 minutes`, `1 minute`, or `45 seconds` for limits under a minute.
pub fn spoken(d: Duration) -> String {
    let secs = d.as_secs();
    let (n, unit) = if secs >= 60 {
        (secs / 60, "minute")
    } else {
        (secs, "second")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// The job's name for the user: its description, else its file name in words.
pub fn human_name(fired: &BackgroundJob) -> String {
    job_name(&fired.job, &fired.rel_path)
}

/// `job`'s name for the user: its description, else the name of its file (`rel_path`) in words.
pub fn job_name(job: &Job, rel_path: &str) -> String {
    let description = &job.settings().description;
    if !description.trim().is_empty() {
        return description.trim().to_owned();
    }
    std::path::Path::new(rel_path)
        .file_stem()
        .map(|s| s.to_string_lossy().replace('-', " "))
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "background task".to_owned())
}
