//! The conversation's answers to the CLI's questions (SPEC §11).
//!
//! - Permission prompts go through the session's [`Policy`](crate::agent::permissions::Policy), which the session actor owns: the
//!   host asks it ([`DecidePermission`], then [`SettlePermission`] with the user's answer).
//!   `dontAsk` (the default) denies and shows the call struck through (`~~Bash(rm x)~~ —
//!   denied`); `default` asks on the surface (✅ ❌ 🔓, 60 s, 🔓 allows the tool for the rest of
//!   the session); `acceptEdits` allows file edits inside the data directory and asks about the
//!   rest (the CLI runs in `default` for it: its own `acceptEdits` would also let file-changing
//!   Bash commands through); `bypassPermissions` lets the CLI decide. The policy is per
//!   session, so a fork's `/permissions` leaves the main session's alone.
//! - The file hooks (file writes into `state/` denied, markdown committed) are every session's:
//!   [`FileHooks`]. Without the OS sandbox, a Bash command that names `state/` is asked about
//!   here, in its PreToolUse hook, whatever the mode ([`DecideStateWrite`]): the hook runs
//!   before the CLI's own allow rules and modes, so none of them can let one through unasked.
//!   With the sandbox in force the kernel keeps `state/`, and nothing is asked for it.

use actix::prelude::*;
use serde_json::Value;

use crate::agent::permissions::tool_policy::PolicyFile;
use crate::agent::permissions::{
    ask_surface, reasons, ApprovalAnswer, ApprovalRequest, Decision, FileHooks, Policy,
    APPROVAL_TIMEOUT,
};
use crate::base::data_dir::DataDir;
use crate::claude::brain::{
    BoxFuture, HookCall, Host, PermissionDecision, PermissionMode, PermissionRequest,
};
use crate::conversation::surface::SurfaceEvent;

use super::MainSession;

/// The mode the CLI itself runs in for a session mode: `dontAsk`, `default` and `acceptEdits`
/// let the CLI ask us (we deny, ask the user, or allow edits that stay in the data directory);
/// the others are the CLI's own.
pub fn cli_mode(mode: PermissionMode) -> PermissionMode {
    match mode {
        PermissionMode::DontAsk | PermissionMode::AcceptEdits => PermissionMode::Default,
        other => other,
    }
}

/// Asks the session's policy about a Bash command that could write into `state/` (`why` says
/// how): asked in every mode that asks, denied in `dontAsk`.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Decision")]
pub struct DecideStateWrite {
    /// The call, as a permission prompt.
    pub request: PermissionRequest,
    /// How it could write into `state/`.
    pub why: String,
}

/// Asks the session's policy about one permission prompt.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Decision")]
pub struct DecidePermission(pub PermissionRequest);

/// The user's answer to a prompt the policy asked about; the answer is the final decision (a 🔓
/// is remembered for the rest of the session).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Decision")]
pub struct SettlePermission {
    /// The prompt.
    pub request: PermissionRequest,
    /// What the user answered.
    pub answer: ApprovalAnswer,
}

/// What this session allows: its permission policy and the `tool-policy.yaml` the policy takes
/// its standing allowances from.
pub(super) struct Permissions {
    /// This session's permission policy (a fork has its own); its host asks through the mailbox.
    pub(super) policy: Policy,
    /// `tool-policy.yaml`, whose `main_session.additional_allowed` the policy allows; re-read
    /// when it changes.
    tool_policy: PolicyFile,
}

impl Permissions {
    /// The policy for `mode`, with `tool-policy.yaml` of `data_dir`.
    pub(super) fn new(mode: PermissionMode, data_dir: &DataDir) -> Self {
        Self {
            policy: Policy::new(mode),
            tool_policy: PolicyFile::in_data_dir(data_dir),
        }
    }

    /// The built-ins `tool-policy.yaml` grants as it is now.
    pub(super) fn granted(&mut self, data_dir: &DataDir) -> Vec<String> {
        self.tool_policy.current().main_allowed(data_dir)
    }

    /// The policy's decision on one permission prompt, with `tool-policy.yaml` as it is now (an
    /// edit counts from the next call on).
    fn decide(&mut self, request: &PermissionRequest, data_dir: &DataDir) -> Decision {
        let standing = self.granted(data_dir);
        self.policy.set_standing(standing);
        self.policy.decide(request, data_dir)
    }
}

impl Handler<DecidePermission> for MainSession {
    type Result = MessageResult<DecidePermission>;
    fn handle(&mut self, msg: DecidePermission, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.permissions.decide(&msg.0, &self.config.data_dir))
    }
}

impl Handler<DecideStateWrite> for MainSession {
    type Result = MessageResult<DecideStateWrite>;
    fn handle(&mut self, msg: DecideStateWrite, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.permissions.policy.decide_state_write(
            &msg.request,
            &msg.why,
            &self.config.data_dir,
        ))
    }
}

impl Handler<SettlePermission> for MainSession {
    type Result = MessageResult<SettlePermission>;
    fn handle(&mut self, msg: SettlePermission, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.permissions.policy.settle(
            &msg.request,
            msg.answer,
            &self.config.data_dir,
        ))
    }
}

/// A conversation's host.
#[derive(Clone)]
pub struct SessionHost {
    session: Addr<MainSession>,
    surface: Recipient<SurfaceEvent>,
    approvals: Option<Recipient<ApprovalRequest>>,
    files: FileHooks,
}

impl SessionHost {
    /// A conversation's host: decisions by `session`'s policy, denials shown on `surface`,
    /// questions asked through `approvals`; `sandboxed` when its CLI runs its commands in the
    /// OS sandbox.
    pub fn conversation(
        data_dir: DataDir,
        sandboxed: bool,
        session: Addr<MainSession>,
        surface: Recipient<SurfaceEvent>,
        approvals: Option<Recipient<ApprovalRequest>>,
    ) -> Self {
        Self {
            files: FileHooks::new(data_dir, sandboxed),
            session,
            surface,
            approvals,
        }
    }

    /// Asks the session for a decision; a session that has stopped denies (nothing can run).
    async fn ask_session<M>(&self, msg: M, tool: &str) -> Decision
    where
        M: Message<Result = Decision> + Send + 'static,
        MainSession: Handler<M>,
    {
        match self.session.send(msg).await {
            Ok(decision) => decision,
            Err(e) => {
                tracing::error!(%tool, cause = %e, "the session has stopped; denying the tool");
                Decision::Deny {
                    label: tool.to_owned(),
                    message: format!("{tool} was not run: the session has ended"),
                    reason: reasons::SESSION_ENDED.to_owned(),
                }
            }
        }
    }

    fn show_denied(&self, label: &str, reason: &str) {
        self.surface.do_send(SurfaceEvent::Denied {
            label: label.to_owned(),
            reason: reason.to_owned(),
        });
    }

    /// The PreToolUse answer for a Bash `call` that could write into `state/`: the owner's
    /// ✅ or 🔓 lets it run (a 🔓 is remembered for Bash as usual, though it never covers the
    /// next such command); anything else refuses it.
    async fn state_write_hook(&self, call: HookCall, why: String) -> Value {
        let input = call.input.get("tool_input").cloned().unwrap_or(Value::Null);
        let request = PermissionRequest {
            tool_name: "Bash".into(),
            input,
            tool_use_id: call
                .input
                .get("tool_use_id")
                .and_then(Value::as_str)
                .map(str::to_owned),
            raw: call.input.clone(),
        };
        let asked = DecideStateWrite {
            request: request.clone(),
            why: why.clone(),
        };
        let decision = self.ask_session(asked, "Bash").await;
        let (label, refusal, reason) = match (decision, &self.approvals) {
            (Decision::Ask { label }, Some(approvals)) => {
                let ask = ApprovalRequest::new(label.clone(), "Bash");
                match ask_surface(approvals, ask, APPROVAL_TIMEOUT).await {
                    ApprovalAnswer::Deny => (
                        label,
                        format!("Bash was not run: the owner did not allow it ({why})"),
                        reasons::NOT_APPROVED.to_owned(),
                    ),
                    answer => {
                        if answer == ApprovalAnswer::AllowForSession {
                            self.ask_session(SettlePermission { request, answer }, "Bash")
                                .await;
                        }
                        tracing::info!(%why, "Bash that may write into state/ allowed by the owner");
                        return HookCall::allow_tool("allowed by the owner");
                    }
                }
            }
            (Decision::Ask { label }, None) => (
                label,
                format!("Bash was not run: it may write into state/ ({why}), and nobody can be asked here"),
                reasons::NOBODY_TO_ASK.to_owned(),
            ),
            (
                Decision::Deny {
                    label,
                    message,
                    reason,
                },
                _,
            ) => (label, message, reason),
            (Decision::Allow, _) => {
                // The policy never allows these unasked; refuse rather than trust a change.
                (
                    "Bash".into(),
                    format!("Bash was not run: it may write into state/ ({why})"),
                    reasons::STATE_FILES.to_owned(),
                )
            }
        };
        tracing::info!(%label, %why, "Bash that may write into state/ denied");
        self.show_denied(&label, &reason);
        HookCall::deny_tool(refusal)
    }
}

impl Host for SessionHost {
    fn can_use_tool(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        Box::pin(async move {
            let tool = request.tool_name.clone();
            let decision = self
                .ask_session(DecidePermission(request.clone()), &tool)
                .await;
            let decision = match (decision, &self.approvals) {
                (Decision::Ask { label }, Some(approvals)) => {
                    let ask = ApprovalRequest::new(label, tool.clone());
                    let answer = ask_surface(approvals, ask, APPROVAL_TIMEOUT).await;
                    let settle = SettlePermission {
                        request: request.clone(),
                        answer,
                    };
                    self.ask_session(settle, &tool).await
                }
                (Decision::Ask { label }, None) => Decision::Deny {
                    message: format!("{label} needs approval, and nobody can be asked here"),
                    label,
                    reason: reasons::NOBODY_TO_ASK.to_owned(),
                },
                (d, _) => d,
            };
            if let Decision::Deny { label, reason, .. } = &decision {
                tracing::info!(tool = %request.tool_name, %label, %reason, "tool denied");
                self.show_denied(label, reason);
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
            if let Some(denied) = self.files.secret_denial(&call) {
                return denied;
            }
            // Refused outright, never asked: our commands run outside the OS sandbox (only
            // while there is one).
            if let Some(denied) = self.files.unsandboxed_denial(&call) {
                return denied;
            }
            match self.files.bash_state_write(&call) {
                Some(why) => self.state_write_hook(call, why).await,
                None => self.files.answer(call).await,
            }
        })
    }
}
