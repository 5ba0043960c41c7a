//! `ollim-bot reminder add|list|cancel|history`.
//!
//! ```text
//! ollim-bot reminder add --delay 30 -m "take a break" [--background] [--max-chain 3] [...]
//! ollim-bot reminder list
//! ollim-bot reminder cancel a1b2c3d4
//! ollim-bot reminder history [a1b2c3d4] [--limit 20]
//! ```
//! `--chain-depth` and `--chain-parent` are internal: `follow_up_chain` uses them to schedule
//! the next link of a chain.

use anyhow::{bail, Context};
use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use clap::Subcommand;
use ollim_actors::data_dir::DataDir;
use ollim_actors::jobs::{store, JobId, Reminder};
use ollim_actors::runs::JobKind;

use super::job_flags::{describe_schedule, summary, JobFlags};

/// Longest delay accepted: ten years, far beyond any reminder, small enough for date maths.
const MAX_DELAY_MINUTES: i64 = 10 * 366 * 24 * 60;

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

fn schedule(r: &Reminder) -> String {
    let when: String = r.run_at_raw.chars().take(16).collect();
    let mut s = describe_schedule(format!("at {when}"), &r.settings);
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
            job,
        } => {
            if delay < 0 {
                bail!("--delay must be zero or more minutes (got {delay})");
            }
            if delay > MAX_DELAY_MINUTES {
                bail!("--delay {delay} is too far ahead (at most {MAX_DELAY_MINUTES} minutes)");
            }
            if chain_depth > max_chain {
                bail!("--chain-depth {chain_depth} is above --max-chain {max_chain}");
            }
            let message = job.checked_message().map_err(anyhow::Error::msg)?;
            let run_at = (now + Duration::minutes(delay))
                .with_timezone(&tz)
                .fixed_offset();
            let id = JobId::random();
            let chain_parent = match chain_parent.filter(|p| !p.trim().is_empty()) {
                Some(parent) => Some(
                    JobId::parse(&parent)
                        .map_err(|e| anyhow::anyhow!("--chain-parent: {e}"))?
                        .0,
                ),
                None => (max_chain > 0).then(|| id.0.clone()),
            };
            let reminder = Reminder {
                run_at_raw: run_at.format("%Y-%m-%dT%H:%M:%S%.6f%:z").to_string(),
                run_at,
                id,
                message,
                chain_depth,
                max_chain,
                chain_parent,
                settings: job.settings(),
            };
            data.ensure().context("preparing the data directory")?;
            let path = store::write(&data.reminders(), &reminder)
                .with_context(|| format!("saving reminder {}", reminder.id))?;
            data.commit(&path, &format!("add reminder {}", reminder.id));
            println!(
                "scheduled {}: {} -- {}",
                reminder.id,
                schedule(&reminder),
                summary(&reminder.settings, &reminder.message)
            );
        }
        ReminderCommand::List => {
            let loaded = store::load_dir::<Reminder>(&data.reminders())
                .with_context(|| format!("reading {}", data.reminders().display()))?;
            if loaded.items.is_empty() {
                println!("no pending reminders");
            }
            let mut items: Vec<_> = loaded.items.iter().map(|(_, r)| r).collect();
            items.sort_by_key(|r| r.run_at);
            for r in items {
                println!(
                    "  {}  {:24}  {}",
                    r.id,
                    schedule(r),
                    summary(&r.settings, &r.message)
                );
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
