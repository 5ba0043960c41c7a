//! `ping_user` and `discord_embed` (SPEC §7, §10): the tools that put something in front of the
//! user. Here: the context checks (ping only from background forks, nothing at all when the job
//! has `allow-ping: false`, whatever `critical` says), arguments, the `[bg] ` prefix and the
//! embed footer. The fork's ping count, the busy check and the budget are the backend's.

use serde_json::Value;

use super::{arguments, bad_arguments, embed_arguments, refuse, settle};
use super::{Confirmation, DiscordTools, Refusal, ToolName};
use crate::claude::brain::mcp::ToolOutput;

impl DiscordTools {
    /// `ping_user(message, critical?)`.
    pub(super) async fn ping_user(&self, arguments: &Value) -> ToolOutput {
        let tool = ToolName::PingUser;
        let Some(rules) = self.kind.background() else {
            return refuse(tool, Refusal::PingOutsideBackground);
        };
        if !rules.allow_ping {
            return refuse(tool, Refusal::PingingDisabled);
        }
        let args = match arguments::ping(arguments) {
            Ok(args) => args,
            Err(error) => return bad_arguments(error),
        };
        let message = format!("[bg] {}", args.message);
        let result = self.backend.ping(message, args.critical).await;
        settle(tool, result, Confirmation::MessageSent)
    }

    /// `discord_embed(title, description?, color?, fields?, buttons?, critical?)`.
    pub(super) async fn discord_embed(&self, arguments: &Value) -> ToolOutput {
        let tool = ToolName::DiscordEmbed;
        if self
            .kind
            .background()
            .is_some_and(|rules| !rules.allow_ping)
        {
            return refuse(tool, Refusal::PingingDisabled);
        }
        let args = match embed_arguments::read(arguments) {
            Ok(args) => args,
            Err(error) => return bad_arguments(error),
        };
        let mut embed = args.embed;
        embed.footer = self.kind.embed_footer().map(str::to_owned);
        let result = self.backend.embed(embed, args.critical).await;
        settle(tool, result, Confirmation::EmbedSent)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::recording_backend::{call, BackendCall, Recording};
    use super::super::{BackgroundRules, ButtonAction, Embed, EmbedColor, SessionKind};
    use super::*;
    use crate::claude::brain::mcp::ToolOutput;

    /// The one embed the backend received.
    fn only_embed(backend: &Recording) -> (Embed, bool) {
        match backend.calls().as_slice() {
            [BackendCall::Embed { embed, critical }] => (embed.clone(), *critical),
            other => panic!("expected one embed, got {other:?}"),
        }
    }

    fn background(allow_ping: bool) -> SessionKind {
        SessionKind::Background(BackgroundRules {
            allow_ping,
            ..BackgroundRules::default()
        })
    }

    #[tokio::test]
    async fn background_ping_is_sent_with_the_bg_prefix() {
        let (tools, backend) = Recording::tools(background(true));
        let output = call(&tools, "ping_user", json!({"message": "laundry is done"})).await;
        assert_eq!(output, ToolOutput::ok("Message sent."));
        assert_eq!(
            backend.calls(),
            [BackendCall::Ping {
                message: "[bg] laundry is done".into(),
                critical: false
            }]
        );
    }

    #[tokio::test]
    async fn critical_ping_tells_the_backend() {
        let (tools, backend) = Recording::tools(background(true));
        call(
            &tools,
            "ping_user",
            json!({"message": "leave now", "critical": true}),
        )
        .await;
        assert_eq!(
            backend.calls(),
            [BackendCall::Ping {
                message: "[bg] leave now".into(),
                critical: true
            }]
        );
    }

    #[tokio::test]
    async fn ping_outside_background_forks_is_refused_and_sends_nothing() {
        for kind in [SessionKind::Main, SessionKind::InteractiveFork] {
            let (tools, backend) = Recording::tools(kind);
            let output = call(&tools, "ping_user", json!({"message": "hi"})).await;
            assert_eq!(
                output,
                ToolOutput::ok("Error: ping_user is only available in background forks")
            );
            assert!(backend.calls().is_empty());
        }
    }

    #[tokio::test]
    async fn disabled_pinging_overrides_critical_for_ping_and_embed() {
        let (tools, backend) = Recording::tools(background(false));
        let ping = call(
            &tools,
            "ping_user",
            json!({"message": "x", "critical": true}),
        )
        .await;
        let embed = call(
            &tools,
            "discord_embed",
            json!({"title": "x", "critical": true}),
        )
        .await;
        for output in [ping, embed] {
            assert_eq!(
                output,
                ToolOutput::ok("Pinging is disabled for this background task.")
            );
        }
        assert!(backend.calls().is_empty());
    }

    #[tokio::test]
    async fn backend_refusals_reach_the_model_verbatim_and_not_as_errors() {
        for refusal in [
            Refusal::AlreadyPinged,
            Refusal::UserBusy,
            Refusal::BudgetExhausted,
        ] {
            let (tools, backend) = Recording::tools(background(true));
            backend.refuse_with(refusal.clone());
            let ping = call(&tools, "ping_user", json!({"message": "x"})).await;
            let embed = call(&tools, "discord_embed", json!({"title": "x"})).await;
            assert_eq!(ping, ToolOutput::ok(refusal.text()));
            assert_eq!(embed, ToolOutput::ok(refusal.text()));
        }
    }

    #[tokio::test]
    async fn ping_without_a_message_is_an_argument_error() {
        let (tools, backend) = Recording::tools(background(true));
        let output = call(&tools, "ping_user", json!({"critical": true})).await;
        assert!(output.is_error);
        assert!(
            output.text.contains("`message` is required"),
            "{}",
            output.text
        );
        assert!(backend.calls().is_empty());
    }

    #[tokio::test]
    async fn embed_footer_follows_the_session_kind() {
        for (kind, footer) in [
            (SessionKind::Main, None),
            (SessionKind::InteractiveFork, Some("fork")),
            (background(true), Some("bg")),
        ] {
            let (tools, backend) = Recording::tools(kind);
            let output = call(&tools, "discord_embed", json!({"title": "Today"})).await;
            assert_eq!(output, ToolOutput::ok("Embed sent."));
            let (embed, critical) = only_embed(&backend);
            assert_eq!(embed.footer.as_deref(), footer);
            assert!(!critical);
        }
    }

    #[tokio::test]
    async fn embed_reaches_the_backend_cleaned_and_parsed() {
        let (tools, backend) = Recording::tools(SessionKind::Main);
        call(
            &tools,
            "discord_embed",
            json!({
                "title": "📅 Agenda",
                "description": "Morning\\nAfternoon",
                "color": "green",
                "fields": [{"name": "9:00", "value": "standup", "inline": false}],
                "buttons": [{"label": "Done", "style": "success", "action": "task_done:t1"}],
                "critical": true,
            }),
        )
        .await;
        let (embed, critical) = only_embed(&backend);
        assert!(critical);
        assert_eq!(embed.title, "Agenda");
        assert_eq!(embed.description.as_deref(), Some("Morning\nAfternoon"));
        assert_eq!(embed.color, EmbedColor::Green);
        assert!(!embed.fields[0].inline);
        assert_eq!(embed.buttons[0].action, ButtonAction::TaskDone("t1".into()));
    }

    #[tokio::test]
    async fn embed_with_six_buttons_is_an_argument_error() {
        let (tools, backend) = Recording::tools(SessionKind::InteractiveFork);
        let button = json!({"label": "x", "action": "dismiss"});
        let output = call(
            &tools,
            "discord_embed",
            json!({"title": "t", "buttons": vec![button; 6]}),
        )
        .await;
        assert!(output.is_error);
        assert!(output.text.contains("more than 5"), "{}", output.text);
        assert!(backend.calls().is_empty());
    }
}
