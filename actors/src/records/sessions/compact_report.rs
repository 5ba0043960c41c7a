//! The line `/compact` reports when it is done (SPEC §12): `12 turns · 3h 12m · 150k tokens
//! compacted`.
//!
//! Each part appears only when known: the turn count comes from the compaction turn's result
//! (`num_turns`), the duration is the age of the session lineage (the latest `created` event in
//! the history, see [`super::SessionHistory::lineage_start`]), and the token count is the compact
//! boundary's `pre_tokens`.

use std::fmt;

use chrono::{DateTime, TimeZone, Utc};

/// The numbers behind the report; `Display` gives the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactReport {
    /// Turns in the session, from the compaction turn's result.
    pub turns: Option<u32>,
    /// How long the session lineage has lasted.
    pub age: Option<chrono::Duration>,
    /// Context size before compaction, in tokens.
    pub pre_tokens: Option<u64>,
}

impl CompactReport {
    /// A report whose age runs from `lineage_start` to `now`.
    pub fn new<Z: TimeZone>(
        turns: Option<u32>,
        lineage_start: Option<DateTime<Z>>,
        now: DateTime<Utc>,
        pre_tokens: Option<u64>,
    ) -> Self {
        CompactReport {
            turns,
            age: lineage_start.map(|start| now.signed_duration_since(start)),
            pre_tokens,
        }
    }
}

impl fmt::Display for CompactReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::with_capacity(3);
        if let Some(turns) = self.turns {
            parts.push(format!("{turns} turn{}", if turns == 1 { "" } else { "s" }));
        }
        if let Some(age) = self.age {
            parts.push(format_age(age));
        }
        if let Some(tokens) = self.pre_tokens {
            parts.push(format!("{:.0}k tokens compacted", tokens as f64 / 1000.0));
        }
        f.write_str(&parts.join(" · "))
    }
}

impl CompactReport {
    /// `/compact`'s one answer: `compacted · 12 turns · 3h 12m · 150k tokens compacted · now
    /// 3k tokens` (each part only when known; `post_tokens` is the context left).
    pub fn answer(&self, post_tokens: Option<u64>) -> String {
        let mut parts = vec!["compacted".to_owned()];
        let report = self.to_string();
        if !report.is_empty() {
            parts.push(report);
        }
        if let Some(after) = post_tokens {
            parts.push(format!("now {:.0}k tokens", after as f64 / 1000.0));
        }
        parts.join(" · ")
    }
}

/// `3h 12m`, `3h`, `45m`, or `< 1m` (also for a negative age from a clock step).
pub fn format_age(age: chrono::Duration) -> String {
    let minutes = age.num_minutes();
    if minutes < 1 {
        return "< 1m".to_owned();
    }
    let (hours, mins) = (minutes / 60, minutes % 60);
    match (hours, mins) {
        (0, m) => format!("{m}m"),
        (h, 0) => format!("{h}h"),
        (h, m) => format!("{h}h {m}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    #[test]
    fn the_compact_answer_adds_the_context_left() {
        let report = CompactReport {
            turns: Some(12),
            age: None,
            pre_tokens: Some(150_000),
        };
        assert_eq!(
            report.answer(Some(2638)),
            "compacted · 12 turns · 150k tokens compacted · now 3k tokens"
        );
        let nothing = CompactReport {
            turns: None,
            age: None,
            pre_tokens: None,
        };
        assert_eq!(nothing.answer(None), "compacted");
    }

    #[test]
    fn full_report_matches_the_spec_example() {
        let now = Utc.with_ymd_and_hms(2026, 2, 24, 17, 12, 30).unwrap();
        let start = chrono::FixedOffset::west_opt(8 * 3600)
            .unwrap()
            .with_ymd_and_hms(2026, 2, 24, 6, 0, 0)
            .unwrap();
        let report = CompactReport::new(Some(12), Some(start), now, Some(150_200));
        assert_eq!(
            report.to_string(),
            "12 turns · 3h 12m · 150k tokens compacted"
        );
    }

    #[test]
    fn unknown_parts_are_left_out() {
        let only_tokens = CompactReport {
            turns: None,
            age: None,
            pre_tokens: Some(9_600),
        };
        assert_eq!(only_tokens.to_string(), "10k tokens compacted");
        let only_turns = CompactReport {
            turns: Some(0),
            age: None,
            pre_tokens: None,
        };
        assert_eq!(only_turns.to_string(), "0 turns");
        let one = CompactReport {
            turns: Some(1),
            ..only_turns
        };
        assert_eq!(one.to_string(), "1 turn");
    }

    #[test]
    fn ages_are_written_in_hours_and_minutes() {
        assert_eq!(format_age(Duration::seconds(59)), "< 1m");
        assert_eq!(format_age(Duration::seconds(-300)), "< 1m");
        assert_eq!(format_age(Duration::minutes(45)), "45m");
        assert_eq!(format_age(Duration::minutes(180)), "3h");
        assert_eq!(format_age(Duration::minutes(192)), "3h 12m");
        assert_eq!(format_age(Duration::hours(50)), "50h");
    }
}
