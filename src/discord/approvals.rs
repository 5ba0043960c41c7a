//! Approval prompts waiting for the owner's reaction (SPEC §11, `default` mode): the outbox
//! keeps one entry per prompt message it posted; a ✅ ❌ 🔓 reaction from the owner on that
//! message answers it, and a prompt nobody answers expires after 60 s as a denial. Owned by the
//! [`Outbox`](super::outbox::Outbox) actor, so answers, expiries and new prompts are handled one
//! at a time in its mailbox.

use std::collections::HashMap;

use ollim_actors::permissions::ApprovalAnswer;
use tokio::sync::oneshot;

/// One open question.
struct Open {
    label: String,
    reply: oneshot::Sender<ApprovalAnswer>,
}

/// Open approval prompts by Discord message id.
#[derive(Default)]
pub struct OpenApprovals {
    open: HashMap<u64, Open>,
}

impl OpenApprovals {
    /// Registers the prompt posted as `message_id`.
    pub fn open(&mut self, message_id: u64, label: String, reply: oneshot::Sender<ApprovalAnswer>) {
        self.open.insert(message_id, Open { label, reply });
    }

    /// Answers the prompt posted as `message_id`; returns its label when there was one (the
    /// caller edits the message to say what happened).
    pub fn answer(&mut self, message_id: u64, answer: ApprovalAnswer) -> Option<String> {
        let open = self.open.remove(&message_id)?;
        // The asking side may have given up already; the answer still closes the prompt.
        let _ = open.reply.send(answer);
        Some(open.label)
    }

    /// Closes an unanswered prompt as a denial; returns its label when it was still open.
    pub fn expire(&mut self, message_id: u64) -> Option<String> {
        self.answer(message_id, ApprovalAnswer::Deny)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_reaction_answers_only_its_own_prompt_once() {
        let mut approvals = OpenApprovals::default();
        let (tx, rx) = oneshot::channel();
        approvals.open(7, "Bash(ls)".into(), tx);
        assert_eq!(approvals.answer(8, ApprovalAnswer::Allow), None);
        assert_eq!(
            approvals
                .answer(7, ApprovalAnswer::AllowForSession)
                .as_deref(),
            Some("Bash(ls)")
        );
        assert_eq!(rx.await.ok(), Some(ApprovalAnswer::AllowForSession));
        assert_eq!(approvals.expire(7), None, "already answered");
    }

    #[tokio::test]
    async fn expiry_denies() {
        let mut approvals = OpenApprovals::default();
        let (tx, rx) = oneshot::channel();
        approvals.open(1, "Write(x)".into(), tx);
        assert!(approvals.expire(1).is_some());
        assert_eq!(rx.await.ok(), Some(ApprovalAnswer::Deny));
    }
}
