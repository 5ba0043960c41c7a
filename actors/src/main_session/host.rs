//! The conversation's answers to the CLI's questions (SPEC §11).
//!
//! - Permission prompts go through the session's [`Policy`]: `dontAsk` (the default) denies
//!   and shows the call struck through (`~~Bash(rm x)~~ — denied`); `default` asks on the
//!   surface (✅ ❌ 🔓, 60 s, 🔓 allows the tool for the rest of the session); `acceptEdits` and
//!   `bypassPermissions` let the CLI decide what it covers. The policy is per session, so a
//!   fork's `/permissions` leaves the main session's alone.
//! - PreToolUse on file writes: a write into `state/` is always denied, whatever the mode.
//! - PostToolUse on file writes: a markdown file the agent wrote inside the data directory is
//!   committed (`auto: write routines/x.md`, SPEC §2).

use std::sync::Arc;

use actix::prelude::*;
use parking_lot::Mutex;
use serde_json::Value;

use crate::brain::{
    BoxFuture, HookCall, HookEvent, HookRegistration, Host, PermissionDecision, PermissionMode,
    PermissionRequest,
};
use crate::data_dir::DataDir;
use crate::permissions::{
    ask_surface, state_write_denial, ApprovalRequest, Decision, Policy, APPROVAL_TIMEOUT,
};
use crate::surface::SurfaceEvent;

/// Tools that write files, as a hook matcher.
pub const FILE_WRITERS: &str = "Write|Edit|MultiEdit|NotebookEdit";

/// The hooks every session registers.
pub fn hooks() -> Vec<HookRegistration> {
    vec![
        HookRegistration::on_tools(HookEvent::PreToolUse, FILE_WRITERS),
        HookRegistration::on_tools(HookEvent::PostToolUse, FILE_WRITERS),
    ]
}

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
    surface: Option<Recipient<SurfaceEvent>>,
    approvals: Option<Recipient<ApprovalRequest>>,
}

impl SessionHost {
    /// A host that never asks and shows nothing (background forks use it for the file hooks).
    pub fn new(data_dir: DataDir) -> Self {
        Self {
            data_dir,
            policy: Arc::new(Mutex::new(Policy::background())),
            surface: None,
            approvals: None,
        }
    }

    /// A conversation's host: decisions by `policy`, denials shown on `surface`, questions
    /// asked through `approvals`.
    pub fn conversation(
        data_dir: DataDir,
        policy: Arc<Mutex<Policy>>,
        surface: Recipient<SurfaceEvent>,
        approvals: Option<Recipient<ApprovalRequest>>,
    ) -> Self {
        Self {
            data_dir,
            policy,
            surface: Some(surface),
            approvals,
        }
    }

    fn show_denied(&self, label: &str) {
        if let Some(s) = &self.surface {
            s.do_send(SurfaceEvent::Denied(label.to_owned()));
        }
    }

    fn target(&self, input: &Value) -> Option<std::path::PathBuf> {
        let raw = input
            .get("tool_input")
            .and_then(|t| t.get("file_path").or_else(|| t.get("notebook_path")))
            .and_then(Value::as_str)?;
        let p = std::path::Path::new(raw);
        Some(if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.data_dir.root().join(p)
        })
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
        Box::pin(async move {
            let tool = call.tool_name().unwrap_or_default().to_owned();
            let input = call.input.get("tool_input").cloned().unwrap_or(Value::Null);
            match call.event {
                HookEvent::PreToolUse => match state_write_denial(&tool, &input, &self.data_dir) {
                    Some(reason) => {
                        tracing::warn!(%tool, "write into state/ denied");
                        HookCall::deny_tool(reason)
                    }
                    None => HookCall::no_opinion(),
                },
                HookEvent::PostToolUse => {
                    if let Some(path) = self.target(&call.input) {
                        commit_markdown(&self.data_dir, &path).await;
                    }
                    HookCall::no_opinion()
                }
                _ => HookCall::no_opinion(),
            }
        })
    }
}

/// Commits `path` when it is a markdown file inside the data directory (never under `state/`).
async fn commit_markdown(data: &DataDir, path: &std::path::Path) {
    if path.extension().and_then(|e| e.to_str()) != Some("md")
        || crate::permissions::is_state_path(path, data.root())
    {
        return;
    }
    let Ok(rel) = path.strip_prefix(data.root()) else {
        return;
    };
    let message = format!("auto: write {}", rel.display());
    let data = data.clone();
    let file = path.to_path_buf();
    let _ = tokio::task::spawn_blocking(move || data.commit(&file, &message)).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(event: HookEvent, file: &str) -> HookCall {
        HookCall {
            event,
            callback_id: "hook_0".into(),
            input: json!({"tool_name": "Write", "tool_input": {"file_path": file}}),
        }
    }

    #[tokio::test]
    async fn writes_into_state_are_denied_even_through_dot_dot() {
        let tmp = tempfile::tempdir().unwrap();
        let host = SessionHost::new(DataDir::new(tmp.path()));
        let denied = host
            .hook(call(
                HookEvent::PreToolUse,
                "routines/../state/ping_budget.json",
            ))
            .await;
        assert_eq!(denied["hookSpecificOutput"]["permissionDecision"], "deny");
        let fine = host
            .hook(call(HookEvent::PreToolUse, "routines/x.md"))
            .await;
        assert_eq!(fine, json!({}));
    }

    #[tokio::test]
    async fn markdown_the_agent_writes_is_committed() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path().join("d"));
        data.ensure().unwrap();
        std::fs::write(data.routines().join("x.md"), "---\nid: \"1\"\n---\nhi\n").unwrap();
        let host = SessionHost::new(data.clone());
        let abs = data.routines().join("x.md");
        host.hook(call(HookEvent::PostToolUse, abs.to_str().unwrap()))
            .await;
        let log = std::process::Command::new("git")
            .args(["log", "--format=%s"])
            .current_dir(data.root())
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&log.stdout).trim(),
            "auto: write routines/x.md"
        );
    }
}
