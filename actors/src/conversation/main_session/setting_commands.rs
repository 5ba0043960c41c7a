//! The slash commands that show or change a setting: `/permissions`, `/model`, `/thinking`
//! and `/config` (SPEC §12). Model, thinking and permission mode live in the runtime config,
//! so they survive restarts; what concerns the running CLI is applied to it at once. Split
//! from `commands.rs`, which takes the commands in.

use actix::prelude::*;

use super::commands::{Command, EXIT_FORK_FIRST};
use super::MainSession;
use crate::agent::permissions::modes;
use crate::claude::brain::PermissionMode;
use crate::records::runtime_config::Key;

impl MainSession {
    /// `fork_idle_timeout` in minutes.
    pub(super) fn idle_minutes(&self) -> u32 {
        u32::try_from(self.config.runtime.values().fork_idle_timeout_mins).unwrap_or(10)
    }

    /// `/permissions MODE`: this session's policy (a fork's own while the user is in one), and
    /// the CLI's mode to match. `bypassPermissions` as root without `IS_SANDBOX=1` is refused by
    /// the CLI: say so instead of failing silently.
    pub(super) fn set_permissions(
        &mut self,
        mode: Option<String>,
        ctx: &mut Context<Self>,
    ) -> ResponseActFuture<Self, String> {
        if let Some(fork) = self.forks.open_fork() {
            return Box::pin(
                async move {
                    fork.send(Command::Permissions(mode))
                        .await
                        .unwrap_or_else(|_| "the fork has ended.".into())
                }
                .into_actor(self),
            );
        }
        let scope = if self.forks.is_fork() {
            " (this fork only)"
        } else {
            ""
        };
        let Some(mode) = mode else {
            let current = self.permissions.policy.mode;
            let default = if current == self.config.runtime.values().permission_mode {
                " (default)"
            } else {
                ""
            };
            return Box::pin(fut::ready(format!(
                "permission mode: {}{default}{scope}",
                modes::choice_label(current)
            )));
        };
        let Some(parsed) = modes::parse(&mode) else {
            return Box::pin(fut::ready(format!(
                "unknown permission mode {mode:?} ({})",
                modes::listed()
            )));
        };
        if parsed == PermissionMode::BypassPermissions {
            if let Some(why) = crate::agent::permissions::bypass_refused_as_root() {
                return Box::pin(fut::ready(why.to_owned()));
            }
        }
        self.permissions.policy.mode = parsed;
        let scope = if self.forks.is_fork() {
            " (this fork only)"
        } else {
            ""
        };
        let done = format!("permission mode: {}{scope}", modes::choice_label(parsed));
        let _ = ctx;
        let Some(driver) = self.process.driver() else {
            return Box::pin(fut::ready(done));
        };
        Box::pin(
            async move {
                match driver
                    .set_permission_mode(super::host::cli_mode(parsed))
                    .await
                {
                    Ok(()) => done,
                    Err(e) => format!("{done} — but the running session refused it: {e}"),
                }
            }
            .into_actor(self),
        )
    }

    /// `/model` and `/thinking`: with a value, set the main conversation's (refused inside a
    /// fork); without, show the one in force (the fork's inside a fork).
    pub(super) fn main_setting(
        &mut self,
        what: &str,
        value: Option<String>,
        ctx: &mut Context<Self>,
    ) -> ResponseActFuture<Self, String> {
        let in_fork = self.forks.in_fork() || self.forks.is_fork();
        match value.filter(|v| !v.trim().is_empty()) {
            Some(_) if in_fork => Box::pin(fut::ready(EXIT_FORK_FIRST.to_owned())),
            Some(v) => self.configure(format!("{what}.main"), v, ctx),
            None => {
                let key = format!("{what}.{}", if in_fork { "fork" } else { "main" });
                let line = self
                    .config
                    .runtime
                    .get(&key)
                    .unwrap_or_else(|e| e.to_string());
                Box::pin(fut::ready(line))
            }
        }
    }

    /// Sets a runtime config key and applies what concerns the running conversation: the model
    /// at once, the permission mode at once, thinking from the next process (restarted when idle).
    pub(super) fn configure(
        &mut self,
        key: String,
        value: String,
        ctx: &mut Context<Self>,
    ) -> ResponseActFuture<Self, String> {
        let bypass = value.trim().eq_ignore_ascii_case("bypassPermissions");
        if bypass && Key::from_name(&key) == Some(Key::PermissionMode) {
            if let Some(why) = crate::agent::permissions::bypass_refused_as_root() {
                return Box::pin(fut::ready(why.to_owned()));
            }
        }
        let before = *self.config.runtime.values();
        let confirmation = match self.config.runtime.set(&key, &value) {
            Ok(c) => c,
            Err(e) => return Box::pin(fut::ready(e.to_string())),
        };
        let after = *self.config.runtime.values();
        if after.thinking_main != before.thinking_main && !self.turns.busy() {
            // Thinking is a start-up flag: the next message starts a process with it.
            self.process.live = None;
        }
        if after.main_idle_release_mins != before.main_idle_release_mins {
            // The idle timer counts again with the new setting (0: it never fires).
            self.arm_idle_release(ctx);
        }
        let Some(driver) = self.process.driver() else {
            return Box::pin(fut::ready(confirmation));
        };
        Box::pin(
            async move {
                if after.model_main != before.model_main {
                    let model = after.model_main.map(|m| m.as_str().to_owned());
                    if let Err(e) = driver.set_model(model).await {
                        tracing::warn!(cause = %e, "set_model failed");
                    }
                }
                if after.permission_mode != before.permission_mode {
                    if let Err(e) = driver
                        .set_permission_mode(super::host::cli_mode(after.permission_mode))
                        .await
                    {
                        tracing::warn!(cause = %e, "set_permission_mode failed");
                        return format!("{confirmation} (the running session refused it: {e})");
                    }
                }
                confirmation
            }
            .into_actor(self),
        )
    }
}
