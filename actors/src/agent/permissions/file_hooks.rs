//! The file hooks every session registers, whatever its kind (SPEC §2, §11):
//!
//! - PreToolUse on file writes: a write into `state/` is always denied, whatever the permission
//!   mode (the CLI does not ask us under `bypassPermissions`, so this cannot be left to the
//!   policy alone);
//! - PreToolUse on file writes: a routine or reminder file the scheduler could not register is
//!   refused, and one with warnings told about (`routine_validator`, [`super::routine_validator`]);
//! - PreToolUse on Read, Glob, Grep and the writers: a call that could reach a secret (`.env`,
//!   `state/token.json`, the Google client, a process's environment) is denied in every mode
//!   ([`super::secret_reads`]), before anything else is judged;
//! - PreToolUse on Bash, with the OS sandbox in force: a command that names `ollim-bot` but is
//!   not one plain invocation is denied in every mode: our commands run outside the sandbox,
//!   nothing may ride along ([`super::unsandboxed`]). The kernel decides the rest;
//! - PreToolUse on Bash, without the OS sandbox (`off`, or `auto` where bubblewrap or socat is
//!   missing): the coarse courtesy of [`super::no_sandbox`] — a command naming a secret is
//!   denied in every mode, one naming `state/` is denied here, and a conversation's host asks
//!   the owner instead ([`FileHooks::bash_state_write`]), so that an allow rule, a 🔓,
//!   `acceptEdits` or `bypassPermissions` never let one through unasked;
//! - PostToolUse on file writes: a markdown file the agent wrote inside the data directory is
//!   committed (`auto: write routines/x.md`; `context.md` as `auto: memory: write context.md`).
//! - for background forks only, [`FileHooks::background_profile_denial`]: no write of
//!   `context.md`, `USER.md` or `IDENTITY.md` by a file tool ([`super::profile_writes`]), nor,
//!   without the sandbox, a Bash command naming one.
//!
//! The conversation's host and a background fork's host both hand these hooks to [`FileHooks`].

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::secret_reads::{call_cwd, secret_read, SECRET_READERS};
use super::{is_state_path, no_sandbox, state_write_denial, APPROVAL_TIMEOUT};
use crate::base::data_dir::DataDir;
use crate::claude::brain::{HookCall, HookEvent, HookRegistration};

/// Tools that write files, as a hook matcher.
pub const FILE_WRITERS: &str = "Write|Edit|MultiEdit|NotebookEdit";

/// The hooks every session registers.
pub fn hooks() -> Vec<HookRegistration> {
    // The Bash hook may wait for the owner's answer (without the sandbox, a command naming
    // state/): give it the approval time and a margin.
    let bash_wait = APPROVAL_TIMEOUT.as_secs() as u32 + 30;
    vec![
        HookRegistration::on_tools(HookEvent::PreToolUse, FILE_WRITERS),
        HookRegistration::on_tools(HookEvent::PostToolUse, FILE_WRITERS),
        HookRegistration::on_tools(HookEvent::PreToolUse, SECRET_READERS),
        HookRegistration {
            timeout_secs: Some(bash_wait),
            ..HookRegistration::on_tools(HookEvent::PreToolUse, "Bash")
        },
    ]
}

/// Answers the file hooks of one data directory.
#[derive(Debug, Clone)]
pub struct FileHooks {
    data_dir: DataDir,
    /// The session's CLI runs its commands in the OS sandbox (`claude::sandbox::in_force`).
    sandboxed: bool,
}

impl FileHooks {
    /// The hooks for sessions working in `data_dir`, whose commands run in the OS sandbox when
    /// `sandboxed`.
    pub fn new(data_dir: DataDir, sandboxed: bool) -> Self {
        Self {
            data_dir,
            sandboxed,
        }
    }

    /// The command of a PreToolUse call of Bash; `None` for any other call.
    fn bash_command(call: &HookCall) -> Option<&str> {
        if call.event != HookEvent::PreToolUse || call.tool_name() != Some("Bash") {
            return None;
        }
        call.input.get("tool_input")?.get("command")?.as_str()
    }

    /// Why a PreToolUse call of Bash may write into `state/` and must be asked about, or `None`
    /// (for any other call too, and whenever the sandbox is in force: the kernel keeps
    /// `state/` then). Without the sandbox, a command that names `state/` counts
    /// ([`no_sandbox::names_state`]).
    pub fn bash_state_write(&self, call: &HookCall) -> Option<String> {
        let command = Self::bash_command(call).filter(|_| !self.sandboxed)?;
        no_sandbox::names_state(command).then(|| no_sandbox::NAMES_STATE.to_owned())
    }

    /// The denial of a PreToolUse call that could reach a secret, or `None`.
    pub fn secret_denial(&self, call: &HookCall) -> Option<Value> {
        if call.event != HookEvent::PreToolUse {
            return None;
        }
        let tool = call.tool_name()?;
        let input = call.input.get("tool_input")?;
        let root = self.data_dir.root();
        let why = match Self::bash_command(call) {
            Some(_) if self.sandboxed => None,
            Some(command) => no_sandbox::secret(command).map(no_sandbox::secret_refusal),
            None => secret_read(tool, input, &call_cwd(&call.input, root), root),
        }?;
        tracing::warn!(%tool, "a call that could reach a secret denied");
        Some(HookCall::deny_tool(why))
    }

    /// The denial of a PreToolUse Bash call that names `ollim-bot` without being one plain
    /// invocation of a command the sandbox lets out ([`super::unsandboxed`]), or `None`. Only
    /// with the sandbox in force: without one, nothing escapes it.
    pub fn unsandboxed_denial(&self, call: &HookCall) -> Option<Value> {
        let command = Self::bash_command(call).filter(|_| self.sandboxed)?;
        let why = super::unsandboxed::refusal(command)?;
        tracing::warn!("a Bash command riding along with ollim-bot refused");
        Some(HookCall::deny_tool(why))
    }

    /// The denial of a background fork's PreToolUse call that would write `context.md`,
    /// `USER.md` or `IDENTITY.md` ([`super::profile_writes`]; without the sandbox, a Bash
    /// command naming one), or `None`.
    pub fn background_profile_denial(&self, call: &HookCall) -> Option<Value> {
        if call.event != HookEvent::PreToolUse {
            return None;
        }
        let bash = Self::bash_command(call).filter(|_| !self.sandboxed);
        let why = match bash {
            Some(command) => no_sandbox::profile(command)
                .map(|file| super::profile_writes::refusal_text("Bash", file)),
            None => super::profile_writes::background_refusal(&call.input, self.data_dir.root()),
        }?;
        tracing::warn!(tool = ?call.tool_name(), "a background fork's write of the memory or profile refused");
        Some(HookCall::deny_tool(why))
    }

    /// The answer to a PreToolUse or PostToolUse call; no opinion on anything else. A call that
    /// could reach a secret is denied; so is, without the sandbox, a Bash command that names
    /// `state/`: nobody is asked here.
    pub async fn answer(&self, call: HookCall) -> Value {
        if let Some(denied) = self.secret_denial(&call) {
            return denied;
        }
        if let Some(denied) = self.unsandboxed_denial(&call) {
            return denied;
        }
        if let Some(why) = self.bash_state_write(&call) {
            tracing::warn!(%why, "Bash that may write into state/ denied");
            return HookCall::deny_tool(format!(
                "Bash was not run: it may write into state/ ({why}), the bot's own files, which \
                 only the owner can allow, and nobody can be asked here"
            ));
        }
        let tool = call.tool_name().unwrap_or_default().to_owned();
        let input = call.input.get("tool_input").cloned().unwrap_or(Value::Null);
        match call.event {
            HookEvent::PreToolUse => match state_write_denial(&tool, &input, &self.data_dir) {
                Some(reason) => {
                    tracing::warn!(%tool, "write into state/ denied");
                    HookCall::deny_tool(reason)
                }
                None => super::routine_validator::review(&tool, &input, &self.data_dir)
                    .unwrap_or_else(HookCall::no_opinion),
            },
            HookEvent::PostToolUse => {
                if let Some(path) = self.target(&call.input) {
                    commit_markdown(&self.data_dir, &path).await;
                }
                HookCall::no_opinion()
            }
            _ => HookCall::no_opinion(),
        }
    }

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
}

/// Commits `path` when it is a markdown file inside the data directory (never under `state/`).
async fn commit_markdown(data: &DataDir, path: &Path) {
    if path.extension().and_then(|e| e.to_str()) != Some("md") || is_state_path(path, data.root()) {
        return;
    }
    let Ok(rel) = path.strip_prefix(data.root()) else {
        return;
    };
    // The memory file's changes are told apart in the log: `memory log` and `undo` read them.
    let message = if rel == Path::new(crate::agent::memory::FILE_NAME) {
        crate::agent::memory::versions::message(&format!("write {}", rel.display()))
    } else {
        format!("auto: write {}", rel.display())
    };
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
        let hooks = FileHooks::new(DataDir::new(tmp.path()), true);
        let denied = hooks
            .answer(call(
                HookEvent::PreToolUse,
                "routines/../state/ping_budget.json",
            ))
            .await;
        assert_eq!(denied["hookSpecificOutput"]["permissionDecision"], "deny");
        let fine = hooks
            .answer(call(HookEvent::PreToolUse, "routines/x.md"))
            .await;
        assert_eq!(fine, json!({}));
    }

    fn bash(command: &str, cwd: &Path) -> HookCall {
        HookCall {
            event: HookEvent::PreToolUse,
            callback_id: "hook_2".into(),
            input: json!({"tool_name": "Bash", "tool_input": {"command": command}, "cwd": cwd}),
        }
    }

    fn decision(answer: &Value) -> &str {
        answer["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("none")
    }

    #[tokio::test]
    async fn without_the_sandbox_bash_naming_state_or_a_secret_is_denied() {
        let tmp = tempfile::tempdir().unwrap();
        let hooks = FileHooks::new(DataDir::new(tmp.path()), false);
        let denied = hooks.answer(bash("touch state/x", tmp.path())).await;
        assert_eq!(decision(&denied), "deny");
        let reason = denied["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default();
        assert!(reason.contains(no_sandbox::NAMES_STATE), "{reason}");
        let secret = hooks.answer(bash("cat .env", tmp.path())).await;
        assert_eq!(decision(&secret), "deny");
        // Nothing escapes a sandbox that is not there: a pipe after our command is fine.
        for fine in ["ollim-bot reminder list", "ollim-bot tasks list | head -3"] {
            assert_eq!(
                hooks.answer(bash(fine, tmp.path())).await,
                json!({}),
                "{fine}"
            );
        }
    }

    #[tokio::test]
    async fn with_the_sandbox_bash_is_the_kernels_but_nothing_rides_out_with_ollim_bot() {
        let tmp = tempfile::tempdir().unwrap();
        let hooks = FileHooks::new(DataDir::new(tmp.path()), true);
        for command in ["touch state/x", "cat .env", "echo x >> context.md"] {
            let call = bash(command, tmp.path());
            assert_eq!(hooks.bash_state_write(&call), None, "{command}");
            assert_eq!(hooks.background_profile_denial(&call), None, "{command}");
            assert_eq!(hooks.answer(call).await, json!({}), "{command}");
        }
        let riding = hooks
            .answer(bash("ollim-bot tasks list | head -3", tmp.path()))
            .await;
        assert_eq!(decision(&riding), "deny");
    }

    #[tokio::test]
    async fn secrets_are_refused_to_the_file_tools_in_every_case_and_the_readers_are_hooked() {
        let tmp = tempfile::tempdir().unwrap();
        for sandboxed in [true, false] {
            let hooks_for = FileHooks::new(DataDir::new(tmp.path()), sandboxed);
            let read = HookCall {
                event: HookEvent::PreToolUse,
                callback_id: "hook_3".into(),
                input: json!({"tool_name": "Read", "tool_input": {"file_path": ".env"}, "cwd": tmp.path()}),
            };
            assert_eq!(decision(&hooks_for.answer(read).await), "deny");
        }
        let matchers: Vec<String> = hooks().into_iter().filter_map(|h| h.matcher).collect();
        assert!(matchers.iter().any(|m| m.split('|').any(|t| t == "Read")));
    }

    #[test]
    fn the_bash_hook_waits_longer_than_the_owner_may_take() {
        let bash = hooks()
            .into_iter()
            .find(|h| h.matcher.as_deref() == Some("Bash"))
            .expect("a Bash hook");
        assert_eq!(bash.event, HookEvent::PreToolUse);
        assert!(u64::from(bash.timeout_secs.unwrap_or(60)) > APPROVAL_TIMEOUT.as_secs());
    }

    #[tokio::test]
    async fn markdown_the_agent_writes_is_committed() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path().join("d"));
        data.ensure().unwrap();
        std::fs::write(data.routines().join("x.md"), "---\nid: \"1\"\n---\nhi\n").unwrap();
        let hooks = FileHooks::new(data.clone(), true);
        let abs = data.routines().join("x.md");
        hooks
            .answer(call(HookEvent::PostToolUse, abs.to_str().unwrap()))
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

    #[tokio::test]
    async fn the_memory_file_is_committed_as_a_memory_change() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path().join("d"));
        data.ensure().unwrap();
        let file = data.root().join("context.md");
        std::fs::write(&file, "- moving in May\n").unwrap();
        FileHooks::new(data.clone(), true)
            .answer(call(HookEvent::PostToolUse, file.to_str().unwrap()))
            .await;
        let last = crate::agent::memory::versions::last_change(&data).unwrap();
        assert_eq!(last.subject, "auto: memory: write context.md");
    }
}
