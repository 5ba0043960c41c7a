//! What background jobs sent the user in the last day, so the same job never says the same thing
//! twice within 24 hours *(ours, SPEC §16)*. Plain data and pure functions: the PingBudget actor
//! owns the one live [`SentLog`] and writes it to `state/sent_pings.json`.
//!
//! The file is a JSON object from a job id to the pings that job sent, oldest first:
//! `{"a1b2c3d4": [{"ts": "2026-03-02T09:00:00-05:00", "text": "[bg] drink some water"}]}`.
//! `text` is stored folded ([`fold`]: whitespace runs made one space, lowercase), which is what
//! two pings are compared by. Entries older than [`WINDOW`] are dropped whenever the log is
//! written, and each job keeps at most [`MAX_PER_JOB`] entries.

use std::collections::BTreeMap;

use chrono::{DateTime, FixedOffset, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

/// How long a sent text blocks the same text from the same job.
pub const WINDOW: chrono::Duration = chrono::Duration::hours(24);
/// Most entries kept per job (the oldest go first).
pub const MAX_PER_JOB: usize = 50;
/// Name of the file inside `state/`.
pub const FILE_NAME: &str = "sent_pings.json";

/// One ping or embed a job sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    /// When it went out, in the configured zone.
    pub ts: DateTime<FixedOffset>,
    /// Its text, folded.
    pub text: String,
}

/// Every job's recent pings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SentLog(BTreeMap<String, Vec<Sent>>);

/// `text` as pings are compared: runs of whitespace become one space, ends trimmed, lowercase.
pub fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

impl SentLog {
    /// Reads the file's bytes.
    pub fn parse(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// When `job` last sent `text` (compared folded) within [`WINDOW`] before `now`.
    pub fn sent_within(
        &self,
        job: &str,
        text: &str,
        now: DateTime<Utc>,
    ) -> Option<DateTime<FixedOffset>> {
        let folded = fold(text);
        self.0
            .get(job)?
            .iter()
            .rev()
            .find(|s| s.text == folded && is_recent(s, now))
            .map(|s| s.ts)
    }

    /// Adds `text` as sent by `job` at `now`, dropping what has aged out.
    pub fn record(&mut self, job: &str, text: &str, now: DateTime<Utc>, zone: Tz) {
        self.prune(now);
        let entries = self.0.entry(job.to_owned()).or_default();
        entries.push(Sent {
            ts: now.with_timezone(&zone).fixed_offset(),
            text: fold(text),
        });
        let extra = entries.len().saturating_sub(MAX_PER_JOB);
        entries.drain(..extra);
    }

    /// Drops entries older than [`WINDOW`] and jobs left with none.
    pub fn prune(&mut self, now: DateTime<Utc>) {
        for entries in self.0.values_mut() {
            entries.retain(|s| is_recent(s, now));
        }
        self.0.retain(|_, entries| !entries.is_empty());
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many jobs have entries (some may have aged out since the last write).
    pub fn jobs(&self) -> usize {
        self.0.len()
    }
}

fn is_recent(sent: &Sent, now: DateTime<Utc>) -> bool {
    let at = sent.ts.with_timezone(&Utc);
    at > now - WINDOW && at <= now + chrono::Duration::minutes(1)
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone};

    use super::*;

    const TZ: Tz = chrono_tz::America::New_York;

    fn nine() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 2, 14, 0, 0).unwrap()
    }

    #[test]
    fn folding_ignores_case_and_whitespace() {
        assert_eq!(
            fold("  [bg] Drink\n  some\tWATER  "),
            "[bg] drink some water"
        );
    }

    #[test]
    fn the_same_text_from_the_same_job_is_found_for_a_day() {
        let mut log = SentLog::default();
        log.record("a1", "[bg] Drink some water", nine(), TZ);
        let found = log.sent_within("a1", "[bg]  drink SOME water", nine() + Duration::hours(3));
        assert_eq!(
            found.map(|t| t.to_rfc3339()),
            Some("2026-03-02T09:00:00-05:00".to_owned())
        );
        assert_eq!(log.sent_within("b2", "[bg] drink some water", nine()), None);
        assert_eq!(log.sent_within("a1", "[bg] drink more water", nine()), None);
        let later = nine() + WINDOW - Duration::seconds(1);
        assert!(log
            .sent_within("a1", "[bg] drink some water", later)
            .is_some());
        assert_eq!(
            log.sent_within("a1", "[bg] drink some water", nine() + WINDOW),
            None
        );
    }

    #[test]
    fn old_entries_go_when_written_and_each_job_keeps_a_bounded_list() {
        let mut log = SentLog::default();
        log.record("a1", "old", nine(), TZ);
        log.record("b2", "x", nine() + Duration::hours(25), TZ);
        assert_eq!(log.0.keys().collect::<Vec<_>>(), ["b2"]);
        for i in 0..(MAX_PER_JOB + 5) {
            log.record("b2", &format!("n{i}"), nine() + Duration::hours(25), TZ);
        }
        assert_eq!(log.0["b2"].len(), MAX_PER_JOB);
        assert_eq!(log.0["b2"][0].text, "n5");
    }

    #[test]
    fn the_file_round_trips_and_a_time_in_the_future_counts_for_nothing() {
        let mut log = SentLog::default();
        log.record("a1", "Hello", nine(), TZ);
        let json = serde_json::to_string(&log).unwrap();
        assert_eq!(
            json,
            r#"{"a1":[{"ts":"2026-03-02T09:00:00-05:00","text":"hello"}]}"#
        );
        assert_eq!(SentLog::parse(json.as_bytes()).unwrap(), log);
        // A clock set back (or a hand-edited stamp) must not block the text for longer.
        assert_eq!(
            log.sent_within("a1", "hello", nine() - Duration::hours(2)),
            None
        );
    }
}
