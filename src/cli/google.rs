//! What `tasks`, `cal` and `gmail` share: Google for this data directory (`OLLIM_DATA_DIR`,
//! `OLLIM_GOOGLE_API_BASE`), the zone times are read and shown in (`OLLIM_TIMEZONE`), the
//! calendars and task list `/config` chose (`google_calendars`, `google_task_list` in
//! `state/config.json`), and a small runtime to make the calls on. Arguments are checked before
//! anything is read or sent.

use std::future::Future;

use anyhow::Context;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use ollim_actors::google::{Api, Paths};
use ollim_actors::runtime_config::{google as targets, GoogleTargets};
use ollim_actors::settings;

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
}

impl Google {
    /// Reads the environment.
    pub fn from_env(get: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let problem = |p: settings::Problem| anyhow::anyhow!("{}: {}", p.variable, p.detail);
        let tz = settings::zone_from(get).map_err(problem)?;
        let base = settings::google_api_from(get).map_err(problem)?;
        let paths = Paths::in_data_dir(&settings::data_dir_from(get));
        let targets = targets::read_file(&paths.config).unwrap_or_else(|why| {
            eprintln!("warning: {why}; using the primary calendar and the default task list");
            GoogleTargets::default()
        });
        Ok(Google {
            api: Api::new(paths, base)?,
            tz,
            now: Utc::now(),
            targets,
        })
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
