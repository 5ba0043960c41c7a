//! One line of `state/runs.jsonl` ([`RunRecord`]) and one run still going ([`OpenRun`], kept in
//! `state/runs_open.json` until it ends).
//!
//! A line says what happened to one fire time of one job: a run that ended (`ok`, `failed`,
//! `timed-out`, *(ours)* `over-budget`, `skipped`, `interrupted`), *(ours)* an attempt that failed
//! for a passing cause and runs again (`retrying`, with the cause and when) or a fire time that did not run on time (`missed`, or
//! `caught-up` when a late run was started for it). Times carry the configured zone's offset.
//! Fields that are usually empty are left out.

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::jobs::{Job, JobId};

/// How a fire time ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The run completed.
    Ok,
    /// The run failed (its CLI reported an error, exited, or could not start).
    Failed,
    /// The run passed `bg_fork_timeout`.
    TimedOut,
    /// *(ours, SPEC §19)* The run was stopped by its cost or turn limit (`max-cost`,
    /// `max-turns`, or what was left of the day's spend cap).
    OverBudget,
    /// The fire time passed while the bot was down or asleep, and did not run.
    Missed,
    /// The fire time passed while the bot was down or asleep; a late run was started for it.
    CaughtUp,
    /// The job was not run on purpose (screening flagged its payload, a gate said no).
    Skipped,
    /// The run was cut off: the bot stopped (or crashed) while it ran, or the user's message
    /// interrupted a foreground job.
    Interrupted,
    /// *(ours)* The attempt failed for a passing cause (an overloaded API, the network); the
    /// job runs again after a wait. Neither a failure nor a success for the alerts.
    Retrying,
}

impl Outcome {
    /// The word written in the file and shown in listings.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Failed => "failed",
            Outcome::TimedOut => "timed-out",
            Outcome::OverBudget => "over-budget",
            Outcome::Missed => "missed",
            Outcome::CaughtUp => "caught-up",
            Outcome::Skipped => "skipped",
            Outcome::Interrupted => "interrupted",
            Outcome::Retrying => "retrying",
        }
    }

    /// A failed, timed-out or over-budget run: what failure alerts count.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Outcome::Failed | Outcome::TimedOut | Outcome::OverBudget
        )
    }

    /// A line for a run that actually started (not a miss marker).
    pub fn is_run(self) -> bool {
        !matches!(self, Outcome::Missed | Outcome::CaughtUp)
    }
}

/// The kind of job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobKind {
    /// A routine.
    Routine,
    /// A reminder.
    Reminder,
    /// A webhook job.
    Webhook,
}

impl JobKind {
    /// The kind of `job`.
    pub fn of(job: &Job) -> Self {
        match job {
            Job::Routine(_) => JobKind::Routine,
            Job::Reminder(_) => JobKind::Reminder,
            Job::Webhook(_) => JobKind::Webhook,
        }
    }
}

/// What made a run start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    /// Its time came (or, for a webhook, its request was accepted).
    #[default]
    Schedule,
    /// Someone asked: `routine run`, the Run now button.
    Manual,
    /// It ran again after a restart cut the first run off.
    Rerun,
}

impl Trigger {
    fn is_schedule(&self) -> bool {
        *self == Trigger::Schedule
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One line of `state/runs.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The run's id (shared by the open entry and this line).
    pub run: String,
    /// The job's id.
    pub job: JobId,
    /// The job's kind.
    pub kind: JobKind,
    /// The prompt tag it fired with (`routine-bg`, `reminder`, `webhook`).
    pub tag: String,
    /// Its name for people (description, else the file name in words).
    pub name: String,
    /// Its file, relative to the data directory.
    pub file: String,
    /// The fire time this line is about.
    pub scheduled: DateTime<FixedOffset>,
    /// When the run started (absent for `missed` and `caught-up`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<DateTime<FixedOffset>>,
    /// When it ended (for a miss: when the miss was noticed).
    pub ended: DateTime<FixedOffset>,
    /// How it ended.
    pub outcome: Outcome,
    /// Whether it pinged the owner (a ping or an embed).
    #[serde(default)]
    pub pinged: bool,
    /// Whether it reported back to the conversation.
    #[serde(default)]
    pub reported: bool,
    /// The CLI's reported cost, in US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The CLI's reported number of model turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<u32>,
    /// What went wrong, for runs that did not complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// For a run that started late: the fire time it stood in for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_since: Option<DateTime<FixedOffset>>,
    /// What started it, when not its schedule.
    #[serde(default, skip_serializing_if = "Trigger::is_schedule")]
    pub trigger: Trigger,
    /// The owner was sent a failure alert for this run.
    #[serde(default, skip_serializing_if = "is_false")]
    pub alerted: bool,
    /// For a line standing for several misses: how many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// *(ours)* The CLI session a background run ran in, when known: where its transcript is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// A report the run is delivering to the pending updates: written here before it is appended
/// there, and marked delivered after, so a restart in between neither loses nor repeats it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingReport {
    /// The report's text.
    pub message: String,
    /// The pending-updates queue has it.
    pub delivered: bool,
}

/// A run that has started and not yet ended, as kept in `state/runs_open.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenRun {
    /// The run's id.
    pub run: String,
    /// Which start of the bot opened it (runs of an earlier start were cut off by its end).
    pub boot: String,
    /// The job's id.
    pub job: JobId,
    /// The job's kind.
    pub kind: JobKind,
    /// The prompt tag.
    pub tag: String,
    /// Its name for people.
    pub name: String,
    /// Its file, relative to the data directory.
    pub file: String,
    /// The fire time.
    pub scheduled: DateTime<FixedOffset>,
    /// When the run was opened (it may then wait for a background slot).
    pub started: DateTime<FixedOffset>,
    /// For a late run: the fire time it stands in for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_since: Option<DateTime<FixedOffset>>,
    /// What started it.
    #[serde(default, skip_serializing_if = "Trigger::is_schedule")]
    pub trigger: Trigger,
    /// 1 for a first run, 2 for the run again after a restart cut the first off.
    pub attempt: u32,
    /// *(ours)* Retries after passing failures before this run (0: the first try).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retry: u32,
    /// It has pinged the owner (marked before the ping goes out).
    #[serde(default)]
    pub pinged: bool,
    /// It has scheduled a chain follow-up.
    #[serde(default)]
    pub followed_up: bool,
    /// Its reports, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reports: Vec<PendingReport>,
    /// A reminder's file as it was when it fired (the file itself is gone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reminder: Option<String>,
    /// A webhook job's payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Map<String, Value>>,
}

impl OpenRun {
    /// Something the owner can see already happened: a ping, a report, a follow-up.
    pub fn acted(&self) -> bool {
        self.pinged || self.followed_up || !self.reports.is_empty()
    }

    /// A report reached the pending updates.
    pub fn reported(&self) -> bool {
        self.reports.iter().any(|r| r.delivered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_leaves_out_what_is_usually_empty() {
        let at = DateTime::parse_from_rfc3339("2026-03-02T09:00:00-05:00").unwrap();
        let record = RunRecord {
            run: "r1".into(),
            job: JobId("a1b2c3d4".into()),
            kind: JobKind::Routine,
            tag: "routine-bg".into(),
            name: "morning".into(),
            file: "routines/morning.md".into(),
            scheduled: at,
            started: Some(at),
            ended: at,
            outcome: Outcome::TimedOut,
            pinged: false,
            reported: true,
            cost_usd: Some(0.01),
            turns: Some(3),
            error: None,
            late_since: None,
            trigger: Trigger::Schedule,
            alerted: false,
            count: None,
            session: None,
        };
        let line = serde_json::to_string(&record).unwrap();
        assert_eq!(
            line,
            r#"{"run":"r1","job":"a1b2c3d4","kind":"routine","tag":"routine-bg","name":"morning","file":"routines/morning.md","scheduled":"2026-03-02T09:00:00-05:00","started":"2026-03-02T09:00:00-05:00","ended":"2026-03-02T09:00:00-05:00","outcome":"timed-out","pinged":false,"reported":true,"cost_usd":0.01,"turns":3}"#
        );
        assert_eq!(serde_json::from_str::<RunRecord>(&line).unwrap(), record);
    }
}
