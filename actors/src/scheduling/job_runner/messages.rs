//! The job runner's messages and their answers.

use actix::prelude::*;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::agent::prompts::forward::ScheduledItem;
use crate::agent::webhook_screen::Field;
use crate::jobs::{Job, JobId};
use crate::records::runs::Trigger;

/// Run this job now.
#[derive(Debug, Clone, Message)]
#[rtype(result = "RunOutcome")]
pub struct RunJob {
    /// The job (a webhook job carries its spec's settings and template).
    pub job: Job,
    /// When it was due (for a late routine: its latest missed time).
    pub due_at: DateTime<Utc>,
    /// When it fired.
    pub fired_at: DateTime<Utc>,
    /// For an overdue reminder or a routine whose time passed while the bot was down or the
    /// machine asleep, when it was scheduled (it gets the `[late: …]` marker).
    pub late_since: Option<DateTime<Utc>>,
    /// A routine's earlier missed times, folded into this fire (recorded `missed`), oldest first.
    pub missed: Vec<DateTime<Utc>>,
    /// The job's file relative to the data directory.
    pub rel_path: String,
    /// Background jobs around now, for the preamble's forward schedule (the scheduler's index as
    /// it stood when the job fired).
    pub schedule: Vec<ScheduledItem>,
    /// A webhook's payload (empty for routines and reminders).
    pub payload: Map<String, Value>,
    /// Untrusted free-form fields to screen before anything runs (webhooks).
    pub screen: Vec<Field>,
    /// What started it.
    pub trigger: Trigger,
    /// For a run again after a restart: its run, already open, and when the cut-off run began.
    /// *(ours)* A retry after a passing failure is reopened too (its run opened by the run log).
    pub reopened: Option<Reopened>,
    /// *(ours)* Retries after passing failures before this attempt (0: the first try).
    pub retry: u32,
}

/// A run opened already: by [`recovery`] for a job a restart cut off, or by the run log for a
/// retry after a passing failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reopened {
    /// The new run's id (open in the run log).
    pub run: String,
    /// When the cut-off run started (the prompt's `[interrupted: …]` marker); `None` for a
    /// retry, which carries no marker.
    pub interrupted_since: Option<DateTime<Utc>>,
}

impl RunJob {
    /// A job due at `due_at` and firing at `fired_at`, with nothing to screen and no payload.
    pub fn new(job: Job, rel_path: String, due_at: DateTime<Utc>, fired_at: DateTime<Utc>) -> Self {
        Self {
            job,
            due_at,
            fired_at,
            late_since: None,
            missed: Vec::new(),
            rel_path,
            schedule: Vec::new(),
            payload: Map::new(),
            screen: Vec::new(),
            trigger: Trigger::Schedule,
            reopened: None,
            retry: 0,
        }
    }
}

/// What became of a [`RunJob`].
#[derive(Debug)]
pub enum RunOutcome {
    /// Handed to the main session as a turn (or to the recipient that stands in for it).
    Handed,
    /// A background fork was started.
    ForkStarted,
    /// Every background slot is taken: it waits in line behind `ahead` jobs.
    Queued {
        /// Jobs ahead of it.
        ahead: usize,
    },
    /// A routine fired past its catch-up window: recorded as missed, not run.
    Missed,
    /// Screening flagged these fields; nothing ran.
    Dropped {
        /// The flagged fields.
        flagged: Vec<String>,
    },
    /// Skipped before anything ran: *(ours)* its gate said no, or a skill it names cannot be
    /// used.
    Skipped(Skip),
    /// It must not run as written (an unsafe tool pattern): nothing ran, and the agent hears
    /// why through a pending update.
    Blocked(Box<Blocked>),
    /// It could not run.
    Failed(RunError),
}

/// A run that stopped before anything ran, on purpose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    /// The job.
    pub job: String,
    /// Why.
    pub why: SkipReason,
}

/// Why a run was skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// *(ours)* Its gate said no.
    Gate {
        /// The gate as written.
        gate: String,
        /// How the gate ended.
        closed: super::gate::Closed,
    },
    /// A skill it names is missing or does not load (SPEC §17).
    Skills(super::BlockedBySkills),
    /// *(ours, SPEC §19)* A spend cap is reached: no model is woken.
    SpendLimit {
        /// What to tell the owner (once a day).
        notice: String,
        /// For a reminder: the plain DM it is delivered as instead.
        plain: Option<String>,
        /// The job runs in the background (its plain DM keeps to quiet hours).
        background: bool,
    },
    /// The subagent it is bound to does not exist (SPEC §17).
    Subagent {
        /// The name the job gave.
        name: String,
        /// What the agent is told, for a routine or reminder.
        update: Option<String>,
    },
    /// A `session: persistent` routine whose previous run still holds (or waits for) its
    /// session: two runs must not resume one session at once (SPEC §18).
    SessionInUse,
}

impl std::fmt::Display for Skip {
    /// What the run history says of it: `gate `test -s inbox.txt` said no (exit 1)` with the
    /// first line the gate wrote to stderr, or `blocked: skill `x` not found (…)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (gate, closed) = match &self.why {
            SkipReason::Gate { gate, closed } => (gate, closed),
            SkipReason::Skills(blocked) => return write!(f, "{blocked}"),
            SkipReason::SpendLimit { .. } => return write!(f, "spend limit"),
            SkipReason::Subagent { name, .. } => {
                return write!(f, "blocked: subagent `{name}` not found")
            }
            SkipReason::SessionInUse => {
                return write!(f, "its previous run still holds its persistent session")
            }
        };
        write!(f, "gate `{gate}` said no")?;
        match closed.code {
            Some(code) => write!(f, " (exit {code})")?,
            None => write!(f, " (ended by a signal)")?,
        }
        if let Some(said) = &closed.said {
            write!(f, ": {said}")?;
        }
        Ok(())
    }
}

/// A job refused before anything of it ran, because of how it is written (SPEC §17: an unsafe
/// tool pattern in its `allowed-tools`, its skills' or `tool-policy.yaml`). Recorded `skipped`
/// with [`Blocked::reason`]; [`Blocked::update`] is what the agent is told.
#[derive(Debug, Clone)]
pub struct Blocked {
    /// The job.
    pub job: Job,
    /// Its name for people.
    pub name: String,
    /// Its file, relative to the data directory.
    pub file: String,
    /// Why it did not run (for the run history and the log).
    pub reason: String,
}

impl Blocked {
    /// The pending update telling the agent what happened and what would fix it.
    pub fn update(&self) -> String {
        let (kind, after) = match &self.job {
            Job::Routine(_) => (
                "routine",
                "It will be skipped each time until the pattern is fixed.",
            ),
            Job::Reminder(_) => (
                "reminder",
                "The reminder is used up; add it again with safe tools if it is still wanted.",
            ),
            Job::Webhook(_) => (
                "webhook",
                "Every call will be skipped until the pattern is fixed.",
            ),
        };
        format!(
            "Background {kind} \"{}\" ({}) was skipped and did not run — {}. Fix its allowed-tools (or tool-policy.yaml). {after}",
            self.name, self.file, self.reason
        )
    }
}

/// Why a job could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// An actor the run needed has stopped (its mailbox is closed).
    #[error("the {actor} actor has stopped, so job {job} did not run")]
    ActorGone {
        /// Which actor.
        actor: &'static str,
        /// The job.
        job: String,
    },
    /// A background job came out of preparation without its tool rules (a bug: never expected).
    #[error("job {job} did not run: its tool rules were not made")]
    NoToolRules {
        /// The job.
        job: String,
    },
    /// *(ours)* The job's gate could not decide (it could not start, or ran too long).
    #[error("job {job} did not run: {failure}")]
    GateFailed {
        /// The job.
        job: String,
        /// What went wrong.
        failure: super::gate::GateFailure,
    },
}

/// Asks what has run so far.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "RunCounts")]
pub struct Runs;

/// Runs since the runner started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunCounts {
    /// Jobs handed to the main session (or the recipient).
    pub handed: u64,
    /// Background forks started.
    pub forks_started: u64,
    /// Background forks whose actor has stopped (done, failed or timed out).
    pub forks_finished: u64,
    /// Jobs dropped by screening.
    pub dropped: u64,
    /// Jobs whose gate skipped the run, and jobs blocked by how they are written.
    pub skipped: u64,
    /// Jobs that could not run.
    pub failed: u64,
    /// Late routines recorded as missed, not run.
    pub missed: u64,
    /// Background slots in use now (a job preparing or running, a reflection being written).
    pub slots_busy: u64,
    /// Background jobs waiting for a slot now.
    pub waiting: u64,
    /// Reflections waiting for a slot now (behind every waiting job).
    pub reflections_waiting: u64,
    /// Reflections due: background forks of `reflect: true` jobs that have ended.
    pub reflections: u64,
    /// Reflections written, or given up (the run could not be closed, the bot is stopping).
    pub reflections_done: u64,
    /// *(ours)* Runs waiting on the clock to run again after a passing failure (not counted
    /// by [`RunCounts::idle`]: they may wait ten minutes).
    pub retries_waiting: u64,
}

impl RunCounts {
    /// Background forks still running.
    pub fn forks_running(&self) -> u64 {
        self.forks_started - self.forks_finished
    }

    /// Jobs whose run has been decided (handed, started, dropped, skipped, missed or failed).
    pub fn decided(&self) -> u64 {
        self.handed + self.forks_started + self.dropped + self.skipped + self.failed + self.missed
    }

    /// No background work running, being prepared, waiting, or being reflected on.
    pub fn idle(&self) -> bool {
        self.forks_running() == 0
            && self.slots_busy == 0
            && self.waiting == 0
            && self.reflections == self.reflections_done
    }
}

/// Asks what runs and what waits now.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "ActivityReport")]
pub struct Activity;

/// One job running or waiting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveJob {
    /// The job's id.
    pub job: JobId,
    /// Its name for people.
    pub name: String,
    /// Its file.
    pub file: String,
    /// Whether it runs in the background.
    pub background: bool,
    /// Since when it runs or waits.
    pub since: DateTime<Utc>,
}

/// The answer to [`Activity`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActivityReport {
    /// Background CLIs (forks and reflections) that may run at once (`bg_fork_limit`).
    pub limit: usize,
    /// Jobs running (background forks, and foreground jobs in the conversation).
    pub running: Vec<ActiveJob>,
    /// Background jobs waiting for a slot, first in line first.
    pub waiting: Vec<ActiveJob>,
}

/// The bot is stopping: from now on a run that does not complete stays open, to run again
/// after the restart. Sent by the supervisor when a shutdown begins.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct Stopping;
