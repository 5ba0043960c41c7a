//! `ollim-bot reminder add|list|cancel|history`.
//!
//! ```text
//! ollim-bot reminder add --delay 30 -m "take a break" [--foreground] [--max-chain 3] [...]
//! ollim-bot reminder list               # a copy of another file's id: [ignored: duplicate id of …],
//!                                       # then `ignored file: …` on a line of its own
//! ollim-bot reminder cancel a1b2c3d4
//! ollim-bot reminder history [a1b2c3d4] [--limit 20]
//! ```
//! `--chain-depth` and `--chain-parent` are internal: `follow_up_chain` uses them to schedule
//! the next link of a chain.

use anyhow::{bail, Context};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use clap::Subcommand;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::jobs::new_reminder::{self, Invalid, NewReminder, When, MAX_DELAY_MINUTES};
use ollim_actors::jobs::{store, JobId, Reminder};
use ollim_actors::records::runs::JobKind;

use super::job_flags::{describe_schedule, ignored_marks, summary, JobFlags};

/// A refusal of the shared reminder rules, in the words of this command's flags.
fn flag_words(invalid: &Invalid) -> String {
    match invalid {
        Invalid::NegativeDelay(delay) => {
            format!("--delay must be zero or more minutes (got {delay})")
        }
        Invalid::DelayTooFar(delay) => {
            format!("--delay {delay} is too far ahead (at most {MAX_DELAY_MINUTES} minutes)")
        }
        Invalid::DepthAboveMax { depth, max } => {
            format!("--chain-depth {depth} is above --max-chain {max}")
        }
        Invalid::EmptyMessage => "the message (-m) must not be empty".to_owned(),
        Invalid::ChainParent(e) => format!("--chain-parent: {e}"),
        other => other.to_string(),
    }
}

/// Reminder subcommands.
#[derive(Debug, Subcommand)]
pub enum ReminderCommand {
    /// Schedule a one-shot reminder.
    Add {
        /// Fire in this many minutes.
        #[arg(long, allow_negative_numbers = true)]
        delay: i64,
        /// How many follow-ups the agent may chain with follow_up_chain (0 = none).
        #[arg(long, default_value_t = 0)]
        max_chain: u32,
        /// Internal: this link's depth in its chain.
        #[arg(long, default_value_t = 0, hide = true)]
        chain_depth: u32,
        /// Internal: the chain root's id.
        #[arg(long, hide = true)]
        chain_parent: Option<String>,
        /// Run in the main conversation instead of a background fork.
        #[arg(long, conflicts_with = "background")]
        foreground: bool,
        /// Deprecated: reminders run in the background unless --foreground is given.
        #[arg(long)]
        background: bool,
        /// The job's options.
        #[command(flatten)]
        job: JobFlags,
    },
    /// Show pending reminders.
    List,
    /// Remove a reminder by id.
    Cancel {
        /// The reminder's id (from `reminder list`).
        id: String,
    },
    /// Show the reminders' run history (newest last).
    History {
        /// Only this reminder's runs.
        id: Option<String>,
        /// How many lines.
        #[arg(long, default_value_t = super::run_history::DEFAULT_LIMIT)]
        limit: usize,
    },
}

/// `[fg] at 2026-02-25 14:30  (chain 1/3)`: the time in the configured zone, whatever offset
/// the file carries.
fn schedule(r: &Reminder, tz: Tz) -> String {
    let when = r.run_at.with_timezone(&tz).format("%Y-%m-%d %H:%M");
    let mut s = describe_schedule(format!("at {when}"), &r.settings, true);
    if r.max_chain > 0 {
        s.push_str(&format!("  (chain {}/{})", r.chain_depth, r.max_chain));
    }
    s
}

/// Runs a reminder subcommand against the data directory, with `now` in zone `tz`.
pub fn run(cmd: ReminderCommand, data: &DataDir, tz: Tz, now: DateTime<Utc>) -> anyhow::Result<()> {
    match cmd {
        ReminderCommand::Add {
            delay,
            max_chain,
            chain_depth,
            chain_parent,
            foreground,
            background,
            job,
        } => {
            if background {
                eprintln!(
                    "warning: --background is deprecated: reminders run in the background unless --foreground is given"
                );
            }
            let request = NewReminder {
                message: job.message.clone(),
                when: When::InMinutes(delay),
                max_chain,
                chain_depth,
                chain_parent,
                settings: job.settings(!foreground),
            };
            // Validated before anything is created: a rejected command writes nothing.
            let reminder = request
                .build(tz, now)
                .map_err(|invalid| anyhow::anyhow!(flag_words(&invalid)))?;
            data.ensure().context("preparing the data directory")?;
            new_reminder::save(data, &reminder)
                .with_context(|| format!("saving reminder {}", reminder.id))?;
            println!(
                "scheduled {}: {} -- {}",
                reminder.id,
                schedule(&reminder, tz),
                summary(&reminder.settings, &reminder.message)
            );
        }
        ReminderCommand::List => {
            let loaded = store::load_dir::<Reminder>(&data.reminders())
                .with_context(|| format!("reading {}", data.reminders().display()))?;
            if loaded.items.is_empty() {
                println!("no pending reminders");
            }
            let ignored = ignored_marks(data, loaded.duplicates());
            let mut items: Vec<_> = loaded.items.iter().collect();
            items.sort_by_key(|(_, r)| r.run_at);
            for (path, r) in items {
                let mut line = format!(
                    "  {}  {:24}  {}",
                    r.id,
                    schedule(r, tz),
                    summary(&r.settings, &r.message)
                );
                if let Some(mark) = ignored.get(path) {
                    line.push_str(mark);
                }
                println!("{line}");
            }
        }
        ReminderCommand::Cancel { id } => {
            let id = JobId::parse(&id)?;
            match store::remove(&data.reminders(), id.as_str())
                .with_context(|| format!("removing reminder {id}"))?
            {
                Some(path) => {
                    data.commit(&path, &format!("remove reminder {id}"));
                    println!("cancelled {id}");
                }
                None => bail!("reminder {id} not found"),
            }
        }
        ReminderCommand::History { id, limit } => {
            super::run_history::print(data, JobKind::Reminder, id, limit, tz)?;
        }
    }
    Ok(())
}
