//! *(ours, SPEC §19)* A job's own bounds on one run: `max-cost` (US dollars, such as `0.50`) and
//! `max-turns` (model turns). Absent, the run takes `job_max_cost` and `job_max_turns` from
//! `/config` when it starts. Read here, not in the frontmatter module, so each kind of job
//! file only hands its two raw values over.

use super::frontmatter::Writer;
use super::yaml_scalars::{Count, Text};

/// The largest `max-cost` accepted, in cents ($10,000, as `job_max_cost`).
const MAX_COST_CENTS: u64 = 1_000_000;
/// The largest `max-turns` accepted (as `job_max_turns`).
const MAX_TURNS: u32 = 1_000;

/// A job's bounds on one run; `None` takes the configured default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunLimits {
    /// `max-cost`, in cents.
    pub max_cost_cents: Option<u64>,
    /// `max-turns`.
    pub max_turns: Option<u32>,
}

/// A `max-cost` or `max-turns` that is not a usable bound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadRunLimit {
    /// `max-cost` is not an amount of dollars in range.
    #[error("`max-cost` {0:?} is not a cost in dollars from 0.01 to 10000 (such as 0.50)")]
    Cost(String),
    /// `max-turns` is out of range.
    #[error("`max-turns` {0} is not a number of turns from 1 to 1000")]
    Turns(u32),
}

impl RunLimits {
    /// Reads the two keys as written (absent or empty: the default).
    pub fn parse(max_cost: Option<Text>, max_turns: Option<Count>) -> Result<Self, BadRunLimit> {
        let max_cost_cents = match max_cost {
            None => None,
            Some(Text(v)) if v.trim().is_empty() => None,
            Some(Text(v)) => Some(
                crate::base::usd::cents(&v)
                    .filter(|c| (1..=MAX_COST_CENTS).contains(c))
                    .ok_or(BadRunLimit::Cost(v))?,
            ),
        };
        let max_turns = match max_turns {
            None => None,
            Some(Count(n)) if (1..=MAX_TURNS).contains(&n) => Some(n),
            Some(Count(n)) => return Err(BadRunLimit::Turns(n)),
        };
        Ok(RunLimits {
            max_cost_cents,
            max_turns,
        })
    }

    /// Writes the keys that are set (`max-cost: 0.50`, `max-turns: 20`).
    pub fn write(&self, w: &mut Writer) {
        if let Some(cents) = self.max_cost_cents {
            w.block("max-cost", &crate::base::usd::dollars(cents));
        }
        if let Some(turns) = self.max_turns {
            w.number("max-turns", turns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Option<Text> {
        Some(Text(s.to_owned()))
    }

    #[test]
    fn bounds_are_read_in_dollars_and_turns() {
        assert_eq!(RunLimits::parse(None, None), Ok(RunLimits::default()));
        assert_eq!(
            RunLimits::parse(text("0.5"), Some(Count(12))),
            Ok(RunLimits {
                max_cost_cents: Some(50),
                max_turns: Some(12)
            })
        );
        assert_eq!(
            RunLimits::parse(text(" "), None).unwrap().max_cost_cents,
            None
        );
        for bad in ["0", "-1", "lots", "1.005", "10000.01"] {
            let err = RunLimits::parse(text(bad), None).unwrap_err();
            assert_eq!(err, BadRunLimit::Cost(bad.to_owned()));
        }
        assert_eq!(
            RunLimits::parse(None, Some(Count(0)))
                .unwrap_err()
                .to_string(),
            "`max-turns` 0 is not a number of turns from 1 to 1000"
        );
        assert!(RunLimits::parse(None, Some(Count(1001))).is_err());
    }

    #[test]
    fn only_set_bounds_are_written() {
        let mut w = Writer::new();
        RunLimits::default().write(&mut w);
        assert_eq!(w.finish("b"), "---\n---\nb\n");
        let mut w = Writer::new();
        RunLimits {
            max_cost_cents: Some(250),
            max_turns: Some(8),
        }
        .write(&mut w);
        assert_eq!(w.finish("b"), "---\nmax-cost: 2.50\nmax-turns: 8\n---\nb\n");
    }
}
