//! One turn's bookkeeping, kept apart from the actor so the rules are tested directly.
//!
//! A turn is one user line written to the CLI and ends with its `result`. What happens in
//! between decides what the user sees: streamed text, a compaction (SPEC §5: re-send the
//! user's message only when the result arrives with no assistant output after the compaction
//! boundary and the turn was not a `/compact` we sent — never answer twice), an interrupt.

use super::failure::Failure;
use crate::claude::brain::{CompactBoundary, TurnResult};

/// What kind of line the turn sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnKind {
    /// A message from the user (or a foreground job).
    Message,
    /// `/compact`, sent by us.
    Compact,
    /// `/clear`, sent by us.
    Clear,
    /// The silent `[memory-flush]` turn before forgetting, sent by us: its answer becomes a
    /// session snapshot and is never shown.
    Flush(crate::agent::memory_flush::Reason),
}

/// A turn in flight.
#[derive(Debug, Clone)]
pub struct Turn {
    /// The uuid the driver gave the user line.
    pub uuid: String,
    /// What was sent (re-sent as is after a compaction that swallowed it).
    pub sent_text: String,
    /// What kind of turn.
    pub kind: TurnKind,
    /// Text streamed so far.
    pub text: String,
    /// The CLI is compacting right now (no interrupts then).
    pub compacting: bool,
    /// The boundary seen in this turn, if any.
    pub boundary: Option<CompactBoundary>,
    /// The CLI's compaction in this turn failed: why (`too_few_groups`, `exhausted`).
    pub compact_failed: Option<String>,
    /// An assistant message arrived after the boundary.
    pub assistant_after_boundary: bool,
    /// The user interrupted it.
    pub interrupted: bool,
    /// The CLI said it took this line into a turn (a status frame or a replay named it).
    pub taken: bool,
    /// Re-sent once already (never twice).
    pub resent: bool,
    /// The error kind of the CLI's synthetic message when a model call failed.
    pub api_error: Option<String>,
    /// The foreground job this turn runs (its ticket), if any.
    pub job: Option<u64>,
    /// *(ours)* The snooze the answer's buttons press (a foreground reminder's turn).
    pub snooze: Option<String>,
    /// The model the turn runs on, from the CLI's init.
    pub model: Option<String>,
    /// The context of the turn's last model call (its input, cached or not).
    pub context_tokens: Option<u64>,
    /// The labels of the tool calls shown so far, by `tool_use` id, for a result that failed.
    pub tool_labels: Vec<(String, String)>,
}

/// What to do when a turn's result arrives.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Show this reply.
    Reply(String),
    /// The compaction swallowed the message: send it again.
    Resend(String),
    /// It was interrupted: say nothing.
    Interrupted,
    /// It failed: show what the user can do about it (the detail goes to the log).
    Failed(Failure),
    /// A command turn finished (`/compact`, `/clear`, a memory flush).
    CommandDone,
}

/// The reply shown when the model produced no text at all.
pub const EMPTY_REPLY: &str = "no response — try again.";

impl Turn {
    /// A new turn for a line that was just sent.
    pub fn new(uuid: String, sent_text: String, kind: TurnKind) -> Self {
        Self {
            uuid,
            sent_text,
            kind,
            text: String::new(),
            compacting: false,
            compact_failed: None,
            boundary: None,
            assistant_after_boundary: false,
            interrupted: false,
            taken: false,
            resent: false,
            api_error: None,
            job: None,
            snooze: None,
            model: None,
            context_tokens: None,
            tool_labels: Vec::new(),
        }
    }

    /// Records a compaction boundary (later text belongs to the continued answer).
    pub fn on_boundary(&mut self, b: CompactBoundary) {
        self.boundary = Some(b);
        self.assistant_after_boundary = false;
        self.compacting = false;
        // Text before the boundary was the answer to a prompt that no longer exists.
        self.text.clear();
    }

    /// Records a completed assistant block; its text is used when nothing streamed.
    pub fn on_assistant(&mut self, text: &str) {
        if self.boundary.is_some() {
            self.assistant_after_boundary = true;
        }
        if self.text.is_empty() && !text.is_empty() {
            self.text.push_str(text);
        }
    }

    /// The context usage line to show under this turn's answer, if its context is filling up;
    /// never after a compaction (the context was just made small).
    pub fn context_line(&self, result: &TurnResult) -> Option<String> {
        if self.boundary.is_some() || self.resent {
            return None;
        }
        super::context_warning::line(self.model.as_deref(), self.context_used(result))
    }

    /// The context's size after this turn: its last model call's input, cached or not.
    pub fn context_used(&self, result: &TurnResult) -> u64 {
        self.context_tokens.unwrap_or_else(|| {
            let u = &result.usage;
            u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
        })
    }

    /// Decides what the result means.
    pub fn outcome(&self, result: &TurnResult) -> Outcome {
        if self.kind != TurnKind::Message {
            return Outcome::CommandDone;
        }
        if self.interrupted
            || matches!(
                result.terminal_reason.as_deref(),
                Some("aborted_streaming" | "aborted_tools")
            )
        {
            return Outcome::Interrupted;
        }
        if self.boundary.is_some() && !self.assistant_after_boundary && !self.resent {
            return Outcome::Resend(self.sent_text.clone());
        }
        if result.is_error {
            return Outcome::Failed(Failure::of(
                self.api_error.as_deref(),
                self.compact_failed.as_deref(),
                result,
            ));
        }
        let text = if self.text.trim().is_empty() {
            result.result.clone().unwrap_or_default()
        } else {
            self.text.clone()
        };
        if text.trim().is_empty() {
            Outcome::Reply(EMPTY_REPLY.to_owned())
        } else {
            Outcome::Reply(text)
        }
    }
}

/// `auto-compacted · 150k tokens · 12s`.
pub fn compacted_notice(b: &CompactBoundary) -> String {
    let tokens = b
        .pre_tokens
        .map(thousands)
        .unwrap_or_else(|| "?".to_owned());
    let secs = b.duration_ms.unwrap_or(0) / 1000;
    format!("auto-compacted · {tokens} tokens · {secs}s")
}

/// `150000` → `150k`; small numbers stay as they are.
pub fn thousands(n: u64) -> String {
    if n >= 1000 {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: Option<&str>) -> TurnResult {
        TurnResult {
            subtype: "success".into(),
            result: text.map(str::to_owned),
            terminal_reason: Some("completed".into()),
            ..TurnResult::default()
        }
    }

    fn boundary() -> CompactBoundary {
        CompactBoundary {
            trigger: "auto".into(),
            pre_tokens: Some(150_000),
            post_tokens: Some(2000),
            duration_ms: Some(12_400),
        }
    }

    #[test]
    fn streamed_text_is_the_reply_and_empty_answers_say_so() {
        let mut t = Turn::new("u".into(), "hi".into(), TurnKind::Message);
        t.text.push_str("hello!");
        assert_eq!(
            t.outcome(&ok(Some("hello!"))),
            Outcome::Reply("hello!".into())
        );
        let t = Turn::new("u".into(), "hi".into(), TurnKind::Message);
        assert_eq!(t.outcome(&ok(Some(""))), Outcome::Reply(EMPTY_REPLY.into()));
    }

    #[test]
    fn compaction_without_a_continued_answer_resends_once() {
        let mut t = Turn::new("u".into(), "[ts] hi".into(), TurnKind::Message);
        t.on_boundary(boundary());
        assert_eq!(t.outcome(&ok(Some(""))), Outcome::Resend("[ts] hi".into()));
        t.resent = true;
        assert_eq!(t.outcome(&ok(Some(""))), Outcome::Reply(EMPTY_REPLY.into()));
    }

    #[test]
    fn compaction_the_cli_continued_by_itself_is_not_answered_twice() {
        let mut t = Turn::new("u".into(), "hi".into(), TurnKind::Message);
        t.text.push_str("stale text before the boundary");
        t.on_boundary(boundary());
        t.text.push_str("the answer");
        t.on_assistant("the answer");
        assert_eq!(
            t.outcome(&ok(Some("the answer"))),
            Outcome::Reply("the answer".into())
        );
    }

    #[test]
    fn our_own_compact_is_never_resent_and_interrupts_are_silent() {
        let mut t = Turn::new("u".into(), "/compact".into(), TurnKind::Compact);
        t.on_boundary(boundary());
        assert_eq!(t.outcome(&ok(None)), Outcome::CommandDone);
        let mut aborted = ok(None);
        aborted.is_error = true;
        aborted.terminal_reason = Some("aborted_streaming".into());
        let t = Turn::new("u".into(), "hi".into(), TurnKind::Message);
        assert_eq!(t.outcome(&aborted), Outcome::Interrupted);
    }

    #[test]
    fn notice_reads_like_the_spec() {
        assert_eq!(
            compacted_notice(&boundary()),
            "auto-compacted · 150k tokens · 12s"
        );
    }
}
