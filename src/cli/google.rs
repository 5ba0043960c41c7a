//! What `tasks`, `cal` and `gmail` share: Google for this data directory (`OLLIM_DATA_DIR`,
//! `OLLIM_GOOGLE_API_BASE`), the zone times are read and shown in (`OLLIM_TIMEZONE`), the
//! calendars and task list `/config` chose (`google_calendars`, `google_task_list` in
//! `state/config.json`), and a small runtime to make the calls on. Arguments are checked before
//! anything is read or sent. Whatever Google holds that others wrote (mail, events, tasks,
//! calendar and label names) is printed inside an `UNTRUSTED` fence ([`Google::print_outside`]).

use std::future::Future;
use std::path::PathBuf;

use anyhow::Context;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use ollim_actors::base::settings;
use ollim_actors::google::{Api, Paths};
use ollim_actors::records::runtime_config::{google as targets, GoogleTargets};
use ollim_actors::{agent::outside_reads, agent::untrusted_fence};

/// What a bad `--calendar` is told it is not.
const CALENDAR_ID: &str = "a calendar id (`ollim-bot cal calendars` lists them)";

/// A `--calendar`/`--list` value: one id, not blank, without spaces.
fn checked(flag: &str, what: &str, value: Option<String>) -> anyhow::Result<Option<String>> {
    match value {
        Some(v) if v.trim().is_empty() || v.chars().any(char::is_whitespace) => {
            anyhow::bail!("{flag} {v:?} is not {what}")
        }
        other => Ok(other),
    }
}

/// Google as the command line uses it.
pub struct Google {
    /// The files and the REST base.
    pub api: Api,
    /// `OLLIM_TIMEZONE`.
    pub tz: Tz,
    /// When the command started.
    pub now: DateTime<Utc>,
    /// The configured calendars and task list.
    pub targets: GoogleTargets,
    /// `state/` of the data directory (where an outside read is noted).
    pub state_dir: PathBuf,
    /// The background fork's token, when a fork's agent runs this command
    /// ([`outside_reads::TOKEN_ENV`]).
    pub read_token: Option<String>,
}

impl Google {
    /// Reads the environment.
    pub fn from_env(get: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let problem = |p: settings::Problem| anyhow::anyhow!("{}: {}", p.variable, p.detail);
        let tz = settings::zone_from(get).map_err(problem)?;
        let base = settings::google_api_from(get).map_err(problem)?;
        let data_dir = settings::data_dir_from(get);
        let paths = Paths::in_data_dir(&data_dir);
        let targets = targets::read_file(&paths.config).unwrap_or_else(|why| {
            eprintln!("warning: {why}; using the primary calendar and the default task list");
            GoogleTargets::default()
        });
        Ok(Google {
            api: Api::new(paths, base)?,
            tz,
            now: Utc::now(),
            targets,
            state_dir: data_dir.state(),
            read_token: get(outside_reads::TOKEN_ENV),
        })
    }

    /// Prints `lines` of outside text (from `source`, e.g. "gmail message") inside an
    /// `UNTRUSTED` fence (SPEC §20), after noting the read for the background fork running
    /// this command, if any. A read that cannot be noted is not printed.
    pub fn print_outside(&self, source: &str, lines: &[String]) -> anyhow::Result<()> {
        if let Some(token) = &self.read_token {
            outside_reads::note(&self.state_dir, token)
                .context("could not note that outside text is being read; nothing printed")?;
        }
        println!("{}", untrusted_fence::fence(source, &lines.join("\n")));
        Ok(())
    }

    /// The task list to use: `--list`, else `google_task_list`.
    pub fn task_list(&self, flag: Option<String>) -> anyhow::Result<String> {
        Ok(checked("--list", "a task list id", flag)?
            .unwrap_or_else(|| self.targets.task_list().to_owned()))
    }

    /// The calendar a single-event command uses: `--calendar`, else the first of
    /// `google_calendars`.
    pub fn write_calendar(&self, flag: Option<String>) -> anyhow::Result<String> {
        Ok(checked("--calendar", CALENDAR_ID, flag)?
            .unwrap_or_else(|| self.targets.write_calendar().to_owned()))
    }

    /// The calendars a listing reads: `--calendar` alone, else all of `google_calendars`.
    pub fn read_calendars(&self, flag: Option<String>) -> anyhow::Result<Vec<String>> {
        Ok(checked("--calendar", CALENDAR_ID, flag)?
            .map_or_else(|| self.targets.calendars().to_vec(), |c| vec![c]))
    }

    /// Runs `call` to the end on a single-threaded runtime.
    pub fn block_on<T>(&self, call: impl Future<Output = anyhow::Result<T>>) -> anyhow::Result<T> {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting the runtime for Google's calls")?
            .block_on(call)
    }
}
