//! One answer in progress on Discord (SPEC §12): its text, the message it is going into, the
//! status line and its timer, the tool labels waiting to be written into the reply, and the clock
//! that throttles edits (first flush ~0.2 s after the answer starts, then at most one edit per
//! 0.5 s per message).

use std::time::Duration;

use ollim_actors::agent::permissions::{denied_line, failed_label};
use serenity::all::MessageId;
use tokio::time::Instant;

use super::stream::Stream;

/// Delay before an answer's first text is shown, so it opens with more than a word.
pub const FIRST_FLUSH: Duration = Duration::from_millis(200);
/// The shortest gap between two edits of one message.
pub const EDIT_INTERVAL: Duration = Duration::from_millis(500);
/// How often the status line's timer moves.
pub const STATUS_TICK: Duration = Duration::from_secs(1);
/// The transient status line.
pub struct StatusLine {
    /// The message showing it, once posted.
    pub message: Option<MessageId>,
    /// What it says.
    pub label: String,
    /// When this label appeared (the timer counts from here).
    pub since: Instant,
    /// Its message's last edit.
    pub last_edit: Instant,
}

impl StatusLine {
    /// `-# *Thinking...*`, with `(Ns)` once a second has passed.
    pub fn text(&self, now: Instant) -> String {
        let label = if self.label.ends_with("...") {
            self.label.clone()
        } else {
            format!("{}...", self.label)
        };
        let secs = now.saturating_duration_since(self.since).as_secs();
        if secs == 0 {
            format!("-# *{label}*")
        } else {
            format!("-# *{label} ({secs}s)*")
        }
    }
}

/// A tool call of this answer, as it will be written into the reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Label {
    /// It ran: `-# *Write(x)*`.
    Ran(String),
    /// It was denied, and why: `-# ~~Bash(rm x)~~ — denied: not approved`.
    Denied {
        /// The call's label.
        label: String,
        /// Why it was denied.
        reason: String,
    },
    /// It ran and failed: `-# *~~Read(x)~~ — error*`.
    Failed(String),
}

/// One answer in progress.
#[derive(Default)]
pub struct Answer {
    /// Its text.
    pub stream: Stream,
    /// The message the text is going into.
    pub current: Option<MessageId>,
    /// When it began (its first event).
    pub started: Option<Instant>,
    /// The last create or edit of the current message.
    pub last_flush: Option<Instant>,
    /// The status line, while one shows.
    pub status: Option<StatusLine>,
    /// Tool labels shown in the status line, written into the reply when text resumes.
    pub labels: Vec<Label>,
}

impl Answer {
    /// When pending text should go out: ~0.2 s after the start, then 0.5 s after the last edit.
    pub fn flush_due(&self) -> Option<Instant> {
        if !self.stream.is_stale() {
            return None;
        }
        Some(match self.last_flush {
            Some(t) => t + EDIT_INTERVAL,
            None => self.started.unwrap_or_else(Instant::now) + FIRST_FLUSH,
        })
    }

    /// When the status line's timer next moves.
    pub fn tick_due(&self) -> Option<Instant> {
        let s = self.status.as_ref()?;
        s.message?;
        Some(s.last_edit + STATUS_TICK)
    }

    /// Writes the pending tool labels into the text, struck through when denied.
    pub fn take_labels(&mut self) {
        for label in std::mem::take(&mut self.labels) {
            let line = match label {
                Label::Ran(l) => format!("\n-# *{l}*\n"),
                Label::Denied { label, reason } => {
                    format!("\n-# {}\n", denied_line(&label, &reason))
                }
                Label::Failed(l) => format!("\n-# *{}*\n", failed_label(&l)),
            };
            self.stream.push(&line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_flush_waits_200ms_and_later_edits_500ms() {
        let t0 = Instant::now();
        let mut a = Answer {
            started: Some(t0),
            ..Answer::default()
        };
        assert_eq!(a.flush_due(), None, "nothing to show");
        a.stream.push("hi");
        assert_eq!(a.flush_due(), Some(t0 + FIRST_FLUSH));
        a.stream.flush();
        a.last_flush = Some(t0 + FIRST_FLUSH);
        a.stream.push(" there");
        assert_eq!(a.flush_due(), Some(t0 + FIRST_FLUSH + EDIT_INTERVAL));
    }

    #[test]
    fn the_status_line_counts_seconds_after_the_first() {
        let t0 = Instant::now();
        let line = StatusLine {
            message: None,
            label: "Thinking...".into(),
            since: t0,
            last_edit: t0,
        };
        assert_eq!(line.text(t0), "-# *Thinking...*");
        assert_eq!(
            line.text(t0 + Duration::from_secs(3)),
            "-# *Thinking... (3s)*"
        );
        let tool = StatusLine {
            label: "Write(reminders/foo.md)".into(),
            ..line
        };
        assert_eq!(
            tool.text(t0 + Duration::from_secs(2)),
            "-# *Write(reminders/foo.md)... (2s)*"
        );
    }

    #[test]
    fn denied_labels_are_written_struck_through() {
        let mut a = Answer {
            labels: vec![
                Label::Ran("Read(x.md)".into()),
                Label::Denied {
                    label: "Bash(rm x)".into(),
                    reason: "not approved".into(),
                },
            ],
            ..Answer::default()
        };
        a.take_labels();
        a.stream.push("done");
        let text: String = a.stream.flush().into_iter().map(|p| p.text).collect();
        assert_eq!(
            text,
            "\n-# *Read(x.md)*\n\n-# ~~Bash(rm x)~~ — denied: not approved\ndone"
        );
    }
}
