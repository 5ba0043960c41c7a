//! The idle footprint *(ours, SPEC §16)*: a claude CLI process holds a few hundred megabytes
//! while it waits. When the conversation has had nothing to do for `main_idle_release`
//! (runtime config, default 30 minutes, 0 = never), its process is closed; the next message,
//! foreground job, button or command starts it again on the same saved session (`--resume`),
//! so nothing of the conversation is lost. No "i'm back" line is shown for it: that line belongs
//! to a restart of the bot.
//!
//! The timer runs on the injected clock: it is armed whenever the conversation falls idle (a
//! process started with nothing to send, a turn's end, a fork's end, a change of the setting)
//! and made stale by any new line ([`super::launch::Process::note_activity`]). When it fires
//! and the conversation is still idle — nothing in flight or waiting, no process starting, no
//! interactive fork open — the process is shut down cleanly.

use std::sync::Arc;

use actix::prelude::*;

use super::MainSession;

/// Asks whether the conversation's CLI process is running (closed while idle, see the module).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "bool")]
pub struct ProcessRunning;

impl Handler<ProcessRunning> for MainSession {
    type Result = bool;
    fn handle(&mut self, _msg: ProcessRunning, _ctx: &mut Self::Context) -> bool {
        self.process.running()
    }
}

impl MainSession {
    /// The conversation may be idle now: start the timer for the idle release.
    pub(super) fn arm_idle_release(&mut self, ctx: &mut Context<Self>) {
        if !self.forks.is_main() || !self.process.running() || self.turns.busy() {
            return;
        }
        self.process.note_activity();
        let Some(after) = self.config.runtime.values().main_idle_release() else {
            return;
        };
        let epoch = self.process.idle_epoch;
        let clock = Arc::clone(&self.config.clock);
        let deadline =
            clock.now() + chrono::Duration::from_std(after).unwrap_or(chrono::Duration::MAX);
        ctx.spawn(
            clock
                .sleep_until(deadline)
                .into_actor(self)
                .map(move |(), act, ctx| act.release_if_idle(epoch, ctx)),
        );
    }

    /// The timer of `epoch` fired: closes the process if nothing happened since.
    fn release_if_idle(&mut self, epoch: u64, ctx: &mut Context<Self>) {
        if epoch != self.process.idle_epoch || self.process.launching || self.turns.busy() {
            return;
        }
        if self.forks.in_fork() {
            // The fork's end arms the timer again.
            return;
        }
        let Some(live) = self.process.live.take() else {
            return;
        };
        tracing::info!(
            session_id = ?self.saved.id,
            "conversation idle: closing its claude cli process until the next message"
        );
        ctx.spawn(
            async move {
                match Arc::try_unwrap(live.driver) {
                    Ok(driver) => {
                        let exit = driver.shutdown().await;
                        tracing::info!(code = ?exit.code, "idle claude cli closed");
                    }
                    Err(_) => tracing::debug!("driver still in use; dropping it kills the process"),
                }
            }
            .into_actor(self),
        );
    }
}
