//! Nothing dropped at shutdown (issue 28), for both surfaces: the lines sent to the
//! conversation are remembered with the number of answers shown when each went; at end of
//! input, SIGTERM or `/restart` the surface waits (at most [`BOUND`]) until the conversation has
//! nothing in flight or queued, then names every line no answer came after as not answered.
//!
//! An answer shown after a line was sent counts for it: lines sent while an answer streams are
//! merged into the next turn by the CLI, so the last answer covers them all.

use std::time::Duration;

use actix::Addr;
use ollim_actors::conversation::main_session::{IsBusy, MainSession};

/// The longest the shutdown waits for the lines already sent to be answered.
pub const BOUND: Duration = Duration::from_secs(60);

/// How often the drain asks whether the conversation is still busy.
const POLL: Duration = Duration::from_millis(100);

/// The longest a line is shown in the shutdown message.
const SHOWN_CHARS: usize = 40;

/// The lines sent to the conversation, each with the answers shown before it went.
#[derive(Debug, Default)]
pub struct Sent(Vec<(u64, String)>);

impl Sent {
    /// Remembers `line`, sent when `replies` answers had been shown.
    pub fn note(&mut self, line: &str, replies: u64) {
        self.0.push((replies, line.to_owned()));
    }

    /// The lines no answer was shown after, once `replies` answers have been shown.
    pub fn unanswered(&self, replies: u64) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(before, _)| *before >= replies)
            .map(|(_, line)| line.as_str())
            .collect()
    }
}

/// Waits until the conversation has nothing in flight or queued, or `bound` passes (zero: it
/// does not wait).
pub async fn wait_idle(main: &Addr<MainSession>, bound: Duration) {
    let deadline = tokio::time::Instant::now() + bound;
    loop {
        match main.send(IsBusy).await {
            Ok(true) if tokio::time::Instant::now() < deadline => tokio::time::sleep(POLL).await,
            Ok(true) => {
                tracing::warn!(?bound, "the conversation is still busy at shutdown");
                return;
            }
            Ok(false) => return,
            Err(e) => {
                tracing::error!(cause = %e, "the conversation has stopped");
                return;
            }
        }
    }
}

/// `; not answered: "…", "…"` naming each line (shortened), or nothing when there are none.
pub fn not_answered(unanswered: &[String]) -> String {
    if unanswered.is_empty() {
        return String::new();
    }
    let named: Vec<String> = unanswered
        .iter()
        .map(|l| format!("\"{}\"", ollim_actors::base::ellipsis::cut(l, SHOWN_CHARS)))
        .collect();
    format!("; not answered: {}", named.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_answered_by_any_answer_shown_after_it() {
        let mut sent = Sent::default();
        sent.note("first", 0);
        sent.note("second", 0);
        sent.note("third", 1);
        assert_eq!(sent.unanswered(1), vec!["third"]);
        assert!(sent.unanswered(2).is_empty());
        assert_eq!(sent.unanswered(0), vec!["first", "second", "third"]);
    }

    #[test]
    fn each_unanswered_line_is_named_shortened() {
        assert_eq!(not_answered(&[]), "");
        let long = "x".repeat(50);
        let text = not_answered(&["hello".to_owned(), long]);
        assert_eq!(
            text,
            format!("; not answered: \"hello\", \"{}…\"", "x".repeat(40))
        );
    }
}
