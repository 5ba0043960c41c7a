//! A background fork's answers to the CLI: it never asks the user (anything the CLI would ask
//! about is denied), the file hooks every session registers apply, and the Stop hook enforces the
//! job's reporting mode by asking the fork whether it may finish.

use actix::prelude::*;
use serde_json::Value;

use super::background::BackgroundFork;
use crate::brain::{BoxFuture, HookCall, HookEvent, Host, PermissionDecision, PermissionRequest};
use crate::permissions::FileHooks;

/// Asks the fork whether its agent may stop now; the answer is the Stop hook's JSON.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Value")]
pub struct MayStop;

/// The host of one background fork.
pub struct ForkHost {
    files: FileHooks,
    fork: Addr<BackgroundFork>,
}

impl ForkHost {
    /// A host that applies `files`' hooks and asks `fork` at Stop.
    pub fn new(files: FileHooks, fork: Addr<BackgroundFork>) -> Self {
        Self { files, fork }
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
                return self
                    .fork
                    .send(MayStop)
                    .await
                    .unwrap_or_else(|_| HookCall::no_opinion());
            }
            self.files.answer(call).await
        })
    }
}
