//! The status line of the delivery task (SPEC §12): `-# *Thinking... (3s)*` or a tool's label,
//! posted when a label first shows, edited when the label changes, and — for a subagent's
//! current tool — relabelled without restarting its timer.

use serenity::all::CreateMessage;
use tokio::time::Instant;

use super::super::answer::StatusLine;
use super::Delivery;

impl Delivery {
    pub(super) async fn status(&mut self, label: String) {
        let now = Instant::now();
        self.answer.started.get_or_insert(now);
        // Text shown so far goes out before the status line appears under it.
        self.flush_now().await;
        match &mut self.answer.status {
            Some(s) if s.label == label => {}
            Some(s) => {
                s.label = label;
                s.since = now;
                s.last_edit = now;
                if let Some(id) = s.message {
                    let text = s.text(now);
                    self.edit(id, text).await;
                }
            }
            None => {
                let mut line = StatusLine {
                    message: None,
                    label,
                    since: now,
                    last_edit: now,
                };
                line.message = self
                    .post(CreateMessage::new().content(line.text(now)))
                    .await;
                self.answer.status = Some(line);
            }
        }
    }

    /// Changes the status line's label without restarting its timer (a subagent's current
    /// tool: the time counts how long the subagent has been at work).
    pub(super) async fn relabel(&mut self, label: String) {
        let Some(s) = self.answer.status.as_mut().filter(|s| s.label != label) else {
            return self.status(label).await;
        };
        s.label = label;
        if let Some(id) = s.message {
            let now = Instant::now();
            s.last_edit = now;
            let text = s.text(now);
            self.edit(id, text).await;
        }
    }
}
