//! Starting a background fork: launching its CLI, again when a start fails, and sending the
//! job's prompt with the timestamp header (SPEC §17).
//!
//! - A fork of the main session that cannot start (its transcript is gone) is launched again at
//!   once as an isolated run, within the same attempt.
//! - A start that still fails — the CLI cannot be spawned, or dies or stops answering before
//!   the initialize handshake completes — is tried again after [`START_RETRY_WAITS`] (5 s, then
//!   15 s: three attempts, as the original's `forks.py`), waiting on the injected clock. Each
//!   new attempt forks the main session again if the job is not isolated. After the third the
//!   owner reads "… couldn't complete.". A CLI refused for want of the sandbox
//!   (`sandbox: on`, SPEC §20) is not tried again: the owner reads why at once.
//! - The prompt goes out as the conversation's messages do: `[2026-02-24 Tue 02:30 PM PST]`,
//!   then, unless the job is `isolated`, the pending updates peeked (never popped: the main
//!   session still gets them) under the read-only heading, then the prompt
//!   ([`crate::conversation::main_session::header::background_prompt`]). Both are read when the prompt is
//!   sent, after any retry.

use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;

use super::progress::{Ending, RunState};
use super::{human_name, short_error, BackgroundFork, Event, ForkHost, ForkTools};
use crate::agent::permissions::file_hooks::FileHooks;
use crate::agent::permissions::read_scope::ReadScope;
use crate::claude::brain::Handlers;
use crate::conversation::main_session::header::background_prompt;
use crate::records::pending_updates::Peek;

/// The waits before the second and the third attempt to start a background fork's CLI.
pub const START_RETRY_WAITS: [Duration; 2] = [Duration::from_secs(5), Duration::from_secs(15)];

impl BackgroundFork {
    /// Starts the process and sends the job's prompt.
    pub(super) fn launch(&mut self, ctx: &mut Context<Self>) {
        let options = self.options();
        // The hooks judge Bash as the CLI will run it: in the OS sandbox or not.
        let sandboxed = options.sandbox.as_ref().is_some_and(|s| {
            crate::claude::sandbox::in_force(s.setting, &crate::claude::sandbox::support())
        });
        let handlers = Handlers {
            host: Arc::new(ForkHost::new(
                FileHooks::new(self.config.data_dir.clone(), sandboxed),
                ReadScope::new(
                    crate::agent::tools::SessionKind::Background(self.rules()).effective_allowed(),
                    self.config.data_dir.clone(),
                ),
                ctx.address(),
            )),
            tools: Arc::new(ForkTools::for_fork(
                self.rules(),
                &self.config,
                ctx.address(),
            )),
        };
        let launcher = Arc::clone(&self.config.launcher);
        ctx.wait(
            async move { launcher.launch(options, handlers).await }
                .into_actor(self)
                .map(|res, act, ctx| match res {
                    Ok(launched) => act.run(launched, ctx),
                    Err(crate::claude::brain::Error::StartFailed { .. })
                        if act.persistent.as_ref().is_some_and(|p| p.resuming()) =>
                    {
                        if let Some(p) = act.persistent.as_mut() {
                            p.start_new();
                        }
                        act.launch(ctx);
                    }
                    Err(e @ crate::claude::brain::Error::StartFailed { .. }) if !act.isolated() => {
                        tracing::warn!(job = %act.fired.job.id(), cause = %e, "could not fork the main session; running isolated");
                        act.parent_session = None;
                        act.launch(ctx);
                    }
                    Err(e) => act.start_failed(&e, ctx),
                }),
        );
    }

    /// One attempt failed: waits and tries again, or after the last attempt gives up.
    fn start_failed(&mut self, cause: &crate::claude::brain::Error, ctx: &mut Context<Self>) {
        // Only a start that is under way fails (a launch is awaited: nothing ends the run then).
        let RunState::Starting { failed_attempts } = &mut self.state else {
            return;
        };
        let attempt = *failed_attempts;
        *failed_attempts += 1;
        let attempts = START_RETRY_WAITS.len() + 1;
        if let crate::claude::brain::Error::Sandbox(why) = cause {
            // Not transient: the machine lacks what `sandbox: on` needs. Said once, with why.
            tracing::error!(job = %self.fired.job.id(), %why, "background fork not started: no sandbox");
            let ending = Ending::Failed {
                spent: None,
                error: short_error(&why.to_string()),
                transient: None,
            };
            let name = human_name(&self.fired);
            self.finish(
                ending,
                Some(format!("{name} couldn't complete: {why}")),
                ctx,
            );
            return;
        }
        let Some(wait) = START_RETRY_WAITS.get(attempt as usize).copied() else {
            tracing::error!(job = %self.fired.job.id(), %cause, attempts, "could not start the background fork");
            let ending = Ending::Failed {
                spent: None,
                error: short_error(&format!("could not start: {cause}")),
                transient: None,
            };
            let name = human_name(&self.fired);
            self.finish(ending, Some(format!("{name} couldn't complete.")), ctx);
            return;
        };
        tracing::warn!(
            job = %self.fired.job.id(),
            %cause,
            attempt = attempt + 1,
            attempts,
            retry_in_secs = wait.as_secs(),
            "background fork did not start; trying again"
        );
        let clock = Arc::clone(&self.config.clock);
        let deadline = clock.now() + chrono::Duration::from_std(wait).unwrap_or_default();
        // Spawned, not waited on: the time limit still applies while it waits.
        ctx.spawn(
            clock
                .sleep_until(deadline)
                .into_actor(self)
                .map(|(), act, ctx| {
                    if !act.state.has_ended() {
                        act.parent_session = act.main_session.clone();
                        act.launch(ctx);
                    }
                }),
        );
    }

    fn run(&mut self, launched: crate::claude::brain::Launched, ctx: &mut Context<Self>) {
        // A run that has ended keeps its ending (it cannot end while its launch is awaited).
        if self.state.has_ended() {
            return;
        }
        let me = ctx.address();
        let mut events = launched.events;
        tokio::spawn(async move {
            while let Some(ev) = events.recv().await {
                me.do_send(Event(ev));
            }
        });
        self.state = RunState::Running {
            driver: Arc::new(launched.driver),
        };
        // A persistent routine's session past its threshold is compacted first; the prompt
        // goes when the compaction's result comes (`events.rs`).
        if self.persistent.as_mut().is_some_and(|p| p.compact_first()) {
            self.send_text("/compact".to_owned(), "the compaction", ctx);
        } else {
            self.send_prompt(ctx);
        }
    }

    /// Sends the job's prompt, with the timestamp header and the peeked updates.
    pub(super) fn send_prompt(&mut self, ctx: &mut Context<Self>) {
        let Some(driver) = self.state.driver() else {
            return;
        };
        let pending = (!self.fired.job.settings().isolated).then(|| self.peers.pending.clone());
        let clock = Arc::clone(&self.config.clock);
        let tz = self.config.tz;
        let prompt = self.fired.prompt.clone();
        let job = self.fired.job.id().to_string();
        let memory = self
            .memory_in_first_message()
            .then(|| self.config.data_dir.clone());
        ctx.wait(
            async move {
                let peeked = match pending {
                    Some(pending) => pending.send(Peek).await.unwrap_or_else(|e| {
                        tracing::warn!(%job, cause = %e, "pending updates did not answer; the prompt goes without them");
                        Vec::new()
                    }),
                    None => Vec::new(),
                };
                let mut text = background_prompt(clock.now(), tz, &peeked, &prompt);
                if let Some(data) = memory {
                    text = crate::agent::memory::first_message(&data, &text);
                }
                driver
                    .send_user(crate::claude::brain::UserMessage::text(text))
                    .await
            }
            .into_actor(self)
            .map(|res, act, ctx| act.sent(res.map(drop), "the job's prompt", ctx)),
        );
    }

    /// Sends `text` as it is (a command such as `/compact`).
    fn send_text(&mut self, text: String, what: &'static str, ctx: &mut Context<Self>) {
        let Some(driver) = self.state.driver() else {
            return;
        };
        ctx.wait(
            async move {
                driver
                    .send_user(crate::claude::brain::UserMessage::text(text))
                    .await
            }
            .into_actor(self)
            .map(move |res, act, ctx| act.sent(res.map(drop), what, ctx)),
        );
    }

    /// A message that could not be sent ends the job.
    fn sent(
        &mut self,
        res: Result<(), crate::claude::brain::Error>,
        what: &str,
        ctx: &mut Context<Self>,
    ) {
        if let Err(e) = res {
            tracing::error!(cause = %e, "could not send {what}");
            let ending = Ending::Failed {
                spent: None,
                error: short_error(&format!("could not send {what}: {e}")),
                transient: None,
            };
            let name = human_name(&self.fired);
            self.finish(ending, Some(format!("{name} couldn't complete.")), ctx);
        }
    }
}
