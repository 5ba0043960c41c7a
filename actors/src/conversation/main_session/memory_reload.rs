//! The memory in a cleared conversation (SPEC §18): the CLI reads its system prompt — and so
//! `context.md` — once, when its process starts, and the CLI's own `/clear` keeps that process.
//! So when `context.md` has changed since the process started, the cleared conversation's
//! process is closed as the clear ends, and the next line starts the cleared session afresh
//! (same id, nothing to resume yet) with the memory as it is now. Unchanged, the process stays.

use std::sync::Arc;

use actix::prelude::*;

use super::MainSession;

impl MainSession {
    /// The `/clear` turn has ended: restarts the process when the memory has changed since it
    /// started (see the module).
    pub(super) fn reload_memory_after_clear(&mut self, ctx: &mut Context<Self>) {
        if !self.forks.is_main() || !self.saved.memory_changed(&self.config.data_dir) {
            return;
        }
        let Some(live) = self.process.live.take() else {
            return;
        };
        tracing::info!(session_id = ?self.saved.id, "context.md changed: the cleared conversation starts a new process to read it");
        self.saved.cleared_restart = true;
        ctx.spawn(
            async move {
                match Arc::try_unwrap(live.driver) {
                    Ok(driver) => {
                        let exit = driver.shutdown().await;
                        tracing::info!(code = ?exit.code, "claude cli closed after /clear");
                    }
                    Err(_) => tracing::debug!("driver still in use; dropping it kills the process"),
                }
            }
            .into_actor(self),
        );
        // Lines already waiting go to the new process.
        if !self.turns.waiting.is_empty() {
            self.ensure_launched(ctx);
        }
    }
}
