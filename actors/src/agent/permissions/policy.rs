//! The permission policy: what happens when the CLI asks whether a tool may run (SPEC §11).
//!
//! In order:
//! 1. a file tool's write into `state/` is denied, in every mode;
//! 2. without the OS sandbox, a Bash command that names `state/` (the Bash hook,
//!    [`super::FileHooks::bash_state_write`]) is asked about every time — whatever the mode, 🔓
//!    included — and denied where nobody can be asked (`dontAsk`, background forks):
//!    [`Policy::decide_state_write`]. With the sandbox in force the kernel keeps `state/`;
//! 3. a tool the user allowed for this session (🔓) runs, and so does a call `tool-policy.yaml`
//!    grants the conversation ([`Policy::set_standing`]); so does the conversation's file tool
//!    writing its memory, `context.md` (SPEC §18), in every mode;
//! 4. the mode decides: `bypassPermissions` allows; `acceptEdits` allows file edits that stay in
//!    the data directory ([`super::edit_stays_home`]) and asks about the rest; `default` (and
//!    `plan`) asks; `dontAsk` denies without asking;
//! 5. a background fork never asks: what would be asked is denied.
//!
//! An `Ask` goes to the surface as an [`super::ApprovalRequest`]; its answer comes back through
//! [`Policy::settle`]. The CLI consults us only for calls its allow rules do not already cover,
//! and not at all under `bypassPermissions`, so the `state/` rules run as PreToolUse hooks
//! ([`super::FileHooks`], which run before any permission prompt): [`state_write_denial`] is
//! the file check on its own, and the hook on Bash asks through [`Policy::decide_state_write`]. The CLI itself never runs in `acceptEdits`
//! (it would approve file-changing Bash commands on its own): that mode is ours, over the
//! CLI's `default`.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::approval::ApprovalAnswer;
use super::edit_scope::edit_stays_home;
use super::file_rules::{is_file_write_tool, is_state_path};
use super::label::{escape_markdown, tool_label};
use super::matcher::is_allowed;
use crate::base::data_dir::DataDir;
use crate::claude::brain::{PermissionDecision, PermissionMode, PermissionRequest};

/// What to do with one permission prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run the tool.
    Allow,
    /// Refuse it; the surface shows `label` struck through with `reason`, the model reads
    /// `message`.
    Deny {
        /// How the call is shown to the user (`Bash(rm x)`).
        label: String,
        /// What the model is told.
        message: String,
        /// *(ours)* Why, in words the owner can act on ([`reasons`]).
        reason: String,
    },
    /// Ask the user on the surface.
    Ask {
        /// How the call is shown to the user.
        label: String,
    },
}

impl Decision {
    /// The answer for the CLI, echoing `input` when allowed; `None` while the user is being asked.
    pub fn to_permission_decision(&self, input: &Value) -> Option<PermissionDecision> {
        match self {
            Decision::Allow => Some(PermissionDecision::Allow {
                updated_input: input.clone(),
            }),
            Decision::Deny { message, .. } => Some(PermissionDecision::Deny {
                message: message.clone(),
            }),
            Decision::Ask { .. } => None,
        }
    }
}

/// The permission state of one session (main or interactive fork) or one background fork.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// The current mode (`/permissions` changes it).
    pub mode: PermissionMode,
    /// Tools the user allowed with 🔓 for the rest of this session.
    pub session_allowed: HashSet<String>,
    /// False for background forks: nobody is there to answer.
    asks: bool,
    /// Patterns allowed without asking beyond the launch's allow list: `tool-policy.yaml`'s
    /// `main_session.additional_allowed`, as the session last read it.
    standing: Vec<String>,
}

impl Default for Policy {
    fn default() -> Self {
        Self::new(PermissionMode::DontAsk)
    }
}

impl Policy {
    /// A conversation's policy in `mode`, with nothing allowed for the session yet.
    pub fn new(mode: PermissionMode) -> Self {
        Self {
            mode,
            session_allowed: HashSet::new(),
            asks: true,
            standing: Vec::new(),
        }
    }

    /// A background fork's policy: whatever would be asked is denied.
    pub fn background() -> Self {
        Self {
            asks: false,
            ..Self::new(PermissionMode::DontAsk)
        }
    }

    /// True when this policy may ask the user (false for background forks).
    pub fn asks(&self) -> bool {
        self.asks
    }

    /// Lets `tool_name` run without asking for the rest of the session (🔓).
    pub fn allow_for_session(&mut self, tool_name: &str) {
        self.session_allowed.insert(tool_name.to_owned());
    }

    /// Sets the patterns allowed without asking (validated already), replacing the last ones.
    pub fn set_standing(&mut self, patterns: Vec<String>) {
        self.standing = patterns;
    }

    /// Forgets the session's 🔓 approvals (a fresh session, `/clear`).
    pub fn forget_session(&mut self) {
        self.session_allowed.clear();
    }

    /// Decides one permission prompt.
    pub fn decide(&self, request: &PermissionRequest, data_dir: &DataDir) -> Decision {
        let tool = request.tool_name.as_str();
        let label = || tool_label(tool, &request.input, data_dir.root());
        if let Some(message) = state_write_denial(tool, &request.input, data_dir) {
            return Decision::Deny {
                label: label(),
                message,
                reason: reasons::STATE_FILES.to_owned(),
            };
        }
        if self.session_allowed.contains(tool)
            || is_allowed(tool, &request.input, &self.standing, data_dir)
        {
            return Decision::Allow;
        }
        // The memory is the conversation's to keep (SPEC §18): its file tools write it without
        // a question in every mode. A background fork never gets here (its hook refuses).
        if self.asks
            && is_file_write_tool(tool)
            && super::profile_writes::names_memory(&request.input, data_dir.root())
        {
            return Decision::Allow;
        }
        let asked = match self.mode {
            PermissionMode::BypassPermissions => return Decision::Allow,
            PermissionMode::AcceptEdits
                if is_file_write_tool(tool) && edit_stays_home(&request.input, data_dir.root()) =>
            {
                return Decision::Allow
            }
            PermissionMode::DontAsk => {
                return Decision::Deny {
                    label: label(),
                    message: format!(
                        "{tool} needs permission, and the current mode (dontAsk) refuses without asking"
                    ),
                    reason: if self.asks {
                        reasons::DONT_ASK
                    } else {
                        reasons::BACKGROUND
                    }
                    .to_owned(),
                }
            }
            PermissionMode::AcceptEdits | PermissionMode::Default | PermissionMode::Plan => {
                Decision::Ask { label: label() }
            }
        };
        if self.asks {
            return asked;
        }
        Decision::Deny {
            label: label(),
            message: format!("{tool} is not available in background forks"),
            reason: reasons::BACKGROUND.to_owned(),
        }
    }

    /// Decides a call that could write into `state/` (`why` says how): the owner is asked every
    /// time, in every mode that asks at all — a 🔓 given earlier does not cover it, and neither
    /// do `acceptEdits` or `bypassPermissions`; `dontAsk` and background forks deny it.
    pub fn decide_state_write(
        &self,
        request: &PermissionRequest,
        why: &str,
        data_dir: &DataDir,
    ) -> Decision {
        let tool = request.tool_name.as_str();
        let label = format!(
            "{} (may write into state/: {})",
            tool_label(tool, &request.input, data_dir.root()),
            escape_markdown(why)
        );
        let refused = |reason: &str, shown: &str| Decision::Deny {
            label: label.clone(),
            message: format!(
                "{tool} was not run: it may write into state/ ({why}), the bot's own files, \
                 which only the owner can allow, and {reason}"
            ),
            reason: shown.to_owned(),
        };
        if !self.asks {
            refused("background tasks never ask", reasons::BACKGROUND)
        } else if self.mode == PermissionMode::DontAsk {
            refused(
                "the current mode (dontAsk) refuses without asking",
                reasons::STATE_WRITE_DONT_ASK,
            )
        } else {
            Decision::Ask { label }
        }
    }

    /// Turns the user's answer to an [`Decision::Ask`] into the final decision, remembering a 🔓.
    pub fn settle(
        &mut self,
        request: &PermissionRequest,
        answer: ApprovalAnswer,
        data_dir: &DataDir,
    ) -> Decision {
        match answer {
            ApprovalAnswer::Allow => Decision::Allow,
            ApprovalAnswer::AllowForSession => {
                self.allow_for_session(&request.tool_name);
                Decision::Allow
            }
            ApprovalAnswer::Deny => Decision::Deny {
                label: tool_label(&request.tool_name, &request.input, data_dir.root()),
                message: format!("the user did not allow {}", request.tool_name),
                reason: reasons::NOT_APPROVED.to_owned(),
            },
        }
    }
}

/// Why a call was denied, as the owner reads it beside the struck-through call: what happened
/// and, where there is one, what to do about it.
pub mod reasons {
    /// `dontAsk` refused a tool outside the allowed set.
    pub const DONT_ASK: &str =
        "not allowed in don't-ask mode; switch /permissions to \"ask first\" to approve calls like this";
    /// A file tool aimed at `state/`.
    pub const STATE_FILES: &str = "the bot's own state/ files can't be changed by the agent";
    /// A Bash command that could write into `state/`, refused in `dontAsk`.
    pub const STATE_WRITE_DONT_ASK: &str =
        "it may change the bot's own state/ files; switch /permissions to \"ask first\" to approve it";
    /// A background fork asked for something it may not do.
    pub const BACKGROUND: &str =
        "background tasks can't ask; add it to the job's allowed-tools to let it run";
    /// The owner answered ❌ or did not answer in time.
    pub const NOT_APPROVED: &str = "not approved";
    /// It needed the owner and nobody could be asked.
    pub const NOBODY_TO_ASK: &str = "it needs approval, and nobody could be asked here";
    /// The session had ended before it could be decided.
    pub const SESSION_ENDED: &str = "the session had ended";
}

/// The refusal for a file-writing tool aimed into `state/` (what the model reads), or `None`.
/// `input` is the tool's input (`file_path` or `notebook_path`, absolute or relative to the data
/// directory).
pub fn state_write_denial(tool_name: &str, input: &Value, data_dir: &DataDir) -> Option<String> {
    if !is_file_write_tool(tool_name) {
        return None;
    }
    let target = ["file_path", "notebook_path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))?;
    is_state_path(Path::new(target), data_dir.root()).then(|| {
        format!("{tool_name} into state/ is blocked: the bot's own state files are write-protected")
    })
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
