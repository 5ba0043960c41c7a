//! Approval prompts in the DM: the prompt posted (after the answer so far), the Outbox told
//! which message answers which request, the three reactions added, the prompt marked cancelled
//! as soon as the turn that asked has ended without an answer, and expired when nobody
//! answered within [`APPROVAL_TIMEOUT`].

use std::time::Duration;

use ollim_actors::agent::permissions::{
    cancelled_text, expired_text, prompt_text, ApprovalAnswer, ApprovalRequest, APPROVAL_EMOJI,
    APPROVAL_TIMEOUT,
};
use serenity::all::{CreateMessage, EditMessage, ReactionType};
use tokio::sync::oneshot;

use super::super::outbox::{ApprovalPosted, ExpireApproval, WithdrawApproval};
use super::Delivery;

impl Delivery {
    pub(super) async fn ask(
        &mut self,
        req: ApprovalRequest,
        reply: oneshot::Sender<ApprovalAnswer>,
    ) {
        self.flush_now().await;
        let Some(id) = self
            .post(CreateMessage::new().content(prompt_text(&req)))
            .await
        else {
            let _ = reply.send(ApprovalAnswer::Deny);
            return;
        };
        let Some(outbox) = self.outbox.upgrade() else {
            let _ = reply.send(ApprovalAnswer::Deny);
            return;
        };
        let asker = req.asker.clone();
        outbox.do_send(ApprovalPosted {
            message_id: id.get(),
            label: req.label.clone(),
            reply,
            asker: asker.clone(),
        });
        for emoji in APPROVAL_EMOJI {
            let r = ReactionType::Unicode(emoji.to_owned());
            if let Err(e) = self.http.create_reaction(self.channel, id, &r).await {
                tracing::warn!(cause = %e, "could not add an approval reaction");
            }
        }
        let (http, channel) = (self.http.clone(), self.channel);
        tokio::spawn(async move {
            // Until its time is up, a prompt whose turn ended (interrupted, its CLI gone) is
            // marked cancelled at once, so it does not look answerable. Near the end the
            // asker's own timeout lets go too: that is an expiry.
            let deadline = tokio::time::Instant::now() + APPROVAL_TIMEOUT;
            let watch_until = deadline - Duration::from_secs(2);
            while tokio::time::Instant::now() < watch_until {
                tokio::time::sleep(Duration::from_millis(500)).await;
                if !asker.gone() {
                    continue;
                }
                let withdrawn = outbox.send(WithdrawApproval {
                    message_id: id.get(),
                });
                if let Ok(Some(label)) = withdrawn.await {
                    let edit = EditMessage::new().content(cancelled_text(&label));
                    if let Err(e) = channel.edit_message(&*http, id, edit).await {
                        tracing::debug!(cause = %e, "could not mark the approval cancelled");
                    }
                }
                return;
            }
            tokio::time::sleep_until(deadline).await;
            let expired = outbox.send(ExpireApproval {
                message_id: id.get(),
            });
            match expired.await {
                Ok(Some(label)) => {
                    let edit = EditMessage::new().content(expired_text(&label));
                    if let Err(e) = channel.edit_message(&*http, id, edit).await {
                        tracing::debug!(cause = %e, "could not mark the approval expired");
                    }
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(cause = %e, "the outbox has stopped"),
            }
        });
    }
}
