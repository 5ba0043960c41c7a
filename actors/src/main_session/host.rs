//! The main session's answers to the CLI's questions: permission prompts and file hooks.
//!
//! - Permission prompts: `dontAsk` is the default mode, so anything the CLI asks about is denied
//!   with a message the model can read (approvals through the surface come with the permission
//!   modes of SPEC §11).
//! - PreToolUse on file writes: a write into `state/` is always denied.
//! - PostToolUse on file writes: a markdown file the agent wrote inside the data directory is
//!   committed (`auto: write routines/x.md`), as SPEC §2 asks.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::brain::{
    BoxFuture, HookCall, HookEvent, HookRegistration, Host, PermissionDecision, PermissionRequest,
};
use crate::data_dir::DataDir;

/// Tools that write files, as a hook matcher.
pub const FILE_WRITERS: &str = "Write|Edit|MultiEdit|NotebookEdit";

/// The hooks the main session registers.
pub fn hooks() -> Vec<HookRegistration> {
    vec![
        HookRegistration::on_tools(HookEvent::PreToolUse, FILE_WRITERS),
        HookRegistration::on_tools(HookEvent::PostToolUse, FILE_WRITERS),
    ]
}

/// The main session's host.
#[derive(Debug, Clone)]
pub struct SessionHost {
    data_dir: DataDir,
}

impl SessionHost {
    /// A host for the bot whose data directory is `data_dir` (also the CLI's working directory).
    pub fn new(data_dir: DataDir) -> Self {
        Self { data_dir }
    }

    /// The file a write tool targets, made absolute against the data directory.
    fn target(&self, input: &Value) -> Option<PathBuf> {
        let raw = input
            .get("tool_input")
            .and_then(|t| t.get("file_path").or_else(|| t.get("notebook_path")))
            .and_then(Value::as_str)?;
        let p = Path::new(raw);
        Some(if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.data_dir.root().join(p)
        })
    }

    /// True when `path` lies under `state/` (after resolving `..`).
    pub fn is_state_path(&self, path: &Path) -> bool {
        let normal = normalize(path);
        normal.starts_with(normalize(&self.data_dir.state()))
    }
}

/// Removes `.` and `..` components without touching the file system (the file may not exist).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

impl Host for SessionHost {
    fn can_use_tool(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        Box::pin(async move {
            tracing::info!(tool = %request.tool_name, "tool denied (dontAsk)");
            PermissionDecision::Deny {
                message: format!(
                    "{} is not allowed in this permission mode (dontAsk)",
                    request.tool_name
                ),
            }
        })
    }

    fn hook(&self, call: HookCall) -> BoxFuture<'_, Value> {
        Box::pin(async move {
            let Some(path) = self.target(&call.input) else {
                return HookCall::no_opinion();
            };
            match call.event {
                HookEvent::PreToolUse if self.is_state_path(&path) => {
                    tracing::warn!(file = %path.display(), "write into state/ denied");
                    HookCall::deny_tool(
                        "state/ holds the bot's own state files; they cannot be written by tools",
                    )
                }
                HookEvent::PostToolUse => {
                    let is_md = path.extension().and_then(|e| e.to_str()) == Some("md");
                    if is_md && !self.is_state_path(&path) {
                        if let Ok(rel) = normalize(&path).strip_prefix(self.data_dir.root()) {
                            let message = format!("auto: write {}", rel.display());
                            let data = self.data_dir.clone();
                            let file = normalize(&path);
                            let _ =
                                tokio::task::spawn_blocking(move || data.commit(&file, &message))
                                    .await;
                        }
                    }
                    HookCall::no_opinion()
                }
                _ => HookCall::no_opinion(),
            }
        })
    }
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
