//! A reflection file's text, as pure functions: the facts we know for certain about the run
//! ([`Facts`], from its line in the run history), the template the reflection model is asked to
//! complete ([`template`]), the trace read back from what it wrote ([`trace_in`]), and the file
//! we keep ([`render`]): always our facts, then the model's trace or why there is none.

use std::time::Duration;

use chrono::{DateTime, FixedOffset, Utc};

use crate::base::ellipsis::cut;
use crate::records::runs::{Outcome, RunRecord};
use crate::scheduling::fork::background::spoken;

/// What the model is asked to replace in the template.
pub const PLACEHOLDER: &str = "TRACE_PLACEHOLDER";

/// The trace's label, as the file and the template write it.
pub(super) const TRACE_LABEL: &str = "**Trace**:";

/// The longest trace kept from the model (it is asked for 1-3 sentences).
pub const MAX_TRACE_CHARS: usize = 1_500;

/// The longest report text quoted in the file.
const MAX_REPORT_CHARS: usize = 1_000;

/// What a reflection knows for certain about one background run: its job and its line in the
/// run history (outcome, marks, cost, turns, error), its reports, and its time limit.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    /// The run's line in `state/runs.jsonl`.
    pub record: RunRecord,
    /// The texts it reported back, in order.
    pub reports: Vec<String>,
    /// The time limit it ran under (`bg_fork_timeout`), for a timed-out status.
    pub timeout: Duration,
}

impl Facts {
    /// The prompt tag without brackets (`routine-bg:morning-checkin`), so the file never reads
    /// as a job's prompt.
    pub fn tag(&self) -> String {
        format!("{}:{}", self.record.tag, self.record.job)
    }

    /// `completed`, `timed out after 30 minutes`, or `failed: <error>` (the docs' wording).
    pub fn status(&self) -> String {
        match self.record.outcome {
            Outcome::Ok => "completed".to_owned(),
            Outcome::TimedOut => format!("timed out after {}", spoken(self.timeout)),
            Outcome::Failed => format!(
                "failed: {}",
                self.record
                    .error
                    .as_deref()
                    .unwrap_or("no error was reported")
            ),
            other => other.as_str().to_owned(),
        }
    }

    /// How long the run took, from its start to its end.
    fn took(&self) -> Option<String> {
        let started = self.record.started?;
        let secs = (self.record.ended - started).num_seconds().max(0);
        Some(match secs {
            s if s < 60 => format!("{s} s"),
            s if s < 3600 => format!("{} min {} s", s / 60, s % 60),
            s => format!("{} h {} min", s / 3600, (s % 3600) / 60),
        })
    }

    fn cost(&self) -> String {
        let turns = self.record.turns.map(|t| match t {
            1 => "1 turn".to_owned(),
            n => format!("{n} turns"),
        });
        match (self.record.cost_usd, turns) {
            (Some(cost), Some(turns)) => format!("${cost:.4} over {turns}"),
            (Some(cost), None) => format!("${cost:.4}"),
            (None, Some(turns)) => format!("unknown, {turns}"),
            (None, None) => "unknown".to_owned(),
        }
    }

    /// The header and the deterministic fields, up to (not including) the trace.
    fn head(&self) -> String {
        let r = &self.record;
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        let mut out = format!("# Reflection: {}\n\n", one_line(&r.name));
        out.push_str(&format!("- **Job**: {} ({})\n", self.tag(), r.file));
        let started = r
            .started
            .map(|s| format!(", started {}", s.format("%Y-%m-%d %H:%M:%S %:z")))
            .unwrap_or_default();
        let took = self
            .took()
            .map(|t| format!(", took {t}"))
            .unwrap_or_default();
        out.push_str(&format!("- **Run**: {}{started}{took}\n", r.run));
        out.push_str(&format!("- **Status**: {}\n", one_line(&self.status())));
        out.push_str(&format!("- **Report filed**: {}\n", yes_no(r.reported)));
        out.push_str(&format!("- **Pinged**: {}\n", yes_no(r.pinged)));
        let errors = r.error.as_deref().map(one_line);
        out.push_str(&format!(
            "- **Errors**: {}\n",
            errors.as_deref().unwrap_or("none")
        ));
        out.push_str(&format!("- **Cost**: {}\n", self.cost()));
        for report in &self.reports {
            out.push_str("- **Report**:\n");
            for line in cut(report, MAX_REPORT_CHARS).lines() {
                out.push_str(&format!("  > {line}\n"));
            }
        }
        out
    }
}

/// What became of the reflection model's part.
#[derive(Debug, Clone, PartialEq)]
pub enum Trace {
    /// Its sentences.
    Written(String),
    /// None could be made, and why (`the reflection model timed out after 60 seconds`).
    Missing(String),
}

/// What the reflection model cost, when it ran far enough to say.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelCost {
    /// The CLI's reported cost, in US dollars.
    pub cost_usd: Option<f64>,
    /// The CLI's reported model turns.
    pub turns: Option<u32>,
}

/// The text the reflection model is asked to write: our facts with [`PLACEHOLDER`] as the trace.
pub fn template(facts: &Facts) -> String {
    format!("{}\n{TRACE_LABEL} {PLACEHOLDER}\n", facts.head())
}

/// The file we keep: our facts (whatever the model copied), the trace or why there is none,
/// and what the reflection itself cost.
pub fn render(facts: &Facts, trace: &Trace, model: &str, cost: Option<ModelCost>) -> String {
    let trace = match trace {
        Trace::Written(text) => text.clone(),
        Trace::Missing(why) => format!("(none: the reflection could not be made — {why})"),
    };
    let mut out = format!("{}\n{TRACE_LABEL} {trace}\n", facts.head());
    if let Some(cost) = cost {
        let usd = cost
            .cost_usd
            .map(|c| format!("${c:.4}"))
            .unwrap_or_else(|| "cost unknown".to_owned());
        let turns = match cost.turns {
            Some(1) => ", 1 turn".to_owned(),
            Some(n) => format!(", {n} turns"),
            None => String::new(),
        };
        out.push_str(&format!("\n_Reflection by {model}: {usd}{turns}._\n"));
    }
    out
}

/// The trace in what the model wrote: the text after `**Trace**:` (else the whole text without
/// the lines that repeat our fields), cut at [`MAX_TRACE_CHARS`]; `None` when that is empty or
/// still the placeholder.
pub fn trace_in(written: &str) -> Option<String> {
    let text = match written.find(TRACE_LABEL) {
        Some(at) => written[at + TRACE_LABEL.len()..]
            .lines()
            .take_while(|l| !l.trim_start().starts_with("_Reflection"))
            .collect::<Vec<_>>()
            .join("\n"),
        None => written
            .lines()
            .filter(|l| {
                let l = l.trim_start();
                !(l.starts_with('#') || l.starts_with("- **") || l.starts_with('>'))
            })
            .collect::<Vec<_>>()
            .join("\n"),
    };
    let text = text.trim();
    if text.is_empty() || text.contains(PLACEHOLDER) {
        return None;
    }
    Some(cut(text, MAX_TRACE_CHARS))
}

/// The file's name for a run that ended at `ended`: UTC, `YYYY-MM-DDTHH-MM-SSZ` (hyphens for
/// colons, so every file system takes it), then `-2`, `-3`, … for `attempt` 2, 3, … (two runs
/// of one job ending in the same second).
pub fn file_name(ended: DateTime<FixedOffset>, attempt: u32) -> String {
    let stamp = ended.with_timezone(&Utc).format("%Y-%m-%dT%H-%M-%SZ");
    match attempt {
        0 | 1 => format!("{stamp}.md"),
        n => format!("{stamp}-{n}.md"),
    }
}

/// The directory name for a job id: the id itself when it is a safe single path segment (ids
/// read from files always are), else the id with every other character made a `-`.
pub fn dir_name(job: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let name: String = job.chars().map(|c| if safe(c) { c } else { '-' }).collect();
    if name.is_empty() || name.starts_with('.') {
        format!("job{name}")
    } else {
        name
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
