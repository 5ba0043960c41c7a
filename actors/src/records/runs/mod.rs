//! The RunLog actor *(ours, SPEC §16)*: the one writer of the run history, `state/runs.jsonl`
//! ([`history_file`]), and of the runs in progress, `state/runs_open.json` ([`open_file`]).
//!
//! | message | sent by | answer |
//! | --- | --- | --- |
//! | [`Open`] | the job runner, before a job runs (and before a reminder's file goes) | saved or not |
//! | [`Mark`] | a background fork, before a ping, around a report, after a follow-up | saved or not |
//! | [`Close`] | the job runner, when a run ended | the line written, and an [`Alert`] if one is due |
//! | [`CloseForRetry`] | the job runner, when an attempt failed for a passing cause | a `retrying` line and the next attempt's entry, or closed as [`Close`] |
//! | [`Record`] | the job runner: misses, skips | — |
//! | [`TakeInterrupted`] | the job runner, at its start | runs an earlier start left open |
//! | [`History`] | `/routines`, tests | lines, newest last |
//! | [`LatestRuns`] | `/routines` | each job's last line |
//! | [`Considered`] | the scheduler, at its start | the last fire time each job was considered for |
//!
//! A run is opened before anything of it happens, so a crash at any later moment leaves its
//! entry behind: the next start finds runs whose `boot` is not its own ([`TakeInterrupted`])
//! and the job runner re-runs or reports them. What the owner could already see — a ping, a
//! report, a chain follow-up — is marked on the entry first, so a re-run never repeats it; a
//! report is written to the entry before it is appended to the pending updates and marked
//! delivered after, so a restart in between is resolved against the pending-updates file
//! instead of guessed. Lines older than 30 days (and than the current month: the spend caps sum
//! it) are pruned at start and daily.

pub mod alerts;
pub mod history_file;
mod messages;
pub mod open_file;
mod queries;
pub mod record;
mod retrying;

use std::path::PathBuf;

use actix::prelude::*;
use chrono::{DateTime, Duration, FixedOffset, Utc};
use chrono_tz::Tz;

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::base::state_file;
pub use alerts::{Alert, AlertRules};
pub use messages::{
    Close, Closed, Mark, Open, Record, RunEnd, RunLogError, RunMark, RunTicket, TakeInterrupted,
};
pub use queries::{select, Considered, ConsideredTimes, History, LatestRuns};
pub use record::{JobKind, OpenRun, Outcome, PendingReport, RunRecord, Trigger};
pub use retrying::{CloseForRetry, Retried};

/// The actor.
pub struct RunLog {
    history_path: PathBuf,
    open_path: PathBuf,
    clock: SharedClock,
    zone: Tz,
    /// Which start of the bot this is; open runs of other boots were cut off.
    boot: String,
    history_since: DateTime<FixedOffset>,
    records: Vec<RunRecord>,
    open: Vec<OpenRun>,
    /// Runs an earlier start left open, and whether each was handed out.
    interrupted: Vec<(OpenRun, bool)>,
    torn_end: bool,
    /// Lines not yet in the file (an append failed, e.g. on a full disk), kept to write first
    /// next time.
    unwritten: Vec<RunRecord>,
    last_prune: Option<DateTime<Utc>>,
    /// The open runs' JSON, kept between saves.
    open_json: open_file::Encoded,
}

impl RunLog {
    /// A run log over `data_dir`'s `state/` files; they are read when it starts.
    pub fn in_data_dir(data_dir: &DataDir, clock: SharedClock, zone: Tz) -> Self {
        RunLog {
            history_path: data_dir.state_file(history_file::FILE_NAME),
            open_path: data_dir.state_file(open_file::FILE_NAME),
            history_since: clock.now().with_timezone(&zone).fixed_offset(),
            clock,
            zone,
            boot: uuid::Uuid::new_v4().simple().to_string(),
            records: Vec::new(),
            open: Vec::new(),
            interrupted: Vec::new(),
            torn_end: false,
            unwritten: Vec::new(),
            last_prune: None,
            open_json: open_file::Encoded::default(),
        }
    }

    /// The lines kept (30 days, oldest first) and the local time now: what the spend
    /// module sums.
    pub(crate) fn lines_and_now(&self) -> (&[RunRecord], DateTime<Tz>) {
        (&self.records, self.clock.now().with_timezone(&self.zone))
    }

    fn now(&self) -> DateTime<FixedOffset> {
        self.clock.now().with_timezone(&self.zone).fixed_offset()
    }

    fn load(&mut self) {
        match history_file::read(&self.history_path) {
            Ok(read) => {
                if read.skipped > 0 {
                    tracing::warn!(file = %self.history_path.display(), skipped = read.skipped, "run history lines that do not parse were skipped");
                }
                self.records = read.records;
                self.torn_end = read.torn_end;
            }
            Err(e) => {
                tracing::error!(cause = %e, "could not read the run history; starting it empty")
            }
        }
        match open_file::load(&self.open_path) {
            Ok(Some(file)) => {
                self.history_since = file.history_since;
                let boot = self.boot.clone();
                let (mine, earlier): (Vec<_>, Vec<_>) =
                    file.open.into_iter().partition(|r| r.boot == boot);
                self.open = mine;
                // A restarted actor keeps what it already handed out.
                for run in earlier {
                    if !self.interrupted.iter().any(|(r, _)| r.run == run.run) {
                        self.interrupted.push((run, false));
                    }
                }
            }
            Ok(None) => {
                self.history_since = self.now();
                let _ = self.save_open();
            }
            Err(e) => tracing::error!(cause = %e, "could not read the open runs"),
        }
        self.prune();
    }

    fn save_open(&mut self) -> Result<(), state_file::Error> {
        let runs = self.interrupted.iter().map(|(r, _)| r).chain(&self.open);
        let saved = self
            .open_json
            .save(&self.open_path, self.history_since, runs);
        saved.inspect_err(|e| tracing::error!(cause = %e, "could not save the open runs"))
    }

    fn append(&mut self, lines: Vec<RunRecord>) {
        if lines.is_empty() {
            return;
        }
        // Lines an earlier append could not write (a full disk) go first, in order.
        let mut due = std::mem::take(&mut self.unwritten);
        due.extend(lines.iter().cloned());
        match history_file::append(&self.history_path, &due, self.torn_end) {
            Ok(()) => self.torn_end = false,
            Err(e) => {
                tracing::error!(cause = %e, lines = due.len(), "could not append to the run history; trying again with the next line");
                // Whatever part was written, the next append starts on a fresh line.
                self.torn_end = true;
                self.unwritten = due;
            }
        }
        self.records.extend(lines);
        let due = self
            .last_prune
            .is_none_or(|at| self.clock.now() - at > Duration::days(1));
        if due {
            self.prune();
        }
    }

    /// Drops lines older than 30 days and than the month, rewriting the file when any went.
    fn prune(&mut self) {
        let now = self.clock.now();
        self.last_prune = Some(now);
        let keep_from = history_file::keep_from(now, self.zone);
        let before = self.records.len();
        let leading: Vec<String> = self
            .records
            .iter()
            .take_while(|r| history_file::expired(r, keep_from))
            .map(|r| r.run.clone())
            .collect();
        self.records
            .retain(|r| !history_file::expired(r, keep_from));
        if self.records.len() == before {
            return;
        }
        // The file holds exactly the kept lines in order unless an append failed or tore.
        let in_file = self.unwritten.is_empty() && !self.torn_end;
        let dropped = match before - self.records.len() == leading.len() && in_file {
            true => history_file::drop_leading(&self.history_path, &leading),
            false => Ok(false),
        };
        let saved = match dropped {
            Ok(true) => Ok(()),
            Ok(false) => history_file::rewrite(&self.history_path, &self.records),
            Err(e) => {
                tracing::debug!(cause = %e, "could not drop the leading lines; writing the history whole");
                history_file::rewrite(&self.history_path, &self.records)
            }
        };
        match saved {
            Ok(()) => {
                self.torn_end = false;
                self.unwritten.clear();
                tracing::info!(pruned = before - self.records.len(), "run history pruned");
            }
            Err(e) => tracing::error!(cause = %e, "could not prune the run history"),
        }
    }

    /// The open run `run`, to change (its JSON is encoded again at the next save).
    fn entry_mut(&mut self, run: &str) -> Option<&mut OpenRun> {
        self.open_json.forget(run);
        self.open
            .iter_mut()
            .chain(self.interrupted.iter_mut().map(|(r, _)| r))
            .find(|r| r.run == run)
    }

    fn take_entry(&mut self, run: &str) -> Option<OpenRun> {
        if let Some(i) = self.open.iter().position(|r| r.run == run) {
            return Some(self.open.remove(i));
        }
        let i = self.interrupted.iter().position(|(r, _)| r.run == run)?;
        Some(self.interrupted.remove(i).0)
    }
}

impl Actor for RunLog {
    type Context = Context<Self>;

    fn started(&mut self, _ctx: &mut Self::Context) {
        let span = tracing::info_span!("actor", actor = "run_log");
        let _e = span.enter();
        self.load();
        tracing::info!(
            lines = self.records.len(),
            interrupted = self.interrupted.len(),
            "run log started"
        );
    }
}

/// After a restart `started` reads the files again.
impl Supervised for RunLog {}

impl Handler<Open> for RunLog {
    type Result = Result<(), RunLogError>;
    fn handle(&mut self, Open(mut run): Open, _ctx: &mut Self::Context) -> Self::Result {
        run.boot = self.boot.clone();
        tracing::debug!(run = %run.run, job = %run.job, "run opened");
        self.open.push(run);
        Ok(self.save_open()?)
    }
}

impl Handler<Mark> for RunLog {
    type Result = Result<(), RunLogError>;
    fn handle(&mut self, msg: Mark, _ctx: &mut Self::Context) -> Self::Result {
        let entry = self
            .entry_mut(&msg.run)
            .ok_or_else(|| RunLogError::UnknownRun(msg.run.clone()))?;
        match msg.mark {
            RunMark::Pinged => entry.pinged = true,
            RunMark::FollowedUp => entry.followed_up = true,
            RunMark::Reporting(message) => entry.reports.push(PendingReport {
                message,
                delivered: false,
            }),
            RunMark::Reported => {
                if let Some(r) = entry.reports.iter_mut().find(|r| !r.delivered) {
                    r.delivered = true;
                }
            }
        }
        Ok(self.save_open()?)
    }
}

impl Handler<Close> for RunLog {
    type Result = Result<Closed, RunLogError>;
    fn handle(&mut self, msg: Close, _ctx: &mut Self::Context) -> Self::Result {
        let entry = self
            .take_entry(&msg.run)
            .ok_or_else(|| RunLogError::UnknownRun(msg.run.clone()))?;
        if let Some(mut next) = msg.successor {
            next.boot = self.boot.clone();
            self.open.push(next);
        }
        self.close_entry(entry, msg.end, msg.rules)
    }
}

impl RunLog {
    /// Writes the line of `entry`, taken from the open runs (a successor already in its
    /// place), and decides its alert.
    fn close_entry(
        &mut self,
        entry: OpenRun,
        end: RunEnd,
        rules: AlertRules,
    ) -> Result<Closed, RunLogError> {
        // The entry goes first: a crash before the line is written loses a line, never
        // re-runs a job that ended.
        let saved = self.save_open();
        let mut record = RunRecord {
            run: entry.run.clone(),
            job: entry.job.clone(),
            kind: entry.kind,
            tag: entry.tag.clone(),
            name: entry.name.clone(),
            file: entry.file.clone(),
            scheduled: entry.scheduled,
            started: Some(entry.started),
            ended: self.now(),
            outcome: end.outcome,
            pinged: end.pinged || entry.pinged,
            reported: end.reported || entry.reported(),
            cost_usd: end.cost_usd,
            turns: end.turns,
            error: end.error,
            late_since: entry.late_since,
            trigger: entry.trigger,
            alerted: false,
            count: None,
            session: end.session,
        };
        let earlier: Vec<&RunRecord> = self
            .records
            .iter()
            .filter(|r| r.job == record.job && r.kind == record.kind)
            .collect();
        let alert = alerts::decide(&earlier, &mut record, rules, self.clock.now());
        tracing::info!(run = %record.run, job = %record.job, outcome = record.outcome.as_str(), "run closed");
        self.append(vec![record.clone()]);
        saved?;
        let reports = entry.reports.into_iter().map(|r| r.message).collect();
        Ok(Closed {
            record,
            alert,
            reports,
        })
    }
}

impl Handler<Record> for RunLog {
    type Result = ();
    fn handle(&mut self, Record(lines): Record, _ctx: &mut Self::Context) {
        self.append(lines);
    }
}

impl Handler<TakeInterrupted> for RunLog {
    type Result = MessageResult<TakeInterrupted>;
    fn handle(&mut self, _msg: TakeInterrupted, _ctx: &mut Self::Context) -> Self::Result {
        let mut out = Vec::new();
        for (run, taken) in self.interrupted.iter_mut() {
            if !*taken {
                *taken = true;
                out.push(run.clone());
            }
        }
        MessageResult(out)
    }
}
