//! `ollim-bot routine add|list|cancel`.
//!
//! ```text
//! ollim-bot routine add --cron "30 8 * * 1-5" -m "Morning briefing" [--background] [...]
//! ollim-bot routine list
//! ollim-bot routine cancel a1b2c3d4
//! ```

use anyhow::{bail, Context};
use clap::Subcommand;
use ollim_actors::data_dir::DataDir;
use ollim_actors::jobs::{store, JobId, Routine};
use ollim_actors::scheduler::cron::CronSchedule;

use super::job_flags::{describe_schedule, summary, JobFlags};

/// Routine subcommands.
#[derive(Debug, Subcommand)]
pub enum RoutineCommand {
    /// Add a recurring routine.
    Add {
        /// Five-field cron expression, evaluated in OLLIM_TIMEZONE (e.g. "0 9 * * 1-5").
        #[arg(long)]
        cron: String,
        /// The job's options.
        #[command(flatten)]
        job: JobFlags,
    },
    /// Show all routines.
    List,
    /// Remove a routine by id.
    Cancel {
        /// The routine's id (from `routine list`).
        id: String,
    },
}

fn schedule(r: &Routine) -> String {
    describe_schedule(format!("cron '{}'", r.cron), &r.settings)
}

/// Runs a routine subcommand against the data directory.
pub fn run(cmd: RoutineCommand, data: &DataDir) -> anyhow::Result<()> {
    match cmd {
        RoutineCommand::Add { cron, job } => {
            let cron = cron.trim().to_owned();
            CronSchedule::parse(&cron)
                .map_err(|e| anyhow::anyhow!("invalid cron {cron:?}: {e}"))?;
            let message = job.checked_message().map_err(anyhow::Error::msg)?;
            let routine = Routine {
                id: JobId::random(),
                message,
                cron,
                settings: job.settings(),
            };
            data.ensure().context("preparing the data directory")?;
            let path = store::write(&data.routines(), &routine)
                .with_context(|| format!("saving routine {}", routine.id))?;
            data.commit(&path, &format!("add routine {}", routine.id));
            println!(
                "scheduled {}: {} -- {}",
                routine.id,
                schedule(&routine),
                summary(&routine.settings, &routine.message)
            );
        }
        RoutineCommand::List => {
            let loaded = store::load_dir::<Routine>(&data.routines())
                .with_context(|| format!("reading {}", data.routines().display()))?;
            if loaded.items.is_empty() {
                println!("no routines");
            }
            for (_, r) in &loaded.items {
                // The file only promises five fields; the scheduler refuses what does not parse.
                let shown = match CronSchedule::parse(&r.cron) {
                    Ok(_) => schedule(r),
                    Err(e) => format!("INVALID {} ({e}; never fires)", schedule(r)),
                };
                println!(
                    "  {}  {:24}  {}",
                    r.id,
                    shown,
                    summary(&r.settings, &r.message)
                );
            }
        }
        RoutineCommand::Cancel { id } => {
            let id = JobId::parse(&id)?;
            match store::remove(&data.routines(), id.as_str())
                .with_context(|| format!("removing routine {id}"))?
            {
                Some(path) => {
                    data.commit(&path, &format!("remove routine {id}"));
                    println!("cancelled {id}");
                }
                None => bail!("routine {id} not found"),
            }
        }
    }
    Ok(())
}
