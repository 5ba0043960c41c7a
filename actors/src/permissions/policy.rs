//! The permission policy: what happens when the CLI asks whether a tool may run (SPEC §11).
//!
//! In order:
//! 1. a file tool's write into `state/` is denied, in every mode;
//! 2. a Bash command that could write into `state/` ([`super::bash_state_write`]) is asked about
//!    every time — whatever the mode, 🔓 included — and denied where nobody can be asked
//!    (`dontAsk`, background forks): [`Policy::decide_state_write`];
//! 3. a tool the user allowed for this session (🔓) runs;
//! 4. the mode decides: `bypassPermissions` allows; `acceptEdits` allows file edits that stay in
//!    the data directory ([`super::edit_stays_home`]) and asks about the rest; `default` (and
//!    `plan`) asks; `dontAsk` denies without asking;
//! 5. a background fork never asks: what would be asked is denied.
//!
//! An `Ask` goes to the surface as an [`super::ApprovalRequest`]; its answer comes back through
//! [`Policy::settle`]. The CLI consults us only for calls its allow rules do not already cover,
//! and not at all under `bypassPermissions`, so the `state/` rules also run as PreToolUse hooks
//! ([`super::FileHooks`]): [`state_write_denial`] is the file check on its own, and the hook on
//! Bash asks through [`Policy::decide_state_write`]. The CLI itself never runs in `acceptEdits`
//! (it would approve file-changing Bash commands on its own): that mode is ours, over the
//! CLI's `default`.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::approval::ApprovalAnswer;
use super::bash_writes::bash_state_write;
use super::edit_scope::edit_stays_home;
use super::file_rules::{is_file_write_tool, is_state_path};
use super::label::{escape_markdown, tool_label};
use crate::brain::{PermissionDecision, PermissionMode, PermissionRequest};
use crate::data_dir::DataDir;

/// What to do with one permission prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run the tool.
    Allow,
    /// Refuse it; the surface shows `label` struck through, the model reads `message`.
    Deny {
        /// How the call is shown to the user (`Bash(rm x)`).
        label: String,
        /// What the model is told.
        message: String,
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
            };
        }
        if tool == "Bash" {
            // The hook judged this with the shell's own directory; here the data directory is
            // all there is, which catches what reaches us without the hook.
            let command = request.input.get("command").and_then(Value::as_str);
            let root = data_dir.root();
            if let Some(why) = command.and_then(|c| bash_state_write(c, root, root)) {
                return self.decide_state_write(request, &why, data_dir);
            }
        }
        if self.session_allowed.contains(tool) {
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
        let refused = |reason: &str| Decision::Deny {
            label: label.clone(),
            message: format!(
                "{tool} was not run: it may write into state/ ({why}), the bot's own files, \
                 which only the owner can allow, and {reason}"
            ),
        };
        if !self.asks {
            refused("background tasks never ask")
        } else if self.mode == PermissionMode::DontAsk {
            refused("the current mode (dontAsk) refuses without asking")
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
            },
        }
    }
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
mod tests {
    use super::*;
    use serde_json::json;

    const ROOT: &str = "/home/u/.ollim-bot";

    fn request(tool: &str, input: Value) -> PermissionRequest {
        PermissionRequest {
            tool_name: tool.into(),
            input: input.clone(),
            tool_use_id: Some("toolu_1".into()),
            raw: json!({"tool_name": tool, "input": input}),
        }
    }

    fn data() -> DataDir {
        DataDir::new(ROOT)
    }

    /// One call of each kind the table below covers.
    fn kinds() -> [(&'static str, PermissionRequest); 4] {
        [
            (
                "edit",
                request("Write", json!({"file_path": "routines/x.md"})),
            ),
            ("bash", request("Bash", json!({"command": "rm x"}))),
            ("mcp", request("mcp__docs__search", json!({"q": "x"}))),
            ("read", request("Read", json!({"file_path": "/etc/hosts"}))),
        ]
    }

    /// "allow", "deny" or "ask" for the decision.
    fn verdict(d: &Decision) -> &'static str {
        match d {
            Decision::Allow => "allow",
            Decision::Deny { .. } => "deny",
            Decision::Ask { .. } => "ask",
        }
    }

    #[test]
    fn every_mode_against_every_tool_kind() {
        use PermissionMode::*;
        let table = [
            (DontAsk, ["deny", "deny", "deny", "deny"]),
            (Default, ["ask", "ask", "ask", "ask"]),
            (Plan, ["ask", "ask", "ask", "ask"]),
            (AcceptEdits, ["allow", "ask", "ask", "ask"]),
            (BypassPermissions, ["allow", "allow", "allow", "allow"]),
        ];
        for (mode, want) in table {
            let policy = Policy::new(mode);
            for ((kind, req), want) in kinds().iter().zip(want) {
                let got = policy.decide(req, &data());
                assert_eq!(verdict(&got), want, "{mode} / {kind}");
            }
        }
    }

    #[test]
    fn writes_into_state_are_denied_in_every_mode() {
        use PermissionMode::*;
        let targets = [
            json!({"file_path": "state/ping_budget.json"}),
            json!({"file_path": "/home/u/.ollim-bot/state/sessions.json"}),
            json!({"file_path": "routines/../state/x.json"}),
            json!({"file_path": "/home/u/.ollim-bot/routines/../state/x"}),
            json!({"notebook_path": "state/n.ipynb"}),
        ];
        for mode in [DontAsk, Default, Plan, AcceptEdits, BypassPermissions] {
            let mut policy = Policy::new(mode);
            policy.allow_for_session("Write");
            policy.allow_for_session("Edit");
            policy.allow_for_session("NotebookEdit");
            for (tool, input) in [("Write", &targets[0]), ("Edit", &targets[1])]
                .into_iter()
                .chain(targets[2..4].iter().map(|t| ("Write", t)))
                .chain([("NotebookEdit", &targets[4])])
            {
                let got = policy.decide(&request(tool, input.clone()), &data());
                let Decision::Deny { message, .. } = got else {
                    panic!("{mode}: {tool} {input} was not denied: {got:?}");
                };
                assert!(message.contains("state/"), "{message}");
            }
        }
    }

    #[test]
    fn reading_state_is_not_a_write() {
        let policy = Policy::new(PermissionMode::BypassPermissions);
        let got = policy.decide(
            &request("Read", json!({"file_path": "state/x.json"})),
            &data(),
        );
        assert_eq!(got, Decision::Allow);
    }

    #[test]
    fn session_allowed_tools_run_without_asking() {
        let mut policy = Policy::new(PermissionMode::Default);
        let bash = request("Bash", json!({"command": "ls"}));
        assert_eq!(verdict(&policy.decide(&bash, &data())), "ask");
        policy.allow_for_session("Bash");
        assert_eq!(policy.decide(&bash, &data()), Decision::Allow);
        policy.forget_session();
        assert_eq!(verdict(&policy.decide(&bash, &data())), "ask");
    }

    #[test]
    fn dont_ask_still_honours_session_allowed_tools() {
        let mut policy = Policy::new(PermissionMode::DontAsk);
        policy.allow_for_session("Bash");
        let got = policy.decide(&request("Bash", json!({"command": "ls"})), &data());
        assert_eq!(got, Decision::Allow);
    }

    #[test]
    fn background_never_asks() {
        use PermissionMode::*;
        for mode in [Default, Plan, AcceptEdits, DontAsk] {
            let mut policy = Policy::background();
            policy.mode = mode;
            assert!(!policy.asks());
            for (kind, req) in kinds() {
                let got = policy.decide(&req, &data());
                assert_ne!(verdict(&got), "ask", "{mode} / {kind}");
            }
        }
        let got =
            Policy::background().decide(&request("Bash", json!({"command": "rm x"})), &data());
        assert_eq!(
            got,
            Decision::Deny {
                label: "Bash(rm x)".into(),
                message:
                    "Bash needs permission, and the current mode (dontAsk) refuses without asking"
                        .into(),
            }
        );
        let mut default_bg = Policy::background();
        default_bg.mode = Default;
        let Decision::Deny { message, .. } =
            default_bg.decide(&request("Bash", json!({"command": "rm x"})), &data())
        else {
            panic!("background asked");
        };
        assert_eq!(message, "Bash is not available in background forks");
    }

    #[test]
    fn denials_and_questions_carry_the_label() {
        let req = request(
            "Write",
            json!({"file_path": "/home/u/.ollim-bot/reminders/foo.md"}),
        );
        assert_eq!(
            Policy::new(PermissionMode::Default).decide(&req, &data()),
            Decision::Ask {
                label: "Write(reminders/foo.md)".into()
            }
        );
        let Decision::Deny { label, .. } =
            Policy::new(PermissionMode::DontAsk).decide(&req, &data())
        else {
            panic!("dontAsk did not deny");
        };
        assert_eq!(label, "Write(reminders/foo.md)");
    }

    #[test]
    fn settling_an_answer() {
        let mut policy = Policy::new(PermissionMode::Default);
        let req = request("Bash", json!({"command": "ls"}));
        assert_eq!(
            policy.settle(&req, ApprovalAnswer::Allow, &data()),
            Decision::Allow
        );
        assert!(policy.session_allowed.is_empty());
        assert_eq!(
            verdict(&policy.settle(&req, ApprovalAnswer::Deny, &data())),
            "deny"
        );
        assert_eq!(
            policy.settle(&req, ApprovalAnswer::AllowForSession, &data()),
            Decision::Allow
        );
        assert_eq!(policy.decide(&req, &data()), Decision::Allow);
    }

    #[test]
    fn decisions_become_cli_answers() {
        let input = json!({"command": "ls"});
        assert_eq!(
            Decision::Allow.to_permission_decision(&input),
            Some(PermissionDecision::Allow {
                updated_input: input.clone()
            })
        );
        let deny = Decision::Deny {
            label: "Bash(ls)".into(),
            message: "no".into(),
        };
        assert_eq!(
            deny.to_permission_decision(&input),
            Some(PermissionDecision::Deny {
                message: "no".into()
            })
        );
        let ask = Decision::Ask {
            label: "Bash(ls)".into(),
        };
        assert_eq!(ask.to_permission_decision(&input), None);
    }

    #[test]
    fn state_write_denial_ignores_other_tools_and_paths() {
        let d = data();
        assert!(state_write_denial("Bash", &json!({"file_path": "state/x"}), &d).is_none());
        assert!(state_write_denial("Write", &json!({"file_path": "routines/x.md"}), &d).is_none());
        assert!(state_write_denial("Write", &json!({}), &d).is_none());
        assert!(state_write_denial("MultiEdit", &json!({"file_path": "state/x"}), &d).is_some());
    }
}
