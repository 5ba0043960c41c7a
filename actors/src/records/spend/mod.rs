//! *(ours, SPEC §19)* What unattended work has spent, against the caps `/config` sets.
//!
//! The spend so far is the sum of `cost_usd` over the run history, `state/runs.jsonl` — every
//! job's runs, background and foreground, webhook jobs included — since local midnight and since
//! the first of the month. The run log owns those lines, so it answers [`SpendSoFar`] (handled
//! here, on its data); nothing else keeps a count that could drift from the file. The history
//! keeps the current month as well as 30 days, so the 1st's runs still count on the 31st.
//!
//! The job runner asks before each job starts ([`Standing`]): over a cap, the job does not run
//! (a reminder is delivered as a plain message instead) and the owner is told once a day
//! ([`Standing::notice`]); within it, a background run is bounded by [`run_budget_usd`] and the
//! preamble shows [`Spent::preamble_line`].

use actix::prelude::*;
use chrono::{DateTime, Utc};

use crate::base::local_days::{midnight, month_start};
use chrono_tz::Tz;

use crate::base::usd;
use crate::records::runs::{RunLog, RunRecord};
use crate::records::runtime_config::RuntimeConfig;

/// The caps in force, in cents; `None`: no cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Caps {
    /// `spend_daily_usd`.
    pub daily_cents: Option<u64>,
    /// `spend_monthly_usd`.
    pub monthly_cents: Option<u64>,
}

impl Caps {
    /// The caps `config` sets.
    pub fn of(config: &RuntimeConfig) -> Self {
        Caps {
            daily_cents: config.spend_daily_cents,
            monthly_cents: config.spend_monthly_cents,
        }
    }
}

/// Asks the run log what jobs have spent today and this month.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Spent")]
pub struct SpendSoFar;

/// What jobs have spent, in US dollars as the CLI reported them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spent {
    /// Since local midnight.
    pub today_usd: f64,
    /// Since local midnight on the first of the month.
    pub month_usd: f64,
}

/// Where the spend stands against the caps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Standing {
    /// Under every cap; `left_usd` is what is left under the tightest one (`None`: no cap).
    Within {
        /// Dollars left before a cap is reached.
        left_usd: Option<f64>,
    },
    /// The day's cap is reached.
    OverDaily {
        /// Spent today.
        spent_usd: f64,
        /// The cap, in cents.
        cap_cents: u64,
    },
    /// The month's cap is reached.
    OverMonthly {
        /// Spent this month.
        spent_usd: f64,
        /// The cap, in cents.
        cap_cents: u64,
    },
}

fn cents_to_usd(cents: u64) -> f64 {
    cents as f64 / 100.0
}

impl Spent {
    /// Sums `records` ended since local midnight of `now` (and since the first of its month).
    pub fn tally(records: &[RunRecord], now: DateTime<Tz>) -> Self {
        let day = midnight(now.timezone(), now.date_naive()).with_timezone(&Utc);
        let month = month_start(now).with_timezone(&Utc);
        let mut spent = Spent::default();
        for r in records {
            let Some(cost) = r.cost_usd.filter(|c| c.is_finite() && *c > 0.0) else {
                continue;
            };
            let ended = r.ended.with_timezone(&Utc);
            if ended >= month {
                spent.month_usd += cost;
            }
            if ended >= day {
                spent.today_usd += cost;
            }
        }
        spent
    }

    /// Where this spend stands against `caps` (the day's cap is checked first).
    pub fn standing(&self, caps: Caps) -> Standing {
        if let Some(cap) = caps.daily_cents {
            if self.today_usd >= cents_to_usd(cap) {
                return Standing::OverDaily {
                    spent_usd: self.today_usd,
                    cap_cents: cap,
                };
            }
        }
        if let Some(cap) = caps.monthly_cents {
            if self.month_usd >= cents_to_usd(cap) {
                return Standing::OverMonthly {
                    spent_usd: self.month_usd,
                    cap_cents: cap,
                };
            }
        }
        let left = |cap: Option<u64>, spent: f64| cap.map(|c| cents_to_usd(c) - spent);
        let left_usd = match (
            left(caps.daily_cents, self.today_usd),
            left(caps.monthly_cents, self.month_usd),
        ) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Standing::Within { left_usd }
    }

    /// The background preamble's line, `spend today: $1.20 of $10.00`; `None` when the day
    /// has no cap.
    pub fn preamble_line(&self, caps: Caps) -> Option<String> {
        let cap = caps.daily_cents?;
        Some(format!(
            "spend today: {} of {}",
            usd::shown_usd(self.today_usd),
            usd::shown(cap)
        ))
    }
}

impl Standing {
    /// What to tell the owner when a job is held back (once a day); `None` within the caps.
    pub fn notice(&self) -> Option<String> {
        match *self {
            Standing::Within { .. } => None,
            Standing::OverDaily {
                spent_usd,
                cap_cents,
            } => Some(format!(
                "background work is paused until midnight: spent {} of {} today (`/config spend_daily_usd` to change)",
                usd::shown_usd(spent_usd),
                usd::shown(cap_cents)
            )),
            Standing::OverMonthly {
                spent_usd,
                cap_cents,
            } => Some(format!(
                "background work is paused until the 1st: spent {} of {} this month (`/config spend_monthly_usd` to change)",
                usd::shown_usd(spent_usd),
                usd::shown(cap_cents)
            )),
        }
    }

    /// A cap is reached.
    pub fn is_over(&self) -> bool {
        !matches!(self, Standing::Within { .. })
    }
}

/// `--max-budget-usd` for one run: the job's own cap, or less when less is left under the
/// caps (never below a cent, which the CLI would read as no budget at all).
pub fn run_budget_usd(job_cents: u64, left_usd: Option<f64>) -> f64 {
    let job = cents_to_usd(job_cents);
    let bound = match left_usd {
        Some(left) => job.min(left),
        None => job,
    };
    bound.max(0.01)
}

impl Handler<SpendSoFar> for RunLog {
    type Result = MessageResult<SpendSoFar>;
    fn handle(&mut self, _msg: SpendSoFar, _ctx: &mut Self::Context) -> Self::Result {
        let (records, now) = self.lines_and_now();
        MessageResult(Spent::tally(records, now))
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
