//! Approval prompts waiting for the owner's reaction (SPEC §11, `default` mode): the outbox
//! keeps one entry per prompt message it posted; a ✅ ❌ 🔓 reaction from the owner on that
//! message answers it, and a prompt nobody answers expires after 60 s as a denial. Owned by the
//! [`Outbox`](super::outbox::Outbox) actor, so answers, expiries and new prompts are handled one
//! at a time in its mailbox.

use std::collections::HashMap;

use ollim_actors::agent::permissions::{ApprovalAnswer, Asker};
use tokio::sync::oneshot;

/// One open question.
struct Open {
    label: String,
    reply: oneshot::Sender<ApprovalAnswer>,
    /// Whether the turn that asked still waits.
    asker: Asker,
}

/// How a reaction closed a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Closed {
    /// The answer reached the waiting turn; the prompt's label.
    Answered(String),
    /// The turn had ended without waiting for it: nothing ran; the prompt's label.
    TurnGone(String),
}

/// Open approval prompts by Discord message id.
#[derive(Default)]
pub struct OpenApprovals {
    open: HashMap<u64, Open>,
}

impl OpenApprovals {
    /// Registers the prompt posted as `message_id`.
    pub fn open(
        &mut self,
        message_id: u64,
        label: String,
        reply: oneshot::Sender<ApprovalAnswer>,
        asker: Asker,
    ) {
        self.open.insert(
            message_id,
            Open {
                label,
                reply,
                asker,
            },
        );
    }

    /// Answers the prompt posted as `message_id`; `None` when it is not an open prompt (the
    /// caller edits the message to say what happened).
    pub fn answer(&mut self, message_id: u64, answer: ApprovalAnswer) -> Option<Closed> {
        let open = self.open.remove(&message_id)?;
        if open.asker.gone() {
            return Some(Closed::TurnGone(open.label));
        }
        let _ = open.reply.send(answer);
        Some(Closed::Answered(open.label))
    }

    /// Closes an unanswered prompt as a denial; returns its label when it was still open.
    pub fn expire(&mut self, message_id: u64) -> Option<String> {
        let open = self.open.remove(&message_id)?;
        let _ = open.reply.send(ApprovalAnswer::Deny);
        Some(open.label)
    }

    /// Closes the prompt when the turn that asked has stopped waiting; returns its label then.
    pub fn withdraw_if_gone(&mut self, message_id: u64) -> Option<String> {
        if !self.open.get(&message_id)?.asker.gone() {
            return None;
        }
        self.open.remove(&message_id).map(|open| open.label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_reaction_answers_only_its_own_prompt_once() {
        let mut approvals = OpenApprovals::default();
        let (tx, rx) = oneshot::channel();
        approvals.open(7, "Bash(ls)".into(), tx, Asker::default());
        assert_eq!(approvals.answer(8, ApprovalAnswer::Allow), None);
        assert_eq!(
            approvals.answer(7, ApprovalAnswer::AllowForSession),
            Some(Closed::Answered("Bash(ls)".into()))
        );
        assert_eq!(rx.await.ok(), Some(ApprovalAnswer::AllowForSession));
        assert_eq!(approvals.expire(7), None, "already answered");
    }

    #[tokio::test]
    async fn a_reaction_after_the_turn_ended_runs_nothing() {
        let mut approvals = OpenApprovals::default();
        let (tx, rx) = oneshot::channel();
        let (asker, waiting) = Asker::held();
        approvals.open(3, "Bash(rm x)".into(), tx, asker);
        assert_eq!(approvals.withdraw_if_gone(3), None, "still waited for");
        drop(waiting);
        assert_eq!(
            approvals.answer(3, ApprovalAnswer::Allow),
            Some(Closed::TurnGone("Bash(rm x)".into()))
        );
        assert!(rx.await.is_err(), "nothing was allowed");
    }

    #[tokio::test]
    async fn expiry_denies() {
        let mut approvals = OpenApprovals::default();
        let (tx, rx) = oneshot::channel();
        approvals.open(1, "Write(x)".into(), tx, Asker::default());
        assert!(approvals.expire(1).is_some());
        assert_eq!(rx.await.ok(), Some(ApprovalAnswer::Deny));
    }
}
