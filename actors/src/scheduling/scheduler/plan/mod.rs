//! The scheduler's bookkeeping, without the actor: which jobs are registered, when each is
//! due, and which are due now. Pure apart from reading the job directories, so the timing rules
//! are tested here without an actor system.
//!
//! Rules:
//! - a routine's next fire is computed from its cron when it is first seen or its cron (or
//!   `paused`) changes, and advanced past "now" each time it fires;
//! - *(ours)* at start, a routine's next fire is the first one after the last time it was
//!   considered (from the run history, [`Baselines`]; never before the file's last change or the
//!   start of the history), so times that passed while the bot was down come due at once; a
//!   timer that wakes late (the machine slept) finds the same. Such a routine fires once, for
//!   its latest passed time, marked late when that is more than [`LATE_AFTER`] ago, with the
//!   earlier passed times alongside; the job runner applies the catch-up window;
//! - a paused routine is listed but never due and left out of the forward schedule;
//! - a reminder is due at `run-at`; one already overdue when the scheduler starts is due
//!   [`STARTUP_DELAY`] after the start; a reminder that fires more than [`LATE_AFTER`] past its
//!   time gets the `[late: …]` marker;
//! - a fired reminder is never fired again, even if deleting its file failed;
//! - two files holding one id (routine or reminder): the first by file name is the job, the
//!   other is ignored, with one warning naming both files (the rule is [`duplicates::find`],
//!   which the lists and `doctor` use too).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;

use super::broken::BrokenFile;
use super::cron::CronSchedule;
use super::missed::passed_fires;
pub use super::missed::Baselines;
use super::missed::MAX_LOOKBACK;
use super::registry::{Changed, DirIndex};
use crate::base::data_dir::DataDir;
use crate::jobs::{duplicates, store, Job, JobId, Reminder, Routine};

mod views;

/// How long after start overdue reminders fire (lets the rest of the bot come up first).
pub const STARTUP_DELAY: Duration = Duration::seconds(2);
/// How far past its time a reminder must fire to be marked late.
pub const LATE_AFTER: Duration = Duration::seconds(60);
/// The forward schedule looks this far back for "just fired" items.
const GRACE: Duration = Duration::minutes(15);
/// ... and at most this far ahead.
const HORIZON: Duration = Duration::hours(12);

/// A job that is due.
#[derive(Debug, Clone)]
pub struct Due {
    /// The job.
    pub job: Job,
    /// Its file.
    pub path: PathBuf,
    /// Its file relative to the data directory.
    pub rel_path: String,
    /// When it was due.
    pub due_at: DateTime<Utc>,
    /// For a late reminder or routine, when it was scheduled.
    pub late_since: Option<DateTime<Utc>>,
    /// A routine's earlier passed fire times, oldest first.
    pub missed: Vec<DateTime<Utc>>,
}

#[derive(Debug, Clone)]
struct RoutineTimer {
    /// The routine's file.
    path: PathBuf,
    cron_text: String,
    paused: bool,
    schedule: CronSchedule,
    next: Option<DateTime<Utc>>,
}

/// Registered jobs and their timers.
#[derive(Debug)]
pub struct Plan {
    root: PathBuf,
    tz: Tz,
    started_at: DateTime<Utc>,
    routines: DirIndex<Routine>,
    reminders: DirIndex<Reminder>,
    timers: HashMap<JobId, RoutineTimer>,
    fired: HashSet<JobId>,
    /// Files ignored because an earlier file (by name) holds the same id.
    shadowed: HashSet<PathBuf>,
    /// Until the first refresh: where the routines' first timers start from.
    baselines: Option<Baselines>,
    /// Routines whose cron could not be registered, with why.
    bad_cron: HashMap<PathBuf, String>,
    /// The persistent routines (id, file) as last read: their sessions go with their files.
    persistent: Vec<(String, PathBuf)>,
}

/// Why a job file did not load, without its path (the notice names the file itself).
fn load_reason(e: store::Error) -> String {
    match e {
        store::Error::Parse { source, .. } => source.to_string(),
        store::Error::Read { source, .. } => format!("it cannot be read: {source}"),
        other => other.to_string(),
    }
}

fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

impl Plan {
    /// An empty plan over `data`'s job directories, for a scheduler started at `started_at`.
    pub fn new(data: &DataDir, tz: Tz, started_at: DateTime<Utc>) -> Self {
        Self {
            root: data.root().to_path_buf(),
            tz,
            started_at,
            routines: DirIndex::new(data.routines()),
            reminders: DirIndex::new(data.reminders()),
            timers: HashMap::new(),
            fired: HashSet::new(),
            shadowed: HashSet::new(),
            baselines: None,
            bad_cron: HashMap::new(),
            persistent: Vec::new(),
        }
    }

    /// Makes the next refresh time new routines from `baselines` (their missed times come due).
    pub fn set_baselines(&mut self, baselines: Baselines) {
        self.baselines = Some(baselines);
    }

    /// The routine `id` (paused or not) and its file, relative to the data directory.
    pub fn routine(&self, id: &JobId) -> Option<(Routine, String)> {
        self.routines
            .items()
            .filter(|(p, _)| !self.is_shadowed(p))
            .find(|(_, r)| &r.id == id)
            .map(|(p, r)| (r.clone(), rel(&self.root, p)))
    }

    /// Every registered routine with its file and next fire time (`None`: paused, or never
    /// again), by file name.
    pub fn routines(&self) -> Vec<(Routine, String, Option<DateTime<Utc>>)> {
        let mut out: Vec<_> = self
            .routines
            .items()
            .filter(|(p, _)| !self.is_shadowed(p))
            .filter_map(|(p, r)| {
                let timer = self.timers.get(&r.id)?;
                let next = timer.next.map(|at| self.routine_due(at));
                Some((r.clone(), rel(&self.root, p), next))
            })
            .collect();
        out.sort_by(|a, b| a.1.cmp(&b.1));
        out
    }

    /// Makes the next refresh list both directories whole instead of trusting their file
    /// events.
    pub fn list_next(&mut self) {
        self.routines.list_next();
        self.reminders.list_next();
    }

    /// Re-reads changed files; returns whether anything changed.
    pub fn refresh(&mut self, now: DateTime<Utc>) -> bool {
        let r = self
            .routines
            .refresh(|p| store::load_file::<Routine>(p).map_err(load_reason));
        if r.any() {
            let now_persistent =
                crate::scheduling::routine_sessions::persistent(self.routines.items());
            let before = std::mem::replace(&mut self.persistent, now_persistent);
            if !before.is_empty() {
                let data = DataDir::new(self.root.clone());
                crate::scheduling::routine_sessions::forget_removed(
                    &data,
                    before,
                    self.routines.items(),
                );
            }
        }
        let m = self
            .reminders
            .refresh(|p| store::load_file::<Reminder>(p).map_err(load_reason));
        // Files that only went (a fired reminder's, nearly every fire) cannot make a new
        // duplicate; they can only end one, and there is none to end when nothing is shadowed.
        let added = r == Changed::Added || m == Changed::Added;
        if added || ((r.any() || m.any()) && !self.shadowed.is_empty()) {
            self.find_shadowed();
        }
        if r.any() {
            self.retime_routines(now);
        }
        self.baselines = None;
        if m.any() && !self.fired.is_empty() {
            let fired = &self.fired;
            let present: HashSet<JobId> = self
                .reminders
                .items()
                .filter(|(_, r)| fired.contains(&r.id))
                .map(|(_, r)| r.id.clone())
                .collect();
            self.fired = present;
        }
        r.any() || m.any()
    }

    /// Recomputes which files share an id with an earlier one, warning once about each.
    fn find_shadowed(&mut self) {
        let routines = duplicates::find(self.routines.items().map(|(p, r)| (p, r.id.as_str())));
        let reminders = duplicates::find(self.reminders.items().map(|(p, r)| (p, r.id.as_str())));
        let kinds = std::iter::repeat("routine").zip(routines);
        let kinds = kinds.chain(std::iter::repeat("reminder").zip(reminders));
        let mut now_shadowed = HashSet::new();
        for (kind, dup) in kinds {
            if !self.is_shadowed(&dup.ignored) {
                tracing::warn!(
                    kind,
                    id = %dup.id,
                    file = %dup.ignored.display(),
                    used = %dup.kept.display(),
                    "two {kind} files share an id; the first by name is used and this one ignored"
                );
            }
            now_shadowed.insert(dup.ignored);
        }
        self.shadowed = now_shadowed;
    }

    /// Whether `path` is ignored for an earlier file with its id. Asked for every job on every
    /// timer; with no duplicates (nearly always) it costs no hashing of the path.
    fn is_shadowed(&self, path: &Path) -> bool {
        !self.shadowed.is_empty() && self.shadowed.contains(path)
    }

    /// Where a routine's first timer starts: now, or at start the last time it was considered.
    fn timer_base(&self, path: &Path, routine: &Routine, now: DateTime<Utc>) -> DateTime<Utc> {
        let Some(b) = &self.baselines else {
            return now;
        };
        let changed = self
            .routines
            .modified(path)
            .map(DateTime::<Utc>::from)
            .unwrap_or(now);
        let considered = b.per_job.get(&routine.id).copied().or(b.since);
        considered
            .map_or(now, |at| at.max(changed))
            .max(now - MAX_LOOKBACK)
            .min(now)
    }

    fn retime_routines(&mut self, now: DateTime<Utc>) {
        let tz = self.tz;
        let mut next_timers = HashMap::with_capacity(self.routines.len());
        let mut bad_cron = HashMap::new();
        for (path, routine) in self.routines.items() {
            if self.is_shadowed(path) {
                continue;
            }
            let timer = match self.timers.remove(&routine.id) {
                Some(t) if t.cron_text == routine.cron && t.paused == routine.paused => {
                    RoutineTimer {
                        path: path.to_path_buf(),
                        ..t
                    }
                }
                _ => match CronSchedule::parse(&routine.cron) {
                    Ok(schedule) => RoutineTimer {
                        path: path.to_path_buf(),
                        next: if routine.paused {
                            None
                        } else {
                            schedule.next_after(self.timer_base(path, routine, now), tz)
                        },
                        cron_text: routine.cron.clone(),
                        paused: routine.paused,
                        schedule,
                    },
                    Err(e) => {
                        if !self.bad_cron.contains_key(path) {
                            tracing::warn!(file = %path.display(), cause = %e, "skipping routine with an invalid cron");
                        }
                        let reason =
                            format!("its cron {:?} could not be registered: {e}", routine.cron);
                        bad_cron.insert(path.to_path_buf(), reason);
                        continue;
                    }
                },
            };
            next_timers.insert(routine.id.clone(), timer);
        }
        self.timers = next_timers;
        self.bad_cron = bad_cron;
    }

    /// How many jobs are registered.
    pub fn len(&self) -> usize {
        let reminders = self.reminders.items();
        self.timers.len() + reminders.filter(|(p, _)| !self.is_shadowed(p)).count()
    }

    /// Whether no job is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn reminder_due(&self, r: &Reminder) -> DateTime<Utc> {
        let at = r.run_at.with_timezone(&Utc);
        if at < self.started_at {
            self.started_at + STARTUP_DELAY
        } else {
            at
        }
    }

    /// When a routine whose next fire is `at` is due: not before the start settles.
    fn routine_due(&self, at: DateTime<Utc>) -> DateTime<Utc> {
        at.max(self.started_at + STARTUP_DELAY)
    }

    /// The earliest instant at which something is due. Runs after every fire over every job,
    /// so a reminder's fired and shadowed marks are looked up only when it would be earliest.
    pub fn earliest(&self) -> Option<DateTime<Utc>> {
        let routines = self
            .timers
            .values()
            .filter_map(|t| t.next)
            .map(|at| self.routine_due(at));
        let mut earliest = routines.min();
        for (path, reminder) in self.reminders.items() {
            let at = self.reminder_due(reminder);
            if earliest.is_some_and(|e| e <= at)
                || self.fired.contains(&reminder.id)
                || self.is_shadowed(path)
            {
                continue;
            }
            earliest = Some(at);
        }
        earliest
    }

    /// Everything due at `now`, advancing routines and marking reminders fired. Runs at every
    /// fire over every job, so only what is due is looked up or copied.
    pub fn take_due(&mut self, now: DateTime<Utc>) -> Vec<Due> {
        let mut due = Vec::new();
        let due_from = self.started_at + STARTUP_DELAY;
        for timer in self.timers.values_mut() {
            let Some(first) = timer.next.filter(|at| (*at).max(due_from) <= now) else {
                continue;
            };
            let mut passed = passed_fires(&timer.schedule, first, now, self.tz);
            timer.next = timer.schedule.next_after(now, self.tz);
            let Some(latest) = passed.pop() else {
                continue;
            };
            let Some(routine) = self.routines.get(&timer.path) else {
                continue;
            };
            due.push(Due {
                job: Job::Routine(routine.clone()),
                path: timer.path.clone(),
                rel_path: rel(&self.root, &timer.path),
                due_at: latest,
                late_since: (now - latest > LATE_AFTER).then_some(latest),
                missed: passed,
            });
        }
        let mut fired_now = Vec::new();
        for (path, reminder) in self.reminders.items() {
            let at = self.reminder_due(reminder);
            if at > now || self.fired.contains(&reminder.id) || self.is_shadowed(path) {
                continue;
            }
            let scheduled = reminder.run_at.with_timezone(&Utc);
            fired_now.push(reminder.id.clone());
            due.push(Due {
                job: Job::Reminder(reminder.clone()),
                path: path.to_path_buf(),
                rel_path: rel(&self.root, path),
                due_at: at,
                late_since: (now - scheduled > LATE_AFTER).then_some(scheduled),
                missed: Vec::new(),
            });
        }
        self.fired.extend(fired_now);
        // Fire order: by due time, then by the time each was meant for (overdue reminders are
        // all due at start + 2 s; they fire in the order they were set for), then by file.
        due.sort_by(|a, b| {
            let meant = |d: &Due| match &d.job {
                Job::Reminder(r) => r.run_at.with_timezone(&Utc),
                _ => d.due_at,
            };
            (a.due_at, meant(a), &a.rel_path).cmp(&(b.due_at, meant(b), &b.rel_path))
        });
        due
    }
}
