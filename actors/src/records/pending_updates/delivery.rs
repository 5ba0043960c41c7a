//! How pending updates reach a session (SPEC §5): each one labelled with its age ("just now",
//! "15m ago", "3h ago", "2d ago") and the list set before the user's message under a header that
//! says whether this reader consumes them (the main session) or only looks (an interactive fork).
//!
//! The layout is a contract with the model:
//! `[ts] RECENT BACKGROUND UPDATES (mention key findings in your response):\n- (15m ago) …\n\n<message>`.

use chrono::{DateTime, Duration, Utc};

use super::queue::PendingUpdate;

/// Who is receiving the updates, which decides the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The main session: it pops the updates and should mention key findings.
    MainSession,
    /// An interactive fork: it peeks; the main session will see the same updates later.
    Fork,
}

impl Reader {
    /// The header line's label (without the colon).
    pub fn label(self) -> &'static str {
        match self {
            Reader::MainSession => {
                "RECENT BACKGROUND UPDATES (mention key findings in your response)"
            }
            Reader::Fork => {
                "RECENT BACKGROUND UPDATES (read-only — main session will also see these)"
            }
        }
    }
}

/// An age in words: under a minute "just now" (also for a time in the future), then whole
/// minutes, hours or days: "Nm ago", "Nh ago", "Nd ago".
pub fn relative_time(age: Duration) -> String {
    let seconds = age.num_seconds();
    if seconds < 60 {
        "just now".to_owned()
    } else if seconds < 3_600 {
        format!("{}m ago", seconds / 60)
    } else if seconds < 86_400 {
        format!("{}h ago", seconds / 3_600)
    } else {
        format!("{}d ago", seconds / 86_400)
    }
}

/// The age label of `update` at `now`; a timestamp that does not parse is shown as written.
pub fn age_label(update: &PendingUpdate, now: DateTime<Utc>) -> String {
    match DateTime::parse_from_rfc3339(&update.ts) {
        Ok(ts) => relative_time(now - ts.with_timezone(&Utc)),
        Err(_) => update.ts.clone(),
    }
}

/// The text a session receives: `stamp` (the `[2026-02-24 Tue 02:30 PM PST]` header), then, if
/// there are updates, the header for `reader` and one `- (age) message` line each, a blank line
/// and `message`. Without updates it is `stamp message` (or `stamp` alone for an empty message).
pub fn prepend_updates(
    stamp: &str,
    updates: &[PendingUpdate],
    reader: Reader,
    now: DateTime<Utc>,
    message: &str,
) -> String {
    if updates.is_empty() {
        return if message.is_empty() {
            stamp.to_owned()
        } else {
            format!("{stamp} {message}")
        };
    }
    let lines: Vec<String> = updates
        .iter()
        .map(|u| format!("- ({}) {}", age_label(u, now), u.message))
        .collect();
    format!(
        "{stamp} {}:\n{}\n\n{message}",
        reader.label(),
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn relative_time_words_at_each_boundary() {
        let cases = [
            (0, "just now"),
            (59, "just now"),
            (-30, "just now"),
            (60, "1m ago"),
            (15 * 60 + 59, "15m ago"),
            (3_599, "59m ago"),
            (3_600, "1h ago"),
            (23 * 3_600 + 3_599, "23h ago"),
            (86_400, "1d ago"),
            (3 * 86_400 + 5, "3d ago"),
        ];
        for (seconds, words) in cases {
            assert_eq!(
                relative_time(Duration::seconds(seconds)),
                words,
                "{seconds}s"
            );
        }
    }

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 2, 24, 22, 45, 0).unwrap()
    }

    fn update(ts: &str, message: &str) -> PendingUpdate {
        PendingUpdate {
            ts: ts.into(),
            message: message.into(),
        }
    }

    #[test]
    fn main_session_block_lists_updates_with_ages_before_the_message() {
        let updates = [
            update(
                "2026-02-24T14:30:00.000000-08:00",
                "checked email: 2 replies",
            ),
            update(
                "2026-02-24T14:44:30-08:00",
                "User completed task \"pay rent\"",
            ),
        ];
        let text = prepend_updates(
            "[2026-02-24 Tue 02:45 PM PST]",
            &updates,
            Reader::MainSession,
            now(),
            "hi",
        );
        assert_eq!(
            text,
            "[2026-02-24 Tue 02:45 PM PST] RECENT BACKGROUND UPDATES (mention key findings in your \
             response):\n- (15m ago) checked email: 2 replies\n- (just now) User completed task \
             \"pay rent\"\n\nhi"
        );
    }

    #[test]
    fn fork_block_uses_the_read_only_header() {
        let updates = [update("2026-02-24T20:45:00Z", "done")];
        let text = prepend_updates("[s]", &updates, Reader::Fork, now(), "go");
        assert_eq!(
            text,
            "[s] RECENT BACKGROUND UPDATES (read-only — main session will also see these):\n\
             - (2h ago) done\n\ngo"
        );
    }

    #[test]
    fn without_updates_only_the_stamp_is_added() {
        assert_eq!(
            prepend_updates("[s]", &[], Reader::MainSession, now(), "hi"),
            "[s] hi"
        );
        assert_eq!(prepend_updates("[s]", &[], Reader::Fork, now(), ""), "[s]");
    }

    #[test]
    fn unreadable_timestamp_is_shown_as_written() {
        assert_eq!(age_label(&update("yesterday", "x"), now()), "yesterday");
    }
}
