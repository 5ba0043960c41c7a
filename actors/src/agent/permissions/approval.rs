//! Asking the user whether a tool may run (SPEC §11, `default` mode): the request a session sends
//! to its surface, the answer, the reactions that give it, and the 60-second limit.
//!
//! The surface shows [`prompt_text`] with the three reactions of [`APPROVAL_EMOJI`] and replies
//! with the [`ApprovalAnswer`] of the first one the owner adds ([`ApprovalAnswer::from_emoji`]),
//! then edits its message to [`ApprovalAnswer::outcome_text`]. The asking side calls
//! [`ask_surface`], which turns silence past the limit or a surface that has gone away into a
//! denial; a surface should likewise expire its own prompt ([`expired_text`]) after
//! [`APPROVAL_TIMEOUT`].

use std::time::Duration;

use actix::prelude::*;

use super::label::struck_through;

/// How long the user has to answer before the tool is denied.
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(60);

/// ✅: allow this one call.
pub const EMOJI_ALLOW: &str = "\u{2705}";
/// ❌: deny this call.
pub const EMOJI_DENY: &str = "\u{274C}";
/// 🔓: allow this tool for the rest of the session.
pub const EMOJI_ALLOW_FOR_SESSION: &str = "\u{1F513}";
/// The reactions a prompt carries, in the order they are added.
pub const APPROVAL_EMOJI: [&str; 3] = [EMOJI_ALLOW, EMOJI_DENY, EMOJI_ALLOW_FOR_SESSION];

/// The user's answer to an approval prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, MessageResponse)]
pub enum ApprovalAnswer {
    /// Run this call.
    Allow,
    /// Do not run it.
    Deny,
    /// Run it, and every later call of the same tool in this session.
    AllowForSession,
}

impl ApprovalAnswer {
    /// The answer a reaction gives, if it is one of the three (a trailing variation selector is
    /// ignored).
    pub fn from_emoji(emoji: &str) -> Option<Self> {
        match emoji.trim_end_matches('\u{FE0F}') {
            EMOJI_ALLOW => Some(Self::Allow),
            EMOJI_DENY => Some(Self::Deny),
            EMOJI_ALLOW_FOR_SESSION => Some(Self::AllowForSession),
            _ => None,
        }
    }

    /// The reaction that gives this answer.
    pub fn emoji(self) -> &'static str {
        match self {
            Self::Allow => EMOJI_ALLOW,
            Self::Deny => EMOJI_DENY,
            Self::AllowForSession => EMOJI_ALLOW_FOR_SESSION,
        }
    }

    /// What the prompt message says once answered.
    pub fn outcome_text(self, label: &str) -> String {
        match self {
            Self::Allow => format!("{label} — allowed"),
            Self::AllowForSession => format!("{label} — allowed for this session"),
            Self::Deny => struck_through(label),
        }
    }
}

/// A question for the surface: may this tool call run? Answered with an [`ApprovalAnswer`].
#[derive(Debug, Clone, PartialEq, Eq, Message)]
#[rtype(result = "ApprovalAnswer")]
pub struct ApprovalRequest {
    /// Identifies this prompt (the CLI's request id or a fresh one), so a surface can match
    /// reactions and expiry to it.
    pub id: String,
    /// How the call is shown (`Bash(rm x)`).
    pub label: String,
    /// The tool, which 🔓 allows for the session.
    pub tool_name: String,
    /// Whether the turn that asked still waits for the answer: an interrupted turn, or a CLI
    /// that went away, stops waiting, and the surface then marks the prompt cancelled.
    pub asker: Asker,
}

impl ApprovalRequest {
    /// A request with a fresh id.
    pub fn new(label: impl Into<String>, tool_name: impl Into<String>) -> Self {
        Self {
            id: uuid::Uuid::new_v4().to_string(),
            label: label.into(),
            tool_name: tool_name.into(),
            asker: Asker::default(),
        }
    }
}

/// Tells a surface whether whoever asked still waits ([`ask_surface`] holds the other end while
/// it waits; dropping it — a cancelled turn aborts the wait — lets go). Unknown (never gone)
/// for a request built without it. Compares equal to any other, so requests compare by what
/// they ask.
#[derive(Clone, Default)]
pub struct Asker(Option<std::sync::Weak<()>>);

impl Asker {
    /// An asker that waits while the returned handle lives.
    pub fn held() -> (Self, std::sync::Arc<()>) {
        let waiting = std::sync::Arc::new(());
        (Asker(Some(std::sync::Arc::downgrade(&waiting))), waiting)
    }

    /// True once the asker has stopped waiting.
    pub fn gone(&self) -> bool {
        self.0.as_ref().is_some_and(|w| w.strong_count() == 0)
    }
}

impl PartialEq for Asker {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl Eq for Asker {}

impl std::fmt::Debug for Asker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.gone() { "Asker(gone)" } else { "Asker" })
    }
}

/// The prompt a surface shows: the call and the three choices.
pub fn prompt_text(request: &ApprovalRequest) -> String {
    format!(
        "**permission needed:** {label}\n{EMOJI_ALLOW} allow once · {EMOJI_DENY} deny · \
         {EMOJI_ALLOW_FOR_SESSION} allow {tool} for this session\n-# no answer within {secs} s counts as deny",
        label = request.label,
        tool = request.tool_name,
        secs = APPROVAL_TIMEOUT.as_secs(),
    )
}

/// What an unanswered prompt says once its time is up.
pub fn expired_text(label: &str) -> String {
    format!("~~{label}~~ — expired")
}

/// What a prompt says once the turn that asked has ended without an answer (interrupted, or
/// its CLI gone): a later reaction changes nothing.
pub fn cancelled_text(label: &str) -> String {
    format!("~~{label}~~ — cancelled (its turn ended; nothing ran)")
}

/// Sends `request` to `surface` and waits up to `timeout` for the answer; silence, a full or
/// stopped surface, or a dropped reply all count as [`ApprovalAnswer::Deny`].
pub async fn ask_surface(
    surface: &Recipient<ApprovalRequest>,
    mut request: ApprovalRequest,
    timeout: Duration,
) -> ApprovalAnswer {
    let id = request.id.clone();
    // Held while this waits: a turn cancelled mid-wait drops it, and the surface sees that.
    let (asker, _waiting) = Asker::held();
    request.asker = asker;
    match tokio::time::timeout(timeout, surface.send(request)).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(cause)) => {
            tracing::warn!(approval = %id, %cause, "approval surface gone, denying");
            ApprovalAnswer::Deny
        }
        Err(_) => {
            tracing::info!(approval = %id, "approval timed out, denying");
            ApprovalAnswer::Deny
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A surface that answers every request with a fixed reaction, or never answers.
    struct Surface {
        reaction: Option<&'static str>,
    }

    impl Actor for Surface {
        type Context = Context<Self>;
    }

    impl Handler<ApprovalRequest> for Surface {
        type Result = ResponseFuture<ApprovalAnswer>;

        fn handle(&mut self, _: ApprovalRequest, _: &mut Self::Context) -> Self::Result {
            let reaction = self.reaction;
            Box::pin(async move {
                match reaction.and_then(ApprovalAnswer::from_emoji) {
                    Some(answer) => answer,
                    None => std::future::pending().await,
                }
            })
        }
    }

    fn request() -> ApprovalRequest {
        ApprovalRequest::new("Bash(rm x)", "Bash")
    }

    #[actix_rt::test]
    async fn an_answer_within_the_limit_is_returned() {
        let surface = Surface {
            reaction: Some(EMOJI_ALLOW_FOR_SESSION),
        }
        .start()
        .recipient();
        let got = ask_surface(&surface, request(), Duration::from_secs(5)).await;
        assert_eq!(got, ApprovalAnswer::AllowForSession);
    }

    #[actix_rt::test]
    async fn silence_past_the_limit_is_a_denial() {
        let surface = Surface { reaction: None }.start().recipient();
        let got = ask_surface(&surface, request(), Duration::from_millis(20)).await;
        assert_eq!(got, ApprovalAnswer::Deny);
    }

    #[actix_rt::test]
    async fn a_stopped_surface_is_a_denial_without_waiting() {
        let gone = Surface::create(|ctx| {
            ctx.stop();
            Surface {
                reaction: Some(EMOJI_ALLOW),
            }
        })
        .recipient();
        tokio::task::yield_now().await;
        let started = std::time::Instant::now();
        let got = ask_surface(&gone, request(), Duration::from_secs(5)).await;
        assert_eq!(got, ApprovalAnswer::Deny);
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "waited for the timeout"
        );
    }

    #[test]
    fn the_timeout_is_sixty_seconds() {
        assert_eq!(APPROVAL_TIMEOUT, Duration::from_secs(60));
    }

    #[test]
    fn emoji_map_to_answers_and_back() {
        assert_eq!(
            ApprovalAnswer::from_emoji("✅"),
            Some(ApprovalAnswer::Allow)
        );
        assert_eq!(ApprovalAnswer::from_emoji("❌"), Some(ApprovalAnswer::Deny));
        assert_eq!(
            ApprovalAnswer::from_emoji("🔓"),
            Some(ApprovalAnswer::AllowForSession)
        );
        assert_eq!(
            ApprovalAnswer::from_emoji("✅\u{FE0F}"),
            Some(ApprovalAnswer::Allow)
        );
        assert_eq!(ApprovalAnswer::from_emoji("👍"), None);
        for answer in [
            ApprovalAnswer::Allow,
            ApprovalAnswer::Deny,
            ApprovalAnswer::AllowForSession,
        ] {
            assert_eq!(ApprovalAnswer::from_emoji(answer.emoji()), Some(answer));
        }
        assert_eq!(APPROVAL_EMOJI, ["✅", "❌", "🔓"]);
    }

    #[test]
    fn prompt_names_the_call_and_the_three_choices() {
        let text = prompt_text(&request());
        assert!(text.contains("Bash(rm x)"));
        for emoji in APPROVAL_EMOJI {
            assert!(text.contains(emoji), "{emoji} missing from {text}");
        }
        assert!(text.contains("allow Bash for this session"));
        assert!(text.contains("60 s"));
    }

    #[test]
    fn outcome_and_expiry_lines() {
        assert_eq!(
            ApprovalAnswer::Deny.outcome_text("Bash(rm x)"),
            "~~Bash(rm x)~~ — denied"
        );
        assert_eq!(
            ApprovalAnswer::Allow.outcome_text("Bash(rm x)"),
            "Bash(rm x) — allowed"
        );
        assert_eq!(expired_text("Bash(rm x)"), "~~Bash(rm x)~~ — expired");
    }
}
