//! What the ping budget tells people and prompts (SPEC §7): the snapshot handed to the preamble
//! builder, the one-line status, the `/ping-budget` full status, and the answers to a ping
//! request and to a configuration change. The quoted sentences are contracts, tested word for word.

use std::fmt;

use chrono::{DateTime, FixedOffset, Utc};

use super::bucket::{self, Bucket};

/// The budget as seen at one instant, for prompts and commands.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetSnapshot {
    /// The instant the snapshot describes.
    pub at: DateTime<Utc>,
    /// Tokens held, fractions included.
    pub available: f64,
    /// Whole tokens held: pings that can be paid for now.
    pub whole_tokens: u32,
    /// Most tokens the bucket can hold.
    pub capacity: u32,
    /// Minutes to regain one token.
    pub refill_rate_minutes: u32,
    /// Minutes until the next whole token; `None` when full.
    pub next_refill_in_minutes: Option<u32>,
    /// Budgeted pings sent today (local date).
    pub daily_used: u32,
    /// Critical pings sent today (local date); they cost no token.
    pub critical_used: u32,
}

impl BudgetSnapshot {
    /// The snapshot of a bucket already settled to `at`.
    pub fn of(bucket: &Bucket, at: DateTime<Utc>) -> Self {
        BudgetSnapshot {
            at,
            available: bucket.available,
            whole_tokens: bucket.whole_tokens(),
            capacity: bucket.capacity,
            refill_rate_minutes: bucket.refill_rate_minutes,
            next_refill_in_minutes: bucket.minutes_to_next_refill(),
            daily_used: bucket.daily_used,
            critical_used: bucket.critical_used,
        }
    }

    /// Whole refill periods between this snapshot and `until` ("~2 refills before last task.").
    pub fn refills_before(&self, until: DateTime<Utc>) -> u32 {
        bucket::refills_between(self.refill_rate_minutes, self.at, until)
    }

    /// `budget: 3/5 (next refill in 42 min)`, or `budget: 5/5` when full.
    pub fn status_line(&self) -> String {
        status_line(
            self.whole_tokens,
            self.capacity,
            self.next_refill_in_minutes,
        )
    }

    /// The status line plus today's non-zero counters, as `/ping-budget` shows it:
    /// `budget: 3/5 (next refill in 42 min). used today: 2. critical bypasses: 1 (urgent
    /// overrides, not deducted from budget).` Without counters it is the bare status line.
    pub fn full_status(&self) -> String {
        let mut parts = vec![self.status_line()];
        if self.daily_used > 0 {
            parts.push(format!("used today: {}", self.daily_used));
        }
        if self.critical_used > 0 {
            parts.push(format!(
                "critical bypasses: {} (urgent overrides, not deducted from budget)",
                self.critical_used
            ));
        }
        if parts.len() == 1 {
            return parts.remove(0);
        }
        format!("{}.", parts.join(". "))
    }
}

/// The status line for `available` of `capacity` whole tokens: `budget: 3/5 (next refill in 42
/// min)`, or `budget: 5/5` when full (`next_refill_in_minutes` is `None`). The preamble shows the
/// same line, so this is the one place it is written.
pub fn status_line(available: u32, capacity: u32, next_refill_in_minutes: Option<u32>) -> String {
    match next_refill_in_minutes {
        Some(minutes) => format!("budget: {available}/{capacity} (next refill in {minutes} min)"),
        None => format!("budget: {available}/{capacity}"),
    }
}

/// The answer to a request to spend a token on a ping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PingDecision {
    /// A token was spent; the ping may go out.
    Allowed {
        /// Whole tokens left afterwards.
        remaining: u32,
    },
    /// Nothing was spent; the ping must not go out.
    Refused {
        /// Why.
        reason: Refusal,
    },
}

impl PingDecision {
    /// Whether the ping may go out.
    pub fn is_allowed(&self) -> bool {
        matches!(self, PingDecision::Allowed { .. })
    }
}

/// Why the budget refused a ping. The words the model reads are the tools' (`tools::Refusal`
/// converts from this), so the sentence is written once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Less than one whole token is left.
    BudgetExhausted,
    /// *(ours)* The same job sent the same text (folded) within the last 24 hours.
    AlreadySent {
        /// When, in the configured zone.
        at: DateTime<FixedOffset>,
        /// It was on an earlier local day than now.
        yesterday: bool,
    },
}

/// The answer to a configuration change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigureOutcome {
    /// The change was made; carries the status line afterwards.
    Updated {
        /// The status line after the change.
        status: String,
    },
    /// Nothing was changed.
    Refused {
        /// Why.
        reason: ConfigureRefusal,
    },
    /// *(ours, issue 28)* The change could not be written, so it was not made.
    NotSaved(crate::base::state_file::NotSaved),
}

/// Why a configuration change was not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigureRefusal {
    /// A refill rate of zero minutes would hand out unlimited tokens.
    ZeroRefillRate,
    /// A refill rate slower than [`bucket::MAX_REFILL_MINUTES`].
    RefillRateTooSlow,
    /// A capacity above [`bucket::MAX_CAPACITY`].
    CapacityTooLarge,
}

impl fmt::Display for ConfigureOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigureOutcome::Updated { status } => write!(f, "ping budget updated: {status}."),
            ConfigureOutcome::Refused {
                reason: ConfigureRefusal::ZeroRefillRate,
            } => f.write_str("refill rate must be at least 1 minute."),
            ConfigureOutcome::Refused {
                reason: ConfigureRefusal::RefillRateTooSlow,
            } => write!(
                f,
                "refill rate must be at most {} minutes (one token a week).",
                bucket::MAX_REFILL_MINUTES
            ),
            ConfigureOutcome::Refused {
                reason: ConfigureRefusal::CapacityTooLarge,
            } => write!(f, "capacity must be at most {}.", bucket::MAX_CAPACITY),
            ConfigureOutcome::NotSaved(not_saved) => {
                write!(f, "ping budget not updated: {not_saved}.")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn snapshot(whole_tokens: u32, next: Option<u32>, daily: u32, critical: u32) -> BudgetSnapshot {
        BudgetSnapshot {
            at: Utc.with_ymd_and_hms(2026, 2, 24, 9, 0, 0).unwrap(),
            available: f64::from(whole_tokens),
            whole_tokens,
            capacity: 5,
            refill_rate_minutes: 90,
            next_refill_in_minutes: next,
            daily_used: daily,
            critical_used: critical,
        }
    }

    #[test]
    fn status_line_names_the_next_refill_only_below_capacity() {
        assert_eq!(
            snapshot(3, Some(42), 0, 0).status_line(),
            "budget: 3/5 (next refill in 42 min)"
        );
        assert_eq!(snapshot(5, None, 0, 0).status_line(), "budget: 5/5");
    }

    #[test]
    fn full_status_matches_the_documented_example() {
        assert_eq!(
            snapshot(3, Some(42), 2, 1).full_status(),
            "budget: 3/5 (next refill in 42 min). used today: 2. critical bypasses: 1 \
             (urgent overrides, not deducted from budget)."
        );
    }

    #[test]
    fn full_status_leaves_out_zero_counters() {
        assert_eq!(snapshot(5, None, 0, 0).full_status(), "budget: 5/5");
        assert_eq!(
            snapshot(4, Some(90), 1, 0).full_status(),
            "budget: 4/5 (next refill in 90 min). used today: 1."
        );
        assert_eq!(
            snapshot(5, None, 0, 2).full_status(),
            "budget: 5/5. critical bypasses: 2 (urgent overrides, not deducted from budget)."
        );
    }

    #[test]
    fn exhausted_refusal_is_not_allowed() {
        let decision = PingDecision::Refused {
            reason: Refusal::BudgetExhausted,
        };
        assert!(!decision.is_allowed());
    }

    #[test]
    fn configure_outcome_wording() {
        let updated = ConfigureOutcome::Updated {
            status: "budget: 8/8".into(),
        };
        assert_eq!(updated.to_string(), "ping budget updated: budget: 8/8.");
        let refused = ConfigureOutcome::Refused {
            reason: ConfigureRefusal::ZeroRefillRate,
        };
        assert_eq!(
            refused.to_string(),
            "refill rate must be at least 1 minute."
        );
        let refused = |reason| ConfigureOutcome::Refused { reason }.to_string();
        assert_eq!(
            refused(ConfigureRefusal::RefillRateTooSlow),
            "refill rate must be at most 10080 minutes (one token a week)."
        );
        assert_eq!(
            refused(ConfigureRefusal::CapacityTooLarge),
            "capacity must be at most 100."
        );
        let not_saved = ConfigureOutcome::NotSaved(crate::base::state_file::NotSaved {
            file: "/d/state/ping_budget.json".into(),
            cause: "No space left on device (os error 28)".into(),
        });
        assert_eq!(
            not_saved.to_string(),
            "ping budget not updated: couldn't save /d/state/ping_budget.json: No space left on \
             device (os error 28) — nothing changed."
        );
    }

    #[test]
    fn refills_before_counts_from_the_snapshot_instant() {
        let s = snapshot(2, Some(10), 0, 0);
        assert_eq!(s.refills_before(s.at + chrono::Duration::minutes(185)), 2);
        assert_eq!(s.refills_before(s.at - chrono::Duration::minutes(185)), 0);
    }
}
