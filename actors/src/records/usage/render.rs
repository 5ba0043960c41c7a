//! The `/usage` report as text, the same on Discord, the console and `ollim-bot usage`:
//!
//! ```text
//! today (since 00:00, Europe/Berlin): $0.3500
//!   conversation  $0.1000 · 2 turns · tokens 1,234 in, 56 out, 7,890 cache read, 12 cache write
//!   forks         $0.0500 · 1 turn · tokens 20 in, 5 out, 0 cache read, 0 cache write
//!   jobs          $0.2000 · 1 run
//! ...
//! top jobs, last 30 days:
//!   $0.2000 · 1 run · routine a1b2c3d4 · Morning check-in
//! ```

use super::report::{JobTotals, Report, Totals, Window};

/// Which jobs to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobList {
    /// The most expensive few of the longest window (Discord, the console).
    Top(usize),
    /// Every job, under every window (`ollim-bot usage --by-job`).
    All,
}

/// How many jobs Discord and the console list.
pub const TOP_JOBS: usize = 5;

/// The note every report ends with.
pub const SUBSCRIPTION_NOTE: &str =
    "dollar figures are the claude CLI's; on a Claude subscription \
they estimate API prices, not a charge.";

/// The longest job name shown (the id says which job it is).
const NAME_CHARS: usize = 40;

/// Dollars as shown: four decimals, so small turns do not read as nothing.
pub fn usd(v: f64) -> String {
    format!("${v:.4}")
}

/// A count with thousands separated: `12,345`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {one}s", count(n))
    }
}

fn title(w: &Window, zone: &str) -> String {
    if w.days == 1 {
        format!("today (since 00:00, {zone})")
    } else {
        format!(
            "last {} days (since {})",
            w.days,
            w.since.format("%a %Y-%m-%d")
        )
    }
}

fn session_line(label: &str, t: &Totals) -> String {
    format!(
        "  {label:<13} {} · {} · tokens {} in, {} out, {} cache read, {} cache write",
        usd(t.cost_usd),
        plural(t.turns, "turn"),
        count(t.input_tokens),
        count(t.output_tokens),
        count(t.cache_read_tokens),
        count(t.cache_write_tokens),
    )
}

fn job_line(j: &JobTotals) -> String {
    let kind = match j.kind {
        crate::records::runs::JobKind::Routine => "routine",
        crate::records::runs::JobKind::Reminder => "reminder",
        crate::records::runs::JobKind::Webhook => "webhook",
    };
    format!(
        "  {} · {} · {kind} {} · {}",
        usd(j.cost_usd),
        plural(j.runs, "run"),
        j.job,
        shortened(&j.name)
    )
}

fn shortened(name: &str) -> String {
    if name.chars().count() <= NAME_CHARS {
        return name.to_owned();
    }
    let cut: String = name.chars().take(NAME_CHARS - 1).collect();
    format!("{cut}…")
}

/// The report as lines of text.
pub fn text(report: &Report, jobs: JobList) -> String {
    let zone = report.tz.name();
    let mut out = Vec::new();
    for w in &report.windows {
        out.push(format!("{}: {}", title(w, zone), usd(w.total_usd())));
        out.push(session_line("conversation", &w.conversation));
        out.push(session_line("forks", &w.forks));
        out.push(format!(
            "  {:<13} {} · {}",
            "jobs",
            usd(w.jobs_cost_usd),
            plural(w.job_runs, "run")
        ));
        if jobs == JobList::All {
            out.extend(w.jobs.iter().map(|j| format!("  {}", job_line(j))));
        }
    }
    if let (JobList::Top(n), Some(longest)) = (jobs, report.windows.last()) {
        if !longest.jobs.is_empty() {
            out.push(if longest.days == 1 {
                "top jobs, today:".to_owned()
            } else {
                format!("top jobs, last {} days:", longest.days)
            });
            out.extend(longest.jobs.iter().take(n).map(job_line));
        }
    }
    if report.windows.iter().any(|w| w.days > 30) {
        out.push("job runs are kept 30 days: older ones are not counted.".to_owned());
    }
    for (skipped, name) in [
        (report.skipped_usage, "state/usage.jsonl"),
        (report.skipped_runs, "state/runs.jsonl"),
    ] {
        if skipped > 0 {
            out.push(format!(
                "warning: {} of {name} could not be read and {} left out.",
                plural(skipped as u64, "line"),
                if skipped == 1 { "is" } else { "are" }
            ));
        }
    }
    out.push(format!("note: {SUBSCRIPTION_NOTE}"));
    out.join("\n")
}
