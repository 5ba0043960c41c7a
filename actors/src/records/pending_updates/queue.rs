//! The pending-updates list and its cap rule (SPEC §8), as plain data and pure functions.
//!
//! At most [`CAP`] entries are kept. When an append goes over, the newest `CAP - 1` real updates
//! stay and the first entry becomes a marker, `(N earlier update(s) omitted — cap reached)`.
//! *(ours)* N counts every update dropped since the last pop: when a marker is already first, its
//! N is carried over and increased. Nothing else is stored, so the count survives a restart in
//! the file itself, and a file the original wrote reads the same way.

use serde::{Deserialize, Serialize};

/// Most entries the list holds, marker included.
pub const CAP: usize = 10;

/// Most characters one update keeps.
pub const MAX_MESSAGE_CHARS: usize = 4_000;

/// Text after the number in a marker entry.
const MARKER_TAIL: &str = " earlier update(s) omitted — cap reached)";

/// One update from a fork (or a button) for the main session, as stored in
/// `state/pending_updates.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingUpdate {
    /// When it was recorded: ISO 8601 with the configured zone's offset. Kept as written, so a
    /// timestamp from the original survives untouched.
    pub ts: String,
    /// What happened, in the fork's words.
    pub message: String,
}

impl PendingUpdate {
    /// The marker entry saying `dropped` updates were left out.
    pub fn marker(ts: String, dropped: u64) -> Self {
        PendingUpdate {
            ts,
            message: format!("({dropped}{MARKER_TAIL}"),
        }
    }

    /// How many updates this entry says were left out, if it is a marker.
    pub fn omitted_count(&self) -> Option<u64> {
        self.message
            .strip_prefix('(')?
            .strip_suffix(MARKER_TAIL)?
            .parse()
            .ok()
    }
}

/// `message` cut to [`MAX_MESSAGE_CHARS`] characters with a marker saying how many more there
/// were, and that count (zero when it already fitted).
pub fn bound_message(message: String) -> (String, usize) {
    let Some((cut_at, _)) = message.char_indices().nth(MAX_MESSAGE_CHARS) else {
        return (message, 0);
    };
    let more = message[cut_at..].chars().count();
    let mut kept = message;
    kept.truncate(cut_at);
    kept.push_str(&format!("… [cut: {more} more characters]"));
    (kept, more)
}

/// What [`bound`] had to change in a list read from disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bounded {
    /// Updates the cap rule dropped (counted in the marker).
    pub dropped: u64,
    /// Updates whose text was cut.
    pub cut: usize,
}

impl Bounded {
    /// Whether the list was already within bounds.
    pub fn nothing(&self) -> bool {
        *self == Bounded::default()
    }
}

/// Brings a list read from disk within the cap (as an append would, `now_ts` stamping a new
/// marker) and cuts overlong texts.
pub fn bound(queue: &mut Vec<PendingUpdate>, now_ts: &str) -> Bounded {
    let dropped = enforce_cap(queue, now_ts);
    let mut cut = 0;
    for update in queue.iter_mut() {
        let (message, more) = bound_message(std::mem::take(&mut update.message));
        update.message = message;
        cut += usize::from(more > 0);
    }
    Bounded { dropped, cut }
}

/// Appends `update` to `queue` and applies the cap rule; `now_ts` stamps a new marker.
/// Returns how many updates this append pushed out (zero when under the cap).
pub fn append_capped(queue: &mut Vec<PendingUpdate>, update: PendingUpdate, now_ts: &str) -> u64 {
    queue.push(update);
    enforce_cap(queue, now_ts)
}

/// Applies the cap rule to `queue`; returns how many updates it dropped.
fn enforce_cap(queue: &mut Vec<PendingUpdate>, now_ts: &str) -> u64 {
    if queue.len() <= CAP {
        return 0;
    }
    let earlier = queue.first().and_then(PendingUpdate::omitted_count);
    if earlier.is_some() {
        queue.remove(0);
    }
    let keep = CAP - 1;
    let dropped_now = queue.len().saturating_sub(keep);
    queue.drain(..dropped_now);
    let total = earlier.unwrap_or(0) + dropped_now as u64;
    queue.insert(0, PendingUpdate::marker(now_ts.to_owned(), total));
    dropped_now as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(n: usize) -> PendingUpdate {
        PendingUpdate {
            ts: format!("t{n}"),
            message: format!("update {n}"),
        }
    }

    fn fill(queue: &mut Vec<PendingUpdate>, range: std::ops::Range<usize>) {
        for n in range {
            append_capped(queue, update(n), "now");
        }
    }

    fn messages(queue: &[PendingUpdate]) -> Vec<&str> {
        queue.iter().map(|u| u.message.as_str()).collect()
    }

    #[test]
    fn up_to_the_cap_everything_is_kept_in_order() {
        let mut q = Vec::new();
        fill(&mut q, 0..CAP);
        let expected: Vec<String> = (0..CAP).map(|n| format!("update {n}")).collect();
        assert_eq!(messages(&q), expected);
    }

    #[test]
    fn first_overflow_keeps_newest_nine_behind_a_marker() {
        let mut q = Vec::new();
        fill(&mut q, 0..CAP + 1);
        assert_eq!(q.len(), CAP);
        assert_eq!(q[0].message, "(2 earlier update(s) omitted — cap reached)");
        assert_eq!(q[0].ts, "now");
        assert_eq!(q[1].message, "update 2");
        assert_eq!(q[9].message, "update 10");
    }

    #[test]
    fn marker_count_accumulates_over_later_overflows() {
        let mut q = Vec::new();
        fill(&mut q, 0..CAP + 1);
        fill(&mut q, CAP + 1..CAP + 4);
        assert_eq!(q.len(), CAP);
        assert_eq!(q[0].omitted_count(), Some(5));
        assert_eq!(q[1].message, "update 5");
        assert_eq!(q[9].message, "update 13");
    }

    #[test]
    fn marker_written_by_the_original_is_recognised() {
        let original = PendingUpdate {
            ts: "2026-02-24T14:30:00.123456-08:00".into(),
            message: "(3 earlier update(s) omitted — cap reached)".into(),
        };
        assert_eq!(original.omitted_count(), Some(3));
        assert_eq!(update(1).omitted_count(), None);
        let lookalike = PendingUpdate {
            ts: String::new(),
            message: "(many earlier update(s) omitted — cap reached)".into(),
        };
        assert_eq!(lookalike.omitted_count(), None);
    }

    #[test]
    fn a_long_message_keeps_its_beginning_and_says_how_much_was_cut() {
        let (short, none) = bound_message("fits".into());
        assert_eq!((short.as_str(), none), ("fits", 0));
        let exact = "é".repeat(MAX_MESSAGE_CHARS);
        assert_eq!(bound_message(exact.clone()), (exact, 0));
        let (cut, more) = bound_message(format!("{}{}", "é".repeat(MAX_MESSAGE_CHARS), "xyz"));
        assert_eq!(more, 3);
        assert!(cut.starts_with(&"é".repeat(MAX_MESSAGE_CHARS)));
        assert!(cut.ends_with("… [cut: 3 more characters]"), "{cut}");
    }

    #[test]
    fn a_loaded_list_is_capped_and_its_long_texts_cut() {
        let mut q: Vec<_> = (0..100).map(update).collect();
        q[99].message = "y".repeat(MAX_MESSAGE_CHARS + 10);
        let bounded = bound(&mut q, "now");
        assert_eq!(
            bounded,
            Bounded {
                dropped: 91,
                cut: 1
            }
        );
        assert_eq!(q.len(), CAP);
        assert_eq!(q[0].omitted_count(), Some(91));
        assert_eq!(q[1].message, "update 91");
        assert!(q[9].message.ends_with("… [cut: 10 more characters]"));
        let mut fine: Vec<_> = (0..3).map(update).collect();
        assert!(bound(&mut fine, "now").nothing());
    }

    #[test]
    fn an_overlong_list_is_brought_back_under_the_cap() {
        let mut q: Vec<_> = (0..15).map(update).collect();
        let dropped = append_capped(&mut q, update(15), "now");
        assert_eq!(dropped, 7);
        assert_eq!(q.len(), CAP);
        assert_eq!(q[0].omitted_count(), Some(7));
        assert_eq!(q[1].message, "update 7");
    }
}
