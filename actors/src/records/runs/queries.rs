//! The run log's questions: history lines ([`History`]), each job's last line ([`LatestRuns`]),
//! and when each job was last considered ([`Considered`]).

use std::collections::HashMap;

use actix::prelude::*;
use chrono::{DateTime, FixedOffset, Utc};

use super::record::{JobKind, RunRecord, Trigger};
use super::RunLog;
use crate::jobs::JobId;

/// Asks for history lines, newest last.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Vec<RunRecord>")]
pub struct History {
    /// Only this job's.
    pub job: Option<JobId>,
    /// Only this kind's.
    pub kind: Option<JobKind>,
    /// At most this many (the newest).
    pub limit: usize,
}

/// Asks for each job's last line.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "HashMap<JobId, RunRecord>")]
pub struct LatestRuns;

/// Asks when each job's fire times were last considered (ran, were missed or caught up, or are
/// running), and since when there is a history at all.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "ConsideredTimes")]
pub struct Considered;

/// The answer to [`Considered`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsideredTimes {
    /// When the history began (nothing before it is known).
    pub since: DateTime<Utc>,
    /// The latest fire time considered per job (manual runs excluded).
    pub per_job: HashMap<JobId, DateTime<Utc>>,
}

impl Handler<History> for RunLog {
    type Result = MessageResult<History>;
    fn handle(&mut self, msg: History, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(select(&self.records, msg.job.as_ref(), msg.kind, msg.limit))
    }
}

/// The lines of `records` for `job` and `kind` (when given), the newest `limit`, oldest first.
pub fn select(
    records: &[RunRecord],
    job: Option<&JobId>,
    kind: Option<JobKind>,
    limit: usize,
) -> Vec<RunRecord> {
    let mut picked: Vec<RunRecord> = records
        .iter()
        .rev()
        .filter(|r| job.is_none_or(|j| &r.job == j) && kind.is_none_or(|k| r.kind == k))
        .take(limit)
        .cloned()
        .collect();
    picked.reverse();
    picked
}

impl Handler<LatestRuns> for RunLog {
    type Result = MessageResult<LatestRuns>;
    fn handle(&mut self, _msg: LatestRuns, _ctx: &mut Self::Context) -> Self::Result {
        let mut latest = HashMap::new();
        for r in &self.records {
            latest.insert(r.job.clone(), r.clone());
        }
        MessageResult(latest)
    }
}

impl Handler<Considered> for RunLog {
    type Result = MessageResult<Considered>;
    fn handle(&mut self, _msg: Considered, _ctx: &mut Self::Context) -> Self::Result {
        let mut per_job: HashMap<JobId, DateTime<Utc>> = HashMap::new();
        let mut note = |job: &JobId, at: DateTime<FixedOffset>| {
            let at = at.with_timezone(&Utc);
            let slot = per_job.entry(job.clone()).or_insert(at);
            if at > *slot {
                *slot = at;
            }
        };
        for r in self.records.iter().filter(|r| r.trigger != Trigger::Manual) {
            note(&r.job, r.scheduled);
        }
        let open = self
            .open
            .iter()
            .chain(self.interrupted.iter().map(|(r, _)| r));
        for r in open.filter(|r| r.trigger != Trigger::Manual) {
            note(&r.job, r.scheduled);
        }
        MessageResult(ConsideredTimes {
            since: self.history_since.with_timezone(&Utc),
            per_job,
        })
    }
}
