//! Starting the children in order and wiring them to one another (see the module map in
//! [`super`]): who gets whose address, and what the job runner hands its jobs to.

use std::sync::Arc;

use actix::prelude::*;
use chrono_tz::Tz;

use super::{Child, Handles, Supervisor};
use crate::agent::prompts::skill_section::CommandLimits;
use crate::agent::webhook_screen::{ClaudeScreener, Screener, SCREEN_TIMEOUT};
use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::conversation::main_session::{FireJob, IsBusy, MainSession, MainSessionConfig};
use crate::conversation::surface::SurfaceEvent;
use crate::google::{self, GoogleAccount};
use crate::records::pending_updates::PendingUpdates;
use crate::records::ping_budget::PingBudget;
use crate::records::runs::RunLog;
use crate::records::sessions::SessionRecords;
use crate::records::usage::UsageLog;
use crate::scheduling::fork::background::{BackgroundConfig, BackgroundPeers};
use crate::scheduling::job_runner::{BackgroundSetup, Delivery, JobRunner, JobRunnerConfig};
use crate::scheduling::scheduler::{Scheduler, SchedulerConfig};

/// Where fired jobs go once the job runner has built them.
pub enum JobSink {
    /// To this recipient (tests, tools without a conversation), background jobs included; `busy`
    /// answers [`IsBusy`].
    Recipient {
        /// Receives fired jobs.
        jobs: Recipient<FireJob>,
        /// Answers whether the user is mid-turn.
        busy: Option<Recipient<IsBusy>>,
    },
    /// To a main session started by the supervisor, which shows its conversation on `surface`;
    /// background jobs get background forks.
    Conversation {
        /// The main session's settings.
        main: Box<MainSessionConfig>,
        /// Where the conversation is shown.
        surface: Recipient<SurfaceEvent>,
    },
}

/// What the supervisor needs to start the children.
#[derive(Clone)]
pub struct SupervisorConfig {
    /// The data directory.
    pub data_dir: DataDir,
    /// The configured zone.
    pub tz: Tz,
    /// The clock every child reads.
    pub clock: SharedClock,
    /// Watch the job directories for changes.
    pub watch_jobs: bool,
    /// Google's REST base: with a conversation, the Google account runs against it.
    pub google: Option<google::ApiBase>,
}

impl Supervisor {
    /// Starts the children in order and the supervisor over them; fired jobs go to `sink`.
    pub fn start(config: SupervisorConfig, sink: JobSink) -> Addr<Supervisor> {
        let SupervisorConfig {
            data_dir,
            tz,
            clock,
            watch_jobs,
            google: google_base,
        } = config;
        let started = |child: Child| tracing::info!(actor = %child, "actor started by supervisor");

        let budget_clock = clock.clone();
        let budget_dir = data_dir.clone();
        let ping_budget = actix::Supervisor::start(move |_| {
            PingBudget::in_data_dir(&budget_dir, budget_clock, tz)
        });
        started(Child::PingBudget);

        let pending_clock = clock.clone();
        let pending_dir = data_dir.clone();
        let pending_updates = actix::Supervisor::start(move |_| {
            PendingUpdates::in_data_dir(&pending_dir, pending_clock, tz)
        });
        started(Child::PendingUpdates);

        let records_clock = clock.clone();
        let records_dir = data_dir.clone();
        let session_records = actix::Supervisor::start(move |_| {
            SessionRecords::in_data_dir(&records_dir, records_clock, tz)
        });
        started(Child::SessionRecords);

        let runs_clock = clock.clone();
        let runs_dir = data_dir.clone();
        let run_log =
            actix::Supervisor::start(move |_| RunLog::in_data_dir(&runs_dir, runs_clock, tz));
        started(Child::RunLog);

        let usage_clock = clock.clone();
        let usage_dir = data_dir.clone();
        let usage_log =
            actix::Supervisor::start(move |_| UsageLog::in_data_dir(&usage_dir, usage_clock, tz));
        started(Child::UsageLog);

        let mut google = None;
        let (main_session, delivery, screener) = match sink {
            JobSink::Recipient { jobs, busy } => (None, Delivery::Recipient { jobs, busy }, None),
            JobSink::Conversation { main, surface } => {
                if let Some(base) = google_base {
                    google = start_google(&data_dir, base, &clock, &surface, &pending_updates);
                }
                let mut main = *main;
                main.usage = Some(usage_log.clone().recipient());
                let config = BackgroundConfig {
                    data_dir: main.data_dir.clone(),
                    tz: main.tz,
                    clock: main.clock.clone(),
                    launcher: main.launcher.clone(),
                    binary: main.binary.clone(),
                    system_prompt: main.system_prompt.clone(),
                    timeout: main.runtime.values().bg_fork_timeout(),
                    cli_env: main.cli_env.clone(),
                };
                let screener: Arc<dyn Screener> = Arc::new(ClaudeScreener {
                    binary: main.binary.clone(),
                    cwd: main.data_dir.root().to_path_buf(),
                    env: main.cli_env.clone(),
                    timeout: SCREEN_TIMEOUT,
                });
                let pending = pending_updates.clone();
                let records = session_records.clone();
                tell_owner_of_full_disk(surface.clone());
                let fork_surface = surface.clone();
                let addr = actix::Supervisor::start(move |_| {
                    MainSession::new(main, surface, pending, records)
                });
                started(Child::MainSession);
                let peers = BackgroundPeers {
                    surface: fork_surface,
                    pending: pending_updates.clone(),
                    budget: ping_budget.clone(),
                    busy: addr.clone().recipient(),
                    quiet: addr.clone().recipient(),
                    records: session_records.clone(),
                };
                let delivery = Delivery::Conversation {
                    main: addr.clone(),
                    forks: Box::new(BackgroundSetup { config, peers }),
                };
                (Some(addr), delivery, Some(screener))
            }
        };

        let runner_config = JobRunnerConfig {
            data_dir: data_dir.clone(),
            tz,
            clock: clock.clone(),
            limits: CommandLimits::default(),
            budget: ping_budget.clone(),
            runs: run_log.clone(),
            screener,
            delivery,
        };
        let job_runner = actix::Supervisor::start(move |_| JobRunner::new(runner_config));
        started(Child::JobRunner);

        let sched_config = SchedulerConfig {
            data_dir,
            tz,
            clock,
            watch: watch_jobs,
            runs: Some(run_log.clone()),
            pending: Some(pending_updates.clone().recipient()),
        };
        let runner = job_runner.clone().recipient();
        let scheduler = actix::Supervisor::start(move |_| Scheduler::new(sched_config, runner));
        started(Child::Scheduler);

        Supervisor {
            handles: Handles {
                ping_budget,
                pending_updates,
                session_records,
                run_log,
                usage_log,
                scheduler,
                job_runner,
                main_session,
                google,
            },
            stopping: false,
            shutdown: tokio::sync::watch::channel(None).0,
        }
        .start()
    }
}

/// The Google account beside the conversation; Google stays off (logged) when its client
/// cannot be built.
fn start_google(
    data_dir: &DataDir,
    base: google::ApiBase,
    clock: &SharedClock,
    surface: &Recipient<SurfaceEvent>,
    pending_updates: &Addr<PendingUpdates>,
) -> Option<Addr<GoogleAccount>> {
    let paths = google::Paths::in_data_dir(data_dir);
    match google::Api::new(paths, base) {
        Ok(api) => {
            let (surface, updates, clock) = (
                surface.clone(),
                pending_updates.clone().recipient(),
                clock.clone(),
            );
            let addr =
                actix::Supervisor::start(move |_| GoogleAccount::new(api, clock, surface, updates));
            tracing::info!(actor = %Child::GoogleAccount, "actor started by supervisor");
            Some(addr)
        }
        Err(e) => {
            tracing::error!(actor = %Child::GoogleAccount, cause = %e, "actor failed to start; Google stays off");
            None
        }
    }
}

/// Forwards each full-disk episode's start and end ([`crate::base::disk_space`]) to the owner.
fn tell_owner_of_full_disk(surface: Recipient<SurfaceEvent>) {
    let mut events = crate::base::disk_space::subscribe();
    actix::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match events.recv().await {
                Ok(event) => surface.do_send(SurfaceEvent::Notice(event.text())),
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            }
        }
    });
}
