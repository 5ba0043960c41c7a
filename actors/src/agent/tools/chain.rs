//! `follow_up_chain(minutes_from_now)` (SPEC §3, §10): schedules the next check of a chain
//! reminder. Refused when no chain reminder is running, on the final link (depth = max), and in a
//! background job whose reporting is blocked. The backend writes the new reminder.

use serde_json::Value;

use super::{arguments, bad_arguments, refuse, settle};
use super::{Confirmation, DiscordTools, Refusal, ToolName};
use crate::claude::brain::mcp::ToolOutput;

impl DiscordTools {
    /// `follow_up_chain(minutes_from_now)`.
    pub(super) async fn follow_up_chain(&self, arguments: &Value) -> ToolOutput {
        let tool = ToolName::FollowUpChain;
        if self
            .kind
            .background()
            .is_some_and(|rules| rules.reporting_blocked())
        {
            return refuse(tool, Refusal::ReportingDisabled);
        }
        let Some(chain) = self.chain().await else {
            return refuse(tool, Refusal::NoReminderContext);
        };
        if !chain.can_follow_up() {
            return refuse(tool, Refusal::ChainLimitReached);
        }
        let minutes = match arguments::follow_up(arguments) {
            Ok(minutes) => minutes,
            Err(error) => return bad_arguments(error),
        };
        let result = self.backend.follow_up(minutes).await;
        settle(tool, result, Confirmation::FollowUpScheduled(minutes))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::recording_backend::{call, BackendCall, Recording};
    use super::super::{BackgroundRules, ChainPosition, Refusal, SessionKind};
    use crate::claude::brain::mcp::ToolOutput;
    use crate::jobs::UpdateMode;

    fn chained(depth: u32, max: u32, update_mode: UpdateMode) -> SessionKind {
        SessionKind::Background(BackgroundRules {
            allow_ping: true,
            update_mode,
            chain: Some(ChainPosition { depth, max }),
            ..BackgroundRules::default()
        })
    }

    #[tokio::test]
    async fn chain_link_before_the_last_schedules_a_follow_up() {
        let (tools, backend) = Recording::tools(chained(1, 3, UpdateMode::OnPing));
        let output = call(&tools, "follow_up_chain", json!({"minutes_from_now": 30})).await;
        assert_eq!(output, ToolOutput::ok("Follow-up scheduled in 30 minutes"));
        assert_eq!(backend.calls(), [BackendCall::FollowUp(30)]);
    }

    #[tokio::test]
    async fn final_link_is_refused_and_schedules_nothing() {
        let (tools, backend) = Recording::tools(chained(3, 3, UpdateMode::OnPing));
        let output = call(&tools, "follow_up_chain", json!({"minutes_from_now": 30})).await;
        assert_eq!(
            output,
            ToolOutput::ok(
                "Error: follow-up limit reached — this was the last check. If the task still needs attention, ping the user now."
            )
        );
        assert!(backend.calls().is_empty());
    }

    #[tokio::test]
    async fn without_a_chain_reminder_there_is_no_context() {
        for kind in [
            SessionKind::Main,
            SessionKind::InteractiveFork,
            SessionKind::Background(BackgroundRules::default()),
        ] {
            let (tools, backend) = Recording::tools(kind);
            let output = call(&tools, "follow_up_chain", json!({"minutes_from_now": 5})).await;
            assert_eq!(output, ToolOutput::ok("Error: no active reminder context"));
            assert!(backend.calls().is_empty());
        }
    }

    #[tokio::test]
    async fn blocked_reporting_refuses_follow_ups() {
        let (tools, backend) = Recording::tools(chained(0, 2, UpdateMode::Blocked));
        let output = call(&tools, "follow_up_chain", json!({"minutes_from_now": 5})).await;
        assert_eq!(
            output,
            ToolOutput::ok("Reporting to main session is disabled for this background task.")
        );
        assert!(backend.calls().is_empty());
    }

    #[tokio::test]
    async fn main_session_follows_up_only_while_a_foreground_chain_is_set() {
        let (tools, backend) = Recording::tools(SessionKind::Main);
        backend.set_foreground_chain(Some(ChainPosition { depth: 0, max: 1 }));
        let output = call(&tools, "follow_up_chain", json!({"minutes_from_now": 15})).await;
        assert_eq!(output, ToolOutput::ok("Follow-up scheduled in 15 minutes"));
        backend.set_foreground_chain(None);
        let after = call(&tools, "follow_up_chain", json!({"minutes_from_now": 15})).await;
        assert_eq!(after, ToolOutput::ok("Error: no active reminder context"));
        assert_eq!(backend.calls(), [BackendCall::FollowUp(15)]);
    }

    #[tokio::test]
    async fn zero_minutes_is_an_argument_error() {
        let (tools, backend) = Recording::tools(chained(0, 2, UpdateMode::Freely));
        let output = call(&tools, "follow_up_chain", json!({"minutes_from_now": 0})).await;
        assert!(output.is_error);
        assert!(output.text.contains("at least 1"), "{}", output.text);
        assert!(backend.calls().is_empty());
    }

    #[tokio::test]
    async fn backend_failure_to_schedule_reaches_the_model_verbatim() {
        let (tools, backend) = Recording::tools(chained(0, 2, UpdateMode::Freely));
        backend.refuse_with(Refusal::FollowUpNotScheduled("disk full".into()));
        let output = call(&tools, "follow_up_chain", json!({"minutes_from_now": 10})).await;
        assert_eq!(
            output,
            ToolOutput::ok("Error scheduling follow-up: disk full")
        );
    }
}
