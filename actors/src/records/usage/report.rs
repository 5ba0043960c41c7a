//! The `/usage` figures *(SPEC §19)*: what the conversation (`state/usage.jsonl`) and the jobs
//! (`state/runs.jsonl`) cost today and over the last days, counted in the configured zone from
//! local midnight. One computation for Discord, the console and `ollim-bot usage`, so the three
//! always agree with each other and with the files: every figure is a plain sum of lines.

use std::collections::HashMap;

use chrono::{DateTime, Days, Utc};
use chrono_tz::Tz;

use super::file;
use super::record::{UsageKind, UsageRecord};
use crate::base::data_dir::DataDir;
use crate::base::local_days::midnight;
use crate::base::state_file;
use crate::jobs::JobId;
use crate::records::runs::{history_file, JobKind, Outcome, RunRecord};

/// The longest window asked for (usage lines are kept 400 days).
pub const MAX_DAYS: u32 = 400;

/// The windows shown without a number of days: today, 7 days, 30 days.
pub const DEFAULT_WINDOWS: [u32; 3] = [1, 7, 30];

/// Why no report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A number of days outside 1..=400.
    #[error("days must be a whole number from 1 to {MAX_DAYS}, not {0:?}")]
    BadDays(String),
    /// A file could not be read.
    #[error(transparent)]
    Read(#[from] state_file::Error),
}

/// Checks a number of days given by the owner.
pub fn parse_days(text: &str) -> Result<u32, ReportError> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|d| (1..=MAX_DAYS).contains(d))
        .ok_or_else(|| ReportError::BadDays(text.trim().to_owned()))
}

/// The windows for `days`: today and that many days, or today, 7 and 30 days.
pub fn windows_for(days: Option<u32>) -> Vec<u32> {
    match days {
        None => DEFAULT_WINDOWS.to_vec(),
        Some(1) => vec![1],
        Some(d) => vec![1, d],
    }
}

/// Turns and tokens of the conversation or of the forks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    /// Dollars, as the CLI reported them.
    pub cost_usd: f64,
    /// Turns recorded.
    pub turns: u64,
    /// Input tokens (not cached).
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens read from the cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the cache.
    pub cache_write_tokens: u64,
}

impl Totals {
    fn add(&mut self, r: &UsageRecord) {
        self.cost_usd += r.cost_usd;
        self.turns += 1;
        self.input_tokens += r.input_tokens;
        self.output_tokens += r.output_tokens;
        self.cache_read_tokens += r.cache_read_tokens;
        self.cache_write_tokens += r.cache_write_tokens;
    }

    /// The two added.
    pub fn plus(&self, other: &Totals) -> Totals {
        Totals {
            cost_usd: self.cost_usd + other.cost_usd,
            turns: self.turns + other.turns,
            input_tokens: self.input_tokens + other.input_tokens,
            output_tokens: self.output_tokens + other.output_tokens,
            cache_read_tokens: self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens: self.cache_write_tokens + other.cache_write_tokens,
        }
    }
}

/// One job's runs in a window.
#[derive(Debug, Clone, PartialEq)]
pub struct JobTotals {
    /// The job's id.
    pub job: JobId,
    /// Routine, reminder or webhook.
    pub kind: JobKind,
    /// Its name for people, from its newest line.
    pub name: String,
    /// Dollars, as the CLI reported them.
    pub cost_usd: f64,
    /// Runs that started the model (misses and skips are not runs).
    pub runs: u64,
}

/// The figures of one window.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// How many days (1: today).
    pub days: u32,
    /// Local midnight of its first day.
    pub since: DateTime<Tz>,
    /// The main conversation's turns.
    pub conversation: Totals,
    /// Interactive forks' turns.
    pub forks: Totals,
    /// Every job together.
    pub jobs_cost_usd: f64,
    /// Every job's runs together.
    pub job_runs: u64,
    /// Each job, most expensive first (then by id).
    pub jobs: Vec<JobTotals>,
}

impl Window {
    /// Conversation, forks and jobs together.
    pub fn total_usd(&self) -> f64 {
        self.conversation.cost_usd + self.forks.cost_usd + self.jobs_cost_usd
    }
}

/// The report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The zone days are counted in.
    pub tz: Tz,
    /// The windows, shortest first.
    pub windows: Vec<Window>,
    /// Lines of `usage.jsonl` that did not parse and were left out.
    pub skipped_usage: usize,
    /// Lines of `runs.jsonl` that did not parse and were left out.
    pub skipped_runs: usize,
}

/// Whether a run line is a run of the model (not a miss or a skip).
fn is_model_run(outcome: Outcome) -> bool {
    outcome.is_run() && outcome != Outcome::Skipped
}

/// Adds up `usage` and `runs` for each of `days` windows ending at `now`.
pub fn build(
    usage: &[UsageRecord],
    runs: &[RunRecord],
    now: DateTime<Utc>,
    tz: Tz,
    days: &[u32],
) -> Report {
    let today = now.with_timezone(&tz).date_naive();
    let windows = days
        .iter()
        .map(|&d| {
            let first = today
                .checked_sub_days(Days::new(u64::from(d.max(1) - 1)))
                .unwrap_or(today);
            let since = midnight(tz, first);
            let since_utc = since.with_timezone(&Utc);
            let mut w = Window {
                days: d,
                since,
                conversation: Totals::default(),
                forks: Totals::default(),
                jobs_cost_usd: 0.0,
                job_runs: 0,
                jobs: Vec::new(),
            };
            for r in usage.iter().filter(|r| r.ts >= since_utc) {
                match r.kind {
                    UsageKind::Conversation => w.conversation.add(r),
                    UsageKind::Fork => w.forks.add(r),
                }
            }
            let mut per_job: HashMap<(JobKind, JobId), JobTotals> = HashMap::new();
            for r in runs.iter().filter(|r| r.ended >= since_utc) {
                let run = u64::from(is_model_run(r.outcome));
                let cost = r.cost_usd.unwrap_or(0.0);
                if run == 0 && r.cost_usd.is_none() {
                    continue;
                }
                w.jobs_cost_usd += cost;
                w.job_runs += run;
                let entry = per_job
                    .entry((r.kind, r.job.clone()))
                    .or_insert_with(|| JobTotals {
                        job: r.job.clone(),
                        kind: r.kind,
                        name: r.name.clone(),
                        cost_usd: 0.0,
                        runs: 0,
                    });
                entry.name = r.name.clone();
                entry.cost_usd += cost;
                entry.runs += run;
            }
            w.jobs = per_job.into_values().collect();
            w.jobs.sort_by(|a, b| {
                b.cost_usd
                    .total_cmp(&a.cost_usd)
                    .then_with(|| a.job.0.cmp(&b.job.0))
            });
            w
        })
        .collect();
    Report {
        tz,
        windows,
        skipped_usage: 0,
        skipped_runs: 0,
    }
}

/// Reads both files of `data_dir` and adds them up for `days` (see [`windows_for`]); lines
/// that do not parse are left out, counted in the report and logged.
pub fn read(
    data_dir: &DataDir,
    now: DateTime<Utc>,
    tz: Tz,
    days: Option<u32>,
) -> Result<Report, ReportError> {
    if let Some(d) = days.filter(|d| !(1..=MAX_DAYS).contains(d)) {
        return Err(ReportError::BadDays(d.to_string()));
    }
    let usage_path = data_dir.state_file(file::FILE_NAME);
    let usage = file::read(&usage_path)?;
    let runs_path = data_dir.state_file(history_file::FILE_NAME);
    let runs = history_file::read(&runs_path)?;
    for (path, skipped) in [(&usage_path, usage.skipped), (&runs_path, runs.skipped)] {
        if skipped > 0 {
            tracing::warn!(file = %path.display(), skipped, "lines that do not parse were left out of the usage figures");
        }
    }
    let mut report = build(&usage.records, &runs.records, now, tz, &windows_for(days));
    report.skipped_usage = usage.skipped;
    report.skipped_runs = runs.skipped;
    Ok(report)
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
