//! The UsageLog actor *(ours, SPEC §19)*: the one writer of `state/usage.jsonl`, what each
//! model turn of the conversation and of interactive forks cost ([`record`], [`file`]), and
//! the `/usage` figures shared by Discord, the console and `ollim-bot usage` ([`report`],
//! [`render`]).
//!
//! | message | sent by | answer |
//! | --- | --- | --- |
//! | [`RecordTurn`] | the main session and each interactive fork, when a turn's result comes | — |
//! | [`GetReport`] | `/usage` on Discord and the console | the [`Report`] |
//! | [`GetDaily`] | the dashboard's Spend page | each of the last days' [`DaySpend`] |
//!
//! Jobs' turns are not recorded here: the run history (`state/runs.jsonl`, the `runs` module)
//! already carries each run's cost, and the report adds the two. Lines older than 400 days are
//! pruned at start and then at most once a day, when a line is appended.

pub mod daily;
pub mod file;
pub mod record;
pub mod render;
pub mod report;

use std::path::PathBuf;

use actix::prelude::*;
use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
pub use daily::{DaySpend, GetDaily};
pub use record::{UsageKind, UsageRecord};
pub use report::{Report, ReportError};

/// Record one turn's usage (appended as one line).
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct RecordTurn(pub UsageRecord);

/// Asks for the `/usage` figures over `days` (today, 7 and 30 days when `None`), read from
/// `state/usage.jsonl` and `state/runs.jsonl` now.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<Report, ReportError>")]
pub struct GetReport {
    /// The longer window, in days (1 to 400).
    pub days: Option<u32>,
}

/// The actor.
pub struct UsageLog {
    data_dir: DataDir,
    path: PathBuf,
    clock: SharedClock,
    zone: Tz,
    /// The file ends in a torn line: the next append starts a fresh one.
    torn_end: bool,
    last_prune: Option<DateTime<Utc>>,
}

impl UsageLog {
    /// A usage log over `data_dir`'s `state/usage.jsonl`; it is pruned when the actor starts.
    pub fn in_data_dir(data_dir: &DataDir, clock: SharedClock, zone: Tz) -> Self {
        UsageLog {
            data_dir: data_dir.clone(),
            path: data_dir.state_file(file::FILE_NAME),
            clock,
            zone,
            torn_end: false,
            last_prune: None,
        }
    }

    fn prune(&mut self) {
        let now = self.clock.now();
        self.last_prune = Some(now);
        match file::prune(&self.path, now) {
            Ok(p) => {
                if p.removed > 0 {
                    tracing::info!(pruned = p.removed, "usage history pruned");
                }
                if p.unreadable > 0 {
                    tracing::warn!(file = %self.path.display(), lines = p.unreadable, "usage lines that do not parse were kept as they are and are left out of /usage");
                }
            }
            Err(e) => tracing::error!(cause = %e, "could not prune the usage history"),
        }
        match file::torn_end(&self.path) {
            Ok(torn) => self.torn_end = torn,
            Err(e) => tracing::error!(cause = %e, "could not read the usage history"),
        }
    }
}

impl Actor for UsageLog {
    type Context = Context<Self>;

    fn started(&mut self, _ctx: &mut Self::Context) {
        let span = tracing::info_span!("actor", actor = "usage_log");
        let _e = span.enter();
        self.prune();
        tracing::info!("usage log started");
    }
}

/// After a restart `started` reads the file again.
impl Supervised for UsageLog {}

impl Handler<RecordTurn> for UsageLog {
    type Result = ();
    fn handle(&mut self, RecordTurn(record): RecordTurn, _ctx: &mut Self::Context) {
        let due = self
            .last_prune
            .is_none_or(|at| self.clock.now() - at > Duration::days(1));
        if due {
            self.prune();
        }
        match file::append(&self.path, &record, self.torn_end) {
            Ok(()) => self.torn_end = false,
            Err(e) => tracing::error!(cause = %e, "could not append to the usage history"),
        }
        tracing::debug!(
            kind = record.kind.as_str(),
            cost_usd = record.cost_usd,
            "turn usage recorded"
        );
    }
}

impl Handler<GetReport> for UsageLog {
    type Result = Result<Report, ReportError>;
    fn handle(&mut self, msg: GetReport, _ctx: &mut Self::Context) -> Self::Result {
        report::read(&self.data_dir, self.clock.now(), self.zone, msg.days)
    }
}

#[cfg(test)]
#[path = "log_tests.rs"]
mod tests;
