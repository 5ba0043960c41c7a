//! `save_context`, `report_updates`, `enter_fork` and `exit_fork` (SPEC §6, §10): the tools that
//! start and end forks and carry findings back to the main session. Each refuses where it does
//! not apply — no forks inside forks, no exits from the main session, background forks end on
//! their own — and the backend records the exit the session actor carries out after the turn.

use serde_json::Value;

use super::{arguments, bad_arguments, refuse, settle};
use super::{Confirmation, DiscordTools, Refusal, SessionKind, ToolName};
use crate::claude::brain::mcp::ToolOutput;

impl DiscordTools {
    /// `save_context()`.
    pub(super) async fn save_context(&self, arguments: &Value) -> ToolOutput {
        let tool = ToolName::SaveContext;
        match self.kind {
            SessionKind::Background(_) => refuse(tool, Refusal::SaveContextInBackground),
            SessionKind::Main => refuse(tool, Refusal::NotInInteractiveFork),
            SessionKind::InteractiveFork => {
                if let Err(error) = arguments::none(tool, arguments) {
                    return bad_arguments(error);
                }
                let result = self.backend.save_context().await;
                settle(tool, result, Confirmation::SaveConfirmationAsked)
            }
        }
    }

    /// `report_updates(message)`.
    pub(super) async fn report_updates(&self, arguments: &Value) -> ToolOutput {
        let tool = ToolName::ReportUpdates;
        let done = match &self.kind {
            SessionKind::Main => return refuse(tool, Refusal::NotInFork),
            SessionKind::Background(rules) if rules.reporting_blocked() => {
                return refuse(tool, Refusal::ReportingDisabled);
            }
            SessionKind::Background(_) => Confirmation::ReportedFromBackground,
            SessionKind::InteractiveFork => Confirmation::ReportedFromFork,
        };
        let message = match arguments::report(arguments) {
            Ok(message) => message,
            Err(error) => return bad_arguments(error),
        };
        match self.backend.report(message).await {
            Ok(Some(why)) => {
                tracing::warn!(cause = %why, "a reported update is held in memory only");
                ToolOutput::ok(format!("{done} {}", held_in_memory(&why)))
            }
            result => settle(tool, result.map(|_| ()), done),
        }
    }

    /// `enter_fork(topic?, idle_timeout?)`.
    pub(super) async fn enter_fork(&self, arguments: &Value) -> ToolOutput {
        let tool = ToolName::EnterFork;
        match self.kind {
            SessionKind::Background(_) => refuse(tool, Refusal::EnterForkInBackground),
            SessionKind::InteractiveFork => refuse(tool, Refusal::AlreadyInFork),
            SessionKind::Main => {
                let args = match arguments::enter_fork(arguments) {
                    Ok(args) => args,
                    Err(error) => return bad_arguments(error),
                };
                let idle = args.idle_timeout.unwrap_or(self.default_idle_timeout);
                let result = self.backend.enter_fork(args.topic, idle).await;
                settle(tool, result, Confirmation::EnteringFork)
            }
        }
    }

    /// `exit_fork()`.
    pub(super) async fn exit_fork(&self, arguments: &Value) -> ToolOutput {
        let tool = ToolName::ExitFork;
        match self.kind {
            SessionKind::Background(_) => refuse(tool, Refusal::ExitForkInBackground),
            SessionKind::Main => refuse(tool, Refusal::NotInInteractiveFork),
            SessionKind::InteractiveFork => {
                if let Err(error) = arguments::none(tool, arguments) {
                    return bad_arguments(error);
                }
                let result = self.backend.exit_fork().await;
                settle(tool, result, Confirmation::ForkDiscarded)
            }
        }
    }
}

/// What the agent is told when its update could not be written: it is queued, but a restart
/// before the disk has room loses it — so the agent can say so.
fn held_in_memory(why: &str) -> String {
    format!(
        "But it could not be saved to disk ({why}): it is held in memory only until the disk \
         has room (it is saved then), and a restart before that would lose it. If it matters, \
         tell the user in your reply or a ping."
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::recording_backend::{call, BackendCall, Recording};
    use super::super::{BackgroundRules, Peer, Refusal, SessionKind};
    use crate::claude::brain::mcp::ToolOutput;
    use crate::jobs::UpdateMode;

    fn background(update_mode: UpdateMode) -> SessionKind {
        SessionKind::Background(BackgroundRules {
            update_mode,
            ..BackgroundRules::default()
        })
    }

    /// Calls `tool` with no arguments in `kind`; returns the reply and whether the backend
    /// received anything.
    async fn bare(kind: SessionKind, tool: &str) -> (String, bool) {
        let (tools, backend) = Recording::tools(kind);
        let output = call(&tools, tool, json!({})).await;
        assert!(!output.is_error, "{tool}: {}", output.text);
        (output.text, !backend.calls().is_empty())
    }

    #[tokio::test]
    async fn save_context_asks_for_confirmation_only_in_interactive_forks() {
        assert_eq!(
            bare(SessionKind::InteractiveFork, "save_context").await,
            (
                "Save confirmation sent to the user. The fork becomes the main session only if they click Confirm; until then it stays open — carry on with the conversation."
                    .into(),
                true
            )
        );
        assert_eq!(
            bare(SessionKind::Main, "save_context").await,
            ("Error: not in an interactive fork".into(), false)
        );
        assert_eq!(
            bare(background(UpdateMode::OnPing), "save_context").await,
            ("Error: save_context is not available in background forks. Use report_updates instead.".into(), false)
        );
    }

    #[tokio::test]
    async fn exit_fork_discards_only_interactive_forks() {
        assert_eq!(
            bare(SessionKind::InteractiveFork, "exit_fork").await,
            (
                "Fork will be discarded after you finish responding — further tool calls delay the exit.".into(),
                true
            )
        );
        assert_eq!(
            bare(SessionKind::Main, "exit_fork").await,
            ("Error: not in an interactive fork".into(), false)
        );
        assert_eq!(
            bare(background(UpdateMode::Always), "exit_fork").await,
            ("Error: background forks end automatically. Use report_updates to pass findings to the main session.".into(), false)
        );
    }

    #[tokio::test]
    async fn enter_fork_is_refused_inside_any_fork() {
        assert_eq!(
            bare(SessionKind::InteractiveFork, "enter_fork").await,
            ("Error: already in an interactive fork. Use report_updates, exit_fork, or save_context to end it first.".into(), false)
        );
        assert_eq!(
            bare(background(UpdateMode::Freely), "enter_fork").await,
            (
                "Error: enter_fork is not available in background forks.".into(),
                false
            )
        );
    }

    #[tokio::test]
    async fn enter_fork_from_main_passes_topic_and_idle_timeout() {
        let (tools, backend) = Recording::tools(SessionKind::Main);
        let output = call(
            &tools,
            "enter_fork",
            json!({"topic": " trip planning ", "idle_timeout": 25}),
        )
        .await;
        assert_eq!(
            output,
            ToolOutput::ok("Entering fork — interrupting current turn.")
        );
        assert_eq!(
            backend.calls(),
            [BackendCall::EnterFork {
                topic: Some("trip planning".into()),
                idle_timeout: 25
            }]
        );
    }

    #[tokio::test]
    async fn enter_fork_defaults_to_ten_minutes_or_the_configured_timeout() {
        let (tools, backend) = Recording::tools(SessionKind::Main);
        call(&tools, "enter_fork", json!({})).await;
        let (tools, configured) = Recording::tools(SessionKind::Main);
        let tools = tools.with_fork_idle_timeout(30);
        call(&tools, "enter_fork", json!({"topic": ""})).await;
        assert_eq!(
            backend.calls(),
            [BackendCall::EnterFork {
                topic: None,
                idle_timeout: 10
            }]
        );
        assert_eq!(
            configured.calls(),
            [BackendCall::EnterFork {
                topic: None,
                idle_timeout: 30
            }]
        );
    }

    #[tokio::test]
    async fn report_from_background_queues_the_summary() {
        let (tools, backend) = Recording::tools(background(UpdateMode::OnPing));
        let output = call(
            &tools,
            "report_updates",
            json!({"message": "inbox is clear"}),
        )
        .await;
        assert_eq!(
            output,
            ToolOutput::ok("Update reported -- summary will appear in main session.")
        );
        assert_eq!(
            backend.calls(),
            [BackendCall::Report("inbox is clear".into())]
        );
    }

    #[tokio::test]
    async fn report_from_an_interactive_fork_ends_it() {
        let (tools, backend) = Recording::tools(SessionKind::InteractiveFork);
        let output = call(
            &tools,
            "report_updates",
            json!({"message": "picked a hotel"}),
        )
        .await;
        assert_eq!(
            output,
            ToolOutput::ok("Update reported. Fork will be discarded after you finish responding — further tool calls delay the exit.")
        );
        assert_eq!(
            backend.calls(),
            [BackendCall::Report("picked a hotel".into())]
        );
    }

    #[tokio::test]
    async fn report_is_refused_in_main_and_when_blocked() {
        assert_eq!(
            bare(SessionKind::Main, "report_updates").await,
            ("Error: not in a forked session".into(), false)
        );
        assert_eq!(
            bare(background(UpdateMode::Blocked), "report_updates").await,
            (
                "Reporting to main session is disabled for this background task.".into(),
                false
            )
        );
    }

    #[tokio::test]
    async fn report_with_an_empty_message_is_an_argument_error() {
        let (tools, backend) = Recording::tools(SessionKind::InteractiveFork);
        let output = call(&tools, "report_updates", json!({"message": "   "})).await;
        assert!(output.is_error);
        assert!(output.text.contains("must not be empty"), "{}", output.text);
        assert!(backend.calls().is_empty());
    }

    #[tokio::test]
    async fn backend_refusals_of_fork_exits_pass_through_verbatim() {
        for tool in ["save_context", "exit_fork"] {
            let (tools, backend) = Recording::tools(SessionKind::InteractiveFork);
            let refusal = Refusal::ActorGone(Peer::InteractiveFork);
            backend.refuse_with(refusal.clone());
            let output = call(&tools, tool, json!({})).await;
            assert_eq!(output, ToolOutput::ok(refusal.text()));
        }
    }

    #[tokio::test]
    async fn a_report_that_could_not_be_saved_tells_the_agent_it_is_in_memory_only() {
        let (tools, backend) = Recording::tools(background(UpdateMode::OnPing));
        backend.unsaved_because("No space left on device (os error 28)");
        let output = call(
            &tools,
            "report_updates",
            json!({"message": "inbox is clear"}),
        )
        .await;
        assert!(!output.is_error);
        assert!(
            output
                .text
                .starts_with("Update reported -- summary will appear in main session.")
                && output
                    .text
                    .contains("(No space left on device (os error 28))")
                && output
                    .text
                    .contains("held in memory only until the disk has room")
                && output.text.contains("restart before that would lose it"),
            "{}",
            output.text
        );
    }
}
