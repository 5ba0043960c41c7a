//! `ollim-bot usage [--days N] [--by-job]` *(ours, SPEC §19)*: what the assistant cost today,
//! over 7 and 30 days (or today and N days), the conversation (`state/usage.jsonl`) against the
//! jobs (`state/runs.jsonl`), tokens, and with `--by-job` every job under every window. Read
//! straight from the files, so it works with the bot stopped; days start at local midnight in
//! OLLIM_TIMEZONE. Lines that do not read are left out with a warning on stderr.

use clap::Args;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::records::usage::render::{self, JobList};
use ollim_actors::records::usage::report;

/// `ollim-bot usage`'s flags.
#[derive(Debug, Args)]
pub struct UsageArgs {
    /// Add up today and the last N days (1-400) instead of today, 7 and 30 days.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(report::MAX_DAYS)))]
    pub days: Option<u32>,
    /// List every job's cost and runs under each window, not just the top few.
    #[arg(long)]
    pub by_job: bool,
}

/// Prints the report.
pub fn run(
    args: &UsageArgs,
    data: &DataDir,
    tz: chrono_tz::Tz,
    now: chrono::DateTime<chrono::Utc>,
) -> anyhow::Result<()> {
    let report = report::read(data, now, tz, args.days)?;
    for (skipped, name) in [
        (report.skipped_usage, "state/usage.jsonl"),
        (report.skipped_runs, "state/runs.jsonl"),
    ] {
        if skipped > 0 {
            eprintln!("warning: {skipped} line(s) of {name} do not read and are left out");
        }
    }
    let jobs = if args.by_job {
        JobList::All
    } else {
        JobList::Top(render::TOP_JOBS)
    };
    println!("{}", render::text(&report, jobs));
    Ok(())
}
