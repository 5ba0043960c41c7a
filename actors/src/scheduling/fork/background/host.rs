//! A background fork's answers to the CLI: it never asks the user (anything the CLI would ask
//! about is denied), its reads are held to its allowed set ([`ReadScope`]: the CLI itself lets
//! any read inside the data directory through), the file hooks every session registers apply,
//! the memory and profile files are never written (`context.md`, `USER.md`, `IDENTITY.md`),
//! and the Stop hook enforces the job's reporting mode by asking the fork whether it may finish.

use actix::prelude::*;
use serde_json::Value;

use super::{human_name, mode, BackgroundFork, MAX_STOP_BLOCKS};
use crate::agent::permissions::read_scope::ReadScope;
use crate::agent::permissions::FileHooks;
use crate::claude::brain::{
    BoxFuture, HookCall, HookEvent, Host, PermissionDecision, PermissionRequest,
};
use crate::jobs::UpdateMode;

/// Asks the fork whether its agent may stop now; the answer is the Stop hook's JSON.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Value")]
pub struct MayStop;

/// The host of one background fork.
pub struct ForkHost {
    files: FileHooks,
    reads: ReadScope,
    fork: Addr<BackgroundFork>,
}

impl ForkHost {
    /// A host that holds reads to `reads`, applies `files`' hooks and asks `fork` at Stop.
    pub fn new(files: FileHooks, reads: ReadScope, fork: Addr<BackgroundFork>) -> Self {
        Self { files, reads, fork }
    }
}

impl Host for ForkHost {
    fn can_use_tool(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        Box::pin(async move {
            tracing::info!(tool = %request.tool_name, "tool denied in a background fork");
            PermissionDecision::Deny {
                message: format!(
                    "{} is not allowed in background tasks (they never ask for permission)",
                    request.tool_name
                ),
            }
        })
    }

    fn hook(&self, call: HookCall) -> BoxFuture<'_, Value> {
        Box::pin(async move {
            if call.event == HookEvent::Stop {
                return self.fork.send(MayStop).await.unwrap_or_else(|e| {
                    // The fork has already finished: nothing holds the agent back.
                    tracing::warn!(cause = %e, "the background fork has stopped; letting its agent stop");
                    HookCall::no_opinion()
                });
            }
            if call.event == HookEvent::PreToolUse {
                if let Some(refusal) = self.reads.refusal(&call) {
                    return HookCall::deny_tool(refusal);
                }
                if let Some(denied) = self.files.background_profile_denial(&call) {
                    return denied;
                }
            }
            self.files.answer(call).await
        })
    }
}

impl Handler<MayStop> for BackgroundFork {
    type Result = MessageResult<MayStop>;

    fn handle(&mut self, _msg: MayStop, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.stop_answer())
    }
}

impl BackgroundFork {
    /// The Stop hook's answer: block (a few times at most) while the mode's report is missing.
    fn stop_answer(&mut self) -> Value {
        // A persistent routine's `/compact` before its prompt: the job has not begun.
        if self.persistent.as_ref().is_some_and(|p| p.compacting()) {
            return HookCall::no_opinion();
        }
        let reason = match mode(&self.fired) {
            UpdateMode::Always if !self.activity.reported => Some(
                "You have not called report_updates yet. Call it with a short summary of what you found or did, then finish.",
            ),
            UpdateMode::OnPing if self.activity.unreported_output && !self.activity.reported => Some(
                "You sent the user visible output (a ping or an embed) but have not called report_updates. Call it now with what happened, then finish.",
            ),
            _ => None,
        };
        match reason {
            Some(r) if self.activity.stop_blocks < MAX_STOP_BLOCKS => {
                self.activity.stop_blocks += 1;
                tracing::info!(job = %self.fired.job.id(), blocks = self.activity.stop_blocks, "stop blocked until the fork reports");
                HookCall::block(r)
            }
            Some(_) => {
                tracing::warn!(job = %self.fired.job.id(), name = %human_name(&self.fired), "fork finished without the report its mode asks for");
                HookCall::no_opinion()
            }
            None => HookCall::no_opinion(),
        }
    }
}
