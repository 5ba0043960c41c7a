//! The conversation's answers to the CLI's questions (SPEC §11).
//!
//! - Permission prompts go through the session's [`Policy`]: `dontAsk` (the default) denies
//!   and shows the call struck through (`~~Bash(rm x)~~ — denied`); `default` asks on the
//!   surface (✅ ❌ 🔓, 60 s, 🔓 allows the tool for the rest of the session); `acceptEdits` and
//!   `bypassPermissions` let the CLI decide what it covers. The policy is per session, so a
//!   fork's `/permissions` leaves the main session's alone.
//! - The file hooks (writes into `state/` denied, markdown committed) are every session's:
//!   [`FileHooks`].

use std::sync::Arc;

use actix::prelude::*;
use parking_lot::Mutex;
use serde_json::Value;

use crate::brain::{
    BoxFuture, HookCall, Host, PermissionDecision, PermissionMode, PermissionRequest,
};
use crate::data_dir::DataDir;
use crate::permissions::{
    ask_surface, ApprovalRequest, Decision, FileHooks, Policy, APPROVAL_TIMEOUT,
};
use crate::surface::SurfaceEvent;

/// The mode the CLI itself runs in for a session mode: `dontAsk` and `default` both let the
/// CLI ask us (we deny or ask the user), the others are the CLI's own.
pub fn cli_mode(mode: PermissionMode) -> PermissionMode {
    match mode {
        PermissionMode::DontAsk => PermissionMode::Default,
        other => other,
    }
}

/// A conversation's host.
#[derive(Clone)]
pub struct SessionHost {
    data_dir: DataDir,
    policy: Arc<Mutex<Policy>>,
    surface: Recipient<SurfaceEvent>,
    approvals: Option<Recipient<ApprovalRequest>>,
    files: FileHooks,
}

impl SessionHost {
    /// A conversation's host: decisions by `policy`, denials shown on `surface`, questions
    /// asked through `approvals`.
    pub fn conversation(
        data_dir: DataDir,
        policy: Arc<Mutex<Policy>>,
        surface: Recipient<SurfaceEvent>,
        approvals: Option<Recipient<ApprovalRequest>>,
    ) -> Self {
        Self {
            files: FileHooks::new(data_dir.clone()),
            data_dir,
            policy,
            surface,
            approvals,
        }
    }

    fn show_denied(&self, label: &str) {
        self.surface.do_send(SurfaceEvent::Denied(label.to_owned()));
    }
}

impl Host for SessionHost {
    fn can_use_tool(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        Box::pin(async move {
            let decision = self.policy.lock().decide(&request, &self.data_dir);
            let decision = match (decision, &self.approvals) {
                (Decision::Ask { label }, Some(approvals)) => {
                    let ask = ApprovalRequest::new(label, request.tool_name.clone());
                    let answer = ask_surface(approvals, ask, APPROVAL_TIMEOUT).await;
                    self.policy.lock().settle(&request, answer, &self.data_dir)
                }
                (Decision::Ask { label }, None) => Decision::Deny {
                    message: format!("{label} needs approval, and nobody can be asked here"),
                    label,
                },
                (d, _) => d,
            };
            if let Decision::Deny { label, .. } = &decision {
                tracing::info!(tool = %request.tool_name, %label, "tool denied");
                self.show_denied(label);
            }
            decision
                .to_permission_decision(&request.input)
                .unwrap_or(PermissionDecision::Deny {
                    message: "not approved".into(),
                })
        })
    }

    fn hook(&self, call: HookCall) -> BoxFuture<'_, Value> {
        Box::pin(self.files.answer(call))
    }
}
