//! The Scheduler actor: which routines and reminders exist, when they fire, and the prompts
//! they fire with (SPEC §3, §9).
//!
//! It owns the contents of `routines/` and `reminders/` as last read ([`registry`]), notices
//! changes within a second ([`watch`]), and keeps one timer armed for the earliest due job
//! (sleeping through the injectable [`Clock`](crate::clock::Clock), so tests move time by hand).
//! When a job is due it builds the job's prompt — tag, background preamble with the budget and
//! the forward schedule, skills, body — and sends a [`FireJob`] to its recipient (the brain).
//! A reminder's file is deleted as it fires, before its job runs, so a failing job never fires
//! twice. Overdue reminders (their time passed while the bot was down) fire shortly after start,
//! marked `[late: …]`.
//!
//! Messages: [`Reload`] (from the watcher, or anyone who changed a file), [`Upcoming`] (what is
//! registered and when it fires next). It asks [`PingBudget`] for a [`Snapshot`] and, when
//! given one, the conversation owner whether the user [`IsBusy`].
//!
//! Prompt building is pure and split by concern: [`preamble`], [`forward`], [`skill_section`],
//! [`prompt`], [`webhook_prompt`], [`fork_prompt`]; fire-time maths lives in [`cron`] and
//! [`plan`].

pub mod cron;
pub mod plan;
pub mod registry;
pub mod watch;

use std::path::PathBuf;

use actix::prelude::*;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::clock::SharedClock;
use crate::data_dir::DataDir;
use crate::jobs::{Job, JobId};
use crate::ping_budget::{PingBudget, Snapshot};
use crate::prompts::forward;
use crate::prompts::job::{self as prompt, BackgroundContext, JobPromptContext};
use crate::prompts::preamble::BudgetFacts;
use crate::prompts::skill_section::CommandLimits;
use crate::skills::Skill;
use plan::{Due, Plan};

/// A job whose time has come, with the prompt it runs with.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct FireJob {
    /// The job as read from disk.
    pub job: Job,
    /// The complete prompt (tag, preamble for background jobs, skills, body).
    pub prompt: String,
    /// When it was due.
    pub due_at: DateTime<Utc>,
    /// When the scheduler fired it.
    pub fired_at: DateTime<Utc>,
    /// Whether it carries the `[late: …]` marker.
    pub late: bool,
    /// The job file's path relative to the data directory.
    pub rel_path: String,
}

/// Re-read the job directories now (coalesced when several arrive together).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct Reload;

/// Asks what is registered and when each job fires next.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Vec<UpcomingJob>")]
pub struct Upcoming;

/// Asks for the background jobs around now, for a forward schedule built outside the
/// scheduler (webhook jobs).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Vec<forward::ScheduledItem>")]
pub struct ForwardItems;

/// One registered job and its next fire time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpcomingJob {
    /// The job's id.
    pub id: JobId,
    /// When it fires next (`None`: a cron that never fires again).
    pub next: Option<DateTime<Utc>>,
    /// Whether it runs in the background.
    pub background: bool,
    /// The file, relative to the data directory.
    pub rel_path: String,
}

/// Asks the conversation owner whether the user is mid-turn.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "bool")]
pub struct IsBusy;

/// What the scheduler needs to run.
#[derive(Clone)]
pub struct SchedulerConfig {
    /// The data directory (job files, skills, git).
    pub data_dir: DataDir,
    /// The configured zone.
    pub tz: Tz,
    /// The clock.
    pub clock: SharedClock,
    /// Bounds on `` !`command` `` expansion in skills.
    pub limits: CommandLimits,
    /// Watch the directories (off in tests that drive [`Reload`] themselves).
    pub watch: bool,
}

/// The scheduler actor.
pub struct Scheduler {
    config: SchedulerConfig,
    plan: Plan,
    sink: Recipient<FireJob>,
    budget: Addr<PingBudget>,
    busy: Option<Recipient<IsBusy>>,
    timer: Option<SpawnHandle>,
    reload_queued: bool,
    watcher: Option<watch::DirWatcher>,
}

impl Scheduler {
    /// A scheduler that sends fired jobs to `sink`.
    pub fn new(
        config: SchedulerConfig,
        sink: Recipient<FireJob>,
        budget: Addr<PingBudget>,
        busy: Option<Recipient<IsBusy>>,
    ) -> Self {
        let plan = Plan::new(&config.data_dir, config.tz, config.clock.now());
        Self {
            config,
            plan,
            sink,
            budget,
            busy,
            timer: None,
            reload_queued: false,
            watcher: None,
        }
    }

    fn reload(&mut self, ctx: &mut Context<Self>) {
        self.reload_queued = false;
        let now = self.config.clock.now();
        if self.plan.refresh(now) {
            tracing::debug!(jobs = self.plan.len(), "job directories changed");
        }
        self.arm(ctx);
    }

    /// (Re)arms the one timer for the earliest due job.
    fn arm(&mut self, ctx: &mut Context<Self>) {
        if let Some(h) = self.timer.take() {
            ctx.cancel_future(h);
        }
        let Some(at) = self.plan.earliest() else {
            return;
        };
        let sleep = self.config.clock.sleep_until(at);
        self.timer = Some(ctx.spawn(sleep.into_actor(self).map(|(), act, ctx| {
            act.timer = None;
            act.fire_due(ctx);
        })));
    }

    fn fire_due(&mut self, ctx: &mut Context<Self>) {
        let now = self.config.clock.now();
        // Pick up edits that raced the timer before deciding what is due.
        self.plan.refresh(now);
        let due = self.plan.take_due(now);
        for d in due {
            if let Job::Reminder(r) = &d.job {
                self.delete_reminder_file(&d.path, &r.id);
            }
            self.spawn_fire(d, now, ctx);
        }
        self.arm(ctx);
    }

    fn delete_reminder_file(&self, path: &std::path::Path, id: &JobId) {
        match std::fs::remove_file(path) {
            Ok(()) => {
                let data = self.config.data_dir.clone();
                let path = path.to_path_buf();
                let msg = format!("fired reminder {id}");
                // git is a subprocess: keep it off the actor's thread.
                std::thread::spawn(move || data.commit(&path, &msg));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::error!(file = %path.display(), reminder = %id, cause = %e, "could not delete a fired reminder; it will not fire again in this run");
            }
        }
    }

    /// The skills `job` names, read now (edits take effect at the next fire). Unknown names are
    /// left out here and noted in the prompt by the skills section.
    fn job_skills(&self, job: &Job) -> Vec<Skill> {
        let dir = self.config.data_dir.skills();
        let names = job.settings().skills.as_deref().unwrap_or(&[]);
        names
            .iter()
            .filter_map(|name| match crate::skills::read_skill(&dir, name) {
                Ok(found) => found,
                Err(e) => {
                    tracing::warn!(skill = %name, job = %job.id(), cause = %e, "skill could not be read");
                    None
                }
            })
            .collect()
    }

    fn spawn_fire(&mut self, due: Due, now: DateTime<Utc>, ctx: &mut Context<Self>) {
        let items = if due.job.settings().background {
            self.plan.forward_items(now)
        } else {
            Vec::new()
        };
        let skills = self.job_skills(&due.job);
        let budget = self.budget.clone();
        let busy = self.busy.clone();
        let sink = self.sink.clone();
        let config = self.config.clone();
        let fut = async move {
            let budget = match budget.send(Snapshot).await {
                Ok(s) => BudgetFacts::from(&s),
                Err(e) => {
                    tracing::warn!(cause = %e, "ping budget did not answer; assuming it is empty");
                    BudgetFacts::empty()
                }
            };
            let busy = match busy {
                Some(r) => r.send(IsBusy).await.unwrap_or(false),
                None => false,
            };
            let tools = due.job.settings().allowed_tools.clone();
            let ctx = JobPromptContext {
                background: BackgroundContext {
                    now,
                    tz: config.tz,
                    busy,
                    budget,
                    schedule_items: &items,
                    allowed_tools: tools.as_deref(),
                },
                skills: &skills,
                data_dir: config.data_dir.root(),
                limits: config.limits,
                late_since: due.late_since,
            };
            let prompt = prompt::assemble_job_prompt(&due.job, &ctx).await;
            tracing::info!(job = %due.job.id(), file = %due.rel_path, late = due.late_since.is_some(), "job fired");
            sink.do_send(FireJob {
                job: due.job,
                prompt,
                due_at: due.due_at,
                fired_at: now,
                late: due.late_since.is_some(),
                rel_path: due.rel_path,
            });
        };
        ctx.spawn(fut.into_actor(self));
    }
}

impl Actor for Scheduler {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let span = tracing::info_span!("actor", actor = "scheduler");
        let _e = span.enter();
        if self.config.watch {
            let me = ctx.address();
            let dirs: Vec<PathBuf> = vec![
                self.config.data_dir.routines(),
                self.config.data_dir.reminders(),
            ];
            self.watcher = Some(watch::watch(dirs, move || me.do_send(Reload)));
        }
        self.reload(ctx);
        tracing::info!(jobs = self.plan.len(), "scheduler started");
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "scheduler", "scheduler stopped");
    }
}

impl Handler<Reload> for Scheduler {
    type Result = ();

    fn handle(&mut self, _msg: Reload, ctx: &mut Self::Context) {
        // Bursts of file events collapse into one re-read on the next turn of the mailbox.
        if self.reload_queued {
            return;
        }
        self.reload_queued = true;
        ctx.run_later(std::time::Duration::from_millis(20), |act, ctx| {
            act.reload(ctx)
        });
    }
}

impl Handler<ForwardItems> for Scheduler {
    type Result = MessageResult<ForwardItems>;

    fn handle(&mut self, _msg: ForwardItems, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.plan.forward_items(self.config.clock.now()))
    }
}

impl Handler<Upcoming> for Scheduler {
    type Result = MessageResult<Upcoming>;

    fn handle(&mut self, _msg: Upcoming, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.plan.upcoming())
    }
}
