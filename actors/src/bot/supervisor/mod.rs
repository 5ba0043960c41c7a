//! The Supervisor: starts the actors in order, restarts one that fails, and logs every start,
//! stop, restart and failure with its cause.
//!
//! Start order follows the dependencies ([`start`]): [`PingBudget`], [`PendingUpdates`] and
//! [`SessionRecords`], the [`RunLog`] and the [`UsageLog`] first (they only own state), then — with a conversation — the
//! [`GoogleAccount`] (it appends button updates and tells the surface about Google) and the
//! [`MainSession`] (it pops pending updates), then the [`JobRunner`] (it asks the budget and the main session at fire time, hands
//! foreground jobs to the main session and starts background forks), then the [`Scheduler`] (it
//! sends due jobs to the runner). Each child runs under an actix `Supervisor`, so a restart keeps
//! its address — whoever holds a handle keeps talking to it — and the child reloads its state
//! from disk in `started`.
//!
//! Messages: [`GetHandles`] (the children's addresses, for surfaces), [`RestartChild`] (stop a
//! child with a cause; it comes back fresh), [`Shutdown`] (stop the children in reverse order,
//! then the system). A watchdog notices a child that died without a restart (a panic inside a
//! handler takes its context down) and shuts the bot down with that as the reason, rather than
//! run on with a missing part.

use std::fmt;
use std::time::Duration;

use actix::prelude::*;

use crate::conversation::main_session::MainSession;
use crate::google::GoogleAccount;
use crate::records::pending_updates::PendingUpdates;
use crate::records::ping_budget::PingBudget;
use crate::records::runs::RunLog;
use crate::records::sessions::SessionRecords;
use crate::records::usage::UsageLog;
use crate::scheduling::job_runner::JobRunner;
use crate::scheduling::scheduler::Scheduler;

mod start;

pub use start::{JobSink, SupervisorConfig};

/// How often the watchdog checks that every child is alive.
const WATCHDOG_INTERVAL: Duration = Duration::from_secs(1);

/// The supervised children.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Child {
    /// The ping budget.
    PingBudget,
    /// The pending-updates queue.
    PendingUpdates,
    /// The session history and button prompts.
    SessionRecords,
    /// The run history and the runs in progress.
    RunLog,
    /// What the conversation's turns cost.
    UsageLog,
    /// The scheduler.
    Scheduler,
    /// The job runner.
    JobRunner,
    /// The main conversation.
    MainSession,
    /// The Google account (runs with a conversation, when Google is configured).
    GoogleAccount,
}

impl fmt::Display for Child {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Child::PingBudget => "ping_budget",
            Child::PendingUpdates => "pending_updates",
            Child::SessionRecords => "session_records",
            Child::RunLog => "run_log",
            Child::UsageLog => "usage_log",
            Child::Scheduler => "scheduler",
            Child::JobRunner => "job_runner",
            Child::MainSession => "main_session",
            Child::GoogleAccount => "google_account",
        })
    }
}

/// Stop so the actor's supervisor restarts it fresh (its state reloads from disk).
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct Restart {
    /// Why, for the log.
    pub cause: String,
}

macro_rules! restartable {
    ($actor:ty, $name:literal) => {
        impl Handler<Restart> for $actor {
            type Result = ();
            fn handle(&mut self, msg: Restart, ctx: &mut Self::Context) {
                tracing::warn!(actor = $name, cause = %msg.cause, "actor stopping for a restart");
                ctx.stop();
            }
        }
    };
}
restartable!(PingBudget, "ping_budget");
restartable!(PendingUpdates, "pending_updates");
restartable!(SessionRecords, "session_records");
restartable!(RunLog, "run_log");
restartable!(UsageLog, "usage_log");
restartable!(Scheduler, "scheduler");
restartable!(JobRunner, "job_runner");
restartable!(MainSession, "main_session");
restartable!(GoogleAccount, "google_account");

impl Supervised for Scheduler {
    fn restarting(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "scheduler", "actor restarting");
    }
}

/// The children's addresses.
#[derive(Clone)]
pub struct Handles {
    /// The ping budget.
    pub ping_budget: Addr<PingBudget>,
    /// The pending-updates queue.
    pub pending_updates: Addr<PendingUpdates>,
    /// The session history and button prompts.
    pub session_records: Addr<SessionRecords>,
    /// The run history and the runs in progress.
    pub run_log: Addr<RunLog>,
    /// What the conversation's turns cost (`state/usage.jsonl`).
    pub usage_log: Addr<UsageLog>,
    /// The scheduler.
    pub scheduler: Addr<Scheduler>,
    /// The job runner (fired jobs and webhooks go here).
    pub job_runner: Addr<JobRunner>,
    /// The main conversation, when the bot runs one.
    pub main_session: Option<Addr<MainSession>>,
    /// The Google account, beside the conversation.
    pub google: Option<Addr<GoogleAccount>>,
}

/// Asks for the children's addresses.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Handles")]
pub struct GetHandles;

/// Restart one child, logging the cause.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct RestartChild {
    /// Which child.
    pub child: Child,
    /// Why.
    pub cause: String,
}

/// Stop everything, children in reverse start order.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct Shutdown {
    /// Why, for the log (and the user).
    pub reason: String,
}

/// The supervisor actor.
pub struct Supervisor {
    handles: Handles,
    stopping: bool,
    /// Carries the shutdown reason to whoever watches (a surface that says goodbye).
    shutdown: tokio::sync::watch::Sender<Option<String>>,
}

impl Supervisor {
    fn dead_child(&self) -> Option<Child> {
        let h = &self.handles;
        if !h.ping_budget.connected() {
            Some(Child::PingBudget)
        } else if !h.pending_updates.connected() {
            Some(Child::PendingUpdates)
        } else if !h.session_records.connected() {
            Some(Child::SessionRecords)
        } else if !h.run_log.connected() {
            Some(Child::RunLog)
        } else if !h.usage_log.connected() {
            Some(Child::UsageLog)
        } else if !h.scheduler.connected() {
            Some(Child::Scheduler)
        } else if !h.job_runner.connected() {
            Some(Child::JobRunner)
        } else if h.main_session.as_ref().is_some_and(|m| !m.connected()) {
            Some(Child::MainSession)
        } else if h.google.as_ref().is_some_and(|g| !g.connected()) {
            Some(Child::GoogleAccount)
        } else {
            None
        }
    }
}

impl Actor for Supervisor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        tracing::info!(actor = "supervisor", "supervisor started");
        ctx.run_interval(WATCHDOG_INTERVAL, |act, ctx| {
            if act.stopping {
                return;
            }
            if let Some(child) = act.dead_child() {
                tracing::error!(actor = %child, cause = "its context ended without a restart (a panic?)", "actor failed");
                ctx.notify(Shutdown {
                    reason: format!("the {child} actor failed"),
                });
            }
        });
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "supervisor", "supervisor stopped");
    }
}

/// Asks for a receiver that sees the shutdown reason once a shutdown begins (from a signal,
/// a surface, or the watchdog after an actor failure).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "tokio::sync::watch::Receiver<Option<String>>")]
pub struct WatchShutdown;

impl Handler<WatchShutdown> for Supervisor {
    type Result = MessageResult<WatchShutdown>;
    fn handle(&mut self, _msg: WatchShutdown, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.shutdown.subscribe())
    }
}

impl Handler<GetHandles> for Supervisor {
    type Result = MessageResult<GetHandles>;
    fn handle(&mut self, _msg: GetHandles, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.handles.clone())
    }
}

impl Handler<RestartChild> for Supervisor {
    type Result = ();
    fn handle(&mut self, msg: RestartChild, _ctx: &mut Self::Context) {
        tracing::warn!(actor = %msg.child, cause = %msg.cause, "restarting actor");
        let restart = Restart { cause: msg.cause };
        match msg.child {
            Child::PingBudget => self.handles.ping_budget.do_send(restart),
            Child::PendingUpdates => self.handles.pending_updates.do_send(restart),
            Child::SessionRecords => self.handles.session_records.do_send(restart),
            Child::RunLog => self.handles.run_log.do_send(restart),
            Child::UsageLog => self.handles.usage_log.do_send(restart),
            Child::Scheduler => self.handles.scheduler.do_send(restart),
            Child::JobRunner => self.handles.job_runner.do_send(restart),
            Child::MainSession => {
                if let Some(m) = &self.handles.main_session {
                    m.do_send(restart);
                }
            }
            Child::GoogleAccount => {
                if let Some(g) = &self.handles.google {
                    g.do_send(restart);
                }
            }
        }
    }
}

impl Handler<Shutdown> for Supervisor {
    type Result = ();
    fn handle(&mut self, msg: Shutdown, ctx: &mut Self::Context) {
        if std::mem::replace(&mut self.stopping, true) {
            return;
        }
        tracing::info!(reason = %msg.reason, "shutting down");
        self.shutdown.send_replace(Some(msg.reason.clone()));
        // Reverse start order: nothing fires while the state owners are going away.
        for child in [
            Child::GoogleAccount,
            Child::Scheduler,
            Child::JobRunner,
            Child::MainSession,
            Child::UsageLog,
            Child::RunLog,
            Child::SessionRecords,
            Child::PendingUpdates,
            Child::PingBudget,
        ] {
            tracing::info!(actor = %child, "stopping actor");
        }
        // Runs cut off from here on stay open: the next start runs them again.
        self.handles
            .job_runner
            .do_send(crate::scheduling::job_runner::Stopping);
        let h = self.handles.clone();
        let stop_all = async move {
            if let Some(main) = &h.main_session {
                // Give the CLI its clean exit (it finishes a running turn) before the system goes.
                let close = main.send(crate::conversation::main_session::Close);
                if tokio::time::timeout(Duration::from_secs(8), close)
                    .await
                    .is_err()
                {
                    tracing::warn!(actor = "main_session", "closing the claude cli timed out");
                }
            }
            // The children's contexts end with the system.
            System::current().stop();
        };
        ctx.spawn(stop_all.into_actor(self));
    }
}
