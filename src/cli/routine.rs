//! `ollim-bot routine add|list|cancel|run|pause|resume|history`.
//!
//! ```text
//! ollim-bot routine add --cron "30 8 * * 1-5" -m "Morning briefing" [--catch-up 30m|none] [...]
//! ollim-bot routine add --cron "0 17 * * 5" -m "Weekly review" --background --session persistent
//! ollim-bot routine list                # a copy of another file's id: [ignored: duplicate id of …],
//!                                       # then `ignored file: …` on a line of its own
//! ollim-bot routine cancel a1b2c3d4
//! ollim-bot routine run a1b2c3d4        # now, through the running bot
//! ollim-bot routine pause a1b2c3d4      # `paused: true` in its file: listed, never fires
//! ollim-bot routine resume a1b2c3d4
//! ollim-bot routine history [a1b2c3d4] [--limit 20]
//! ```

use anyhow::{bail, Context};
use chrono_tz::Tz;
use clap::Subcommand;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::bot::control_socket;
use ollim_actors::jobs::catch_up::CatchUp;
use ollim_actors::jobs::pause::{self, PauseOutcome};
use ollim_actors::jobs::session_mode::{self, SessionMode};
use ollim_actors::jobs::yaml_scalars::Text;
use ollim_actors::jobs::{store, JobId, Routine};
use ollim_actors::records::runs::JobKind;
use ollim_actors::scheduling::scheduler::cron::CronSchedule;

use super::job_flags::{describe_schedule, ignored_marks, summary, JobFlags};

/// Routine subcommands.
#[derive(Debug, Subcommand)]
pub enum RoutineCommand {
    /// Add a recurring routine.
    Add {
        /// Five-field cron expression, evaluated in OLLIM_TIMEZONE (e.g. "0 9 * * 1-5").
        #[arg(long)]
        cron: String,
        /// How late a time missed while the bot was down may still run: 30m, 2h, 1d or none
        /// (default: the /config key catch_up_window).
        #[arg(long, value_parser = parse_catch_up)]
        catch_up: Option<CatchUp>,
        /// Run in a background fork instead of the main conversation.
        #[arg(long)]
        background: bool,
        /// `persistent`: every fire resumes the routine's own session instead of forking the
        /// conversation, so it remembers its earlier runs (needs --background, not --isolated).
        #[arg(long, value_parser = parse_session)]
        session: Option<SessionMode>,
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
    /// Run a routine now, through the running bot.
    Run {
        /// The routine's id.
        id: String,
    },
    /// Pause a routine: it stays listed and never fires until resumed.
    Pause {
        /// The routine's id.
        id: String,
    },
    /// Resume a paused routine.
    Resume {
        /// The routine's id.
        id: String,
    },
    /// Show the routines' run history (newest last).
    History {
        /// Only this routine's runs.
        id: Option<String>,
        /// How many lines.
        #[arg(long, default_value_t = super::run_history::DEFAULT_LIMIT)]
        limit: usize,
    },
}

fn parse_catch_up(s: &str) -> Result<CatchUp, String> {
    s.parse()
        .map_err(|e: ollim_actors::jobs::catch_up::BadCatchUp| e.to_string())
}

fn parse_session(s: &str) -> Result<SessionMode, String> {
    match s.trim() {
        "persistent" => Ok(SessionMode::Persistent),
        other => Err(format!(
            "{other:?} is not a session mode: the only one is persistent"
        )),
    }
}

fn schedule(r: &Routine) -> String {
    let mut s = describe_schedule(format!("cron '{}'", r.cron), &r.settings, false);
    if r.session == SessionMode::Persistent {
        s.push_str("  [persistent]");
    }
    if r.catch_up != CatchUp::Default {
        s.push_str(&format!("  (catch-up: {})", r.catch_up));
    }
    if r.paused {
        s.push_str("  PAUSED");
    }
    s
}

/// Runs a routine subcommand against the data directory (times shown in `tz`).
pub fn run(cmd: RoutineCommand, data: &DataDir, tz: Tz) -> anyhow::Result<()> {
    match cmd {
        RoutineCommand::Add {
            cron,
            catch_up,
            background,
            session,
            job,
        } => {
            let cron = cron.trim().to_owned();
            CronSchedule::parse(&cron)
                .map_err(|e| anyhow::anyhow!("invalid cron {cron:?}: {e}"))?;
            let message = job.checked_message().map_err(anyhow::Error::msg)?;
            let settings = job.settings(background);
            // Checked as the loader will check the file it writes.
            let session = session_mode::parse(
                session.and_then(|s| s.as_str()).map(|s| Text(s.to_owned())),
                &settings,
            )?;
            let routine = Routine {
                id: JobId::random(),
                message,
                cron,
                settings,
                paused: false,
                catch_up: catch_up.unwrap_or_default(),
                session,
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
            let ignored = ignored_marks(data, loaded.duplicates());
            for (path, r) in &loaded.items {
                // The file only promises five fields; the scheduler refuses what does not parse.
                let shown = match CronSchedule::parse(&r.cron) {
                    Ok(_) => schedule(r),
                    Err(e) => format!("INVALID {} ({e}; never fires)", schedule(r)),
                };
                let mut line = format!(
                    "  {}  {:24}  {}",
                    r.id,
                    shown,
                    summary(&r.settings, &r.message)
                );
                if let Some(mark) = ignored.get(path) {
                    line.push_str(mark);
                }
                println!("{line}");
            }
        }
        RoutineCommand::Cancel { id } => {
            let id = JobId::parse(&id)?;
            match store::remove(&data.routines(), id.as_str())
                .with_context(|| format!("removing routine {id}"))?
            {
                Some(path) => {
                    data.commit(&path, &format!("remove routine {id}"));
                    // A persistent routine's own session goes with it.
                    if let Err(e) =
                        ollim_actors::scheduling::routine_sessions::remove(data, id.as_str())
                    {
                        eprintln!("warning: could not remove routine {id}'s session: {e}");
                    }
                    println!("cancelled {id}");
                }
                None => bail!("routine {id} not found"),
            }
        }
        RoutineCommand::Run { id } => {
            let id = JobId::parse(&id)?;
            let socket = data.state_file(control_socket::FILE_NAME);
            let answer = control_socket::request(
                &socket,
                data.root(),
                &control_socket::Request::RunRoutine(id.0),
            )?;
            if !answer.ok {
                bail!("{}", answer.message);
            }
            println!("{}", answer.message);
        }
        RoutineCommand::Pause { id } => set_paused(data, &id, true)?,
        RoutineCommand::Resume { id } => set_paused(data, &id, false)?,
        RoutineCommand::History { id, limit } => {
            super::run_history::print(data, JobKind::Routine, id, limit, tz)?;
        }
    }
    Ok(())
}

/// Pauses or resumes routine `id` in its file (a running bot notices within a second).
fn set_paused(data: &DataDir, id: &str, paused: bool) -> anyhow::Result<()> {
    let id = JobId::parse(id)?;
    let (verb, state) = if paused {
        ("pause", "paused")
    } else {
        ("resume", "running")
    };
    match pause::set_paused(&data.routines(), &id, paused)
        .with_context(|| format!("{verb} routine {id}"))?
    {
        PauseOutcome::Changed { routine, path } => {
            data.commit(&path, &format!("{verb} routine {id}"));
            let what = summary(&routine.settings, &routine.message);
            if paused {
                let undo = ollim_actors::base::own_command::in_text(&format!(
                    "`ollim-bot routine resume {id}`"
                ));
                println!("paused {id} -- {what} (listed, never fires; {undo} to undo)");
            } else {
                println!("resumed {id} -- {what}");
            }
        }
        PauseOutcome::Already { .. } => println!("{id} is already {state}"),
        PauseOutcome::NotFound => bail!("routine {id} not found"),
    }
    Ok(())
}
