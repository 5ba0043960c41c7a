//! What `tasks`, `cal` and `gmail` share: Google for this data directory (`OLLIM_DATA_DIR`,
//! `OLLIM_GOOGLE_API_BASE`), the zone times are read and shown in (`OLLIM_TIMEZONE`), and a
//! small runtime to make the calls on. Arguments are checked before anything is read or sent.

use std::future::Future;

use anyhow::Context;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use ollim_actors::google::{Api, Paths};
use ollim_actors::settings;

/// Google as the command line uses it.
pub struct Google {
    /// The files and the REST base.
    pub api: Api,
    /// `OLLIM_TIMEZONE`.
    pub tz: Tz,
    /// When the command started.
    pub now: DateTime<Utc>,
}

impl Google {
    /// Reads the environment.
    pub fn from_env(get: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let problem = |p: settings::Problem| anyhow::anyhow!("{}: {}", p.variable, p.detail);
        let tz = settings::zone_from(get).map_err(problem)?;
        let base = settings::google_api_from(get).map_err(problem)?;
        let paths = Paths::in_data_dir(&settings::data_dir_from(get));
        Ok(Google {
            api: Api::new(paths, base)?,
            tz,
            now: Utc::now(),
        })
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
