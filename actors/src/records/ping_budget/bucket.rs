//! The ping budget's token bucket as plain data and pure arithmetic (SPEC §7).
//!
//! Nothing here reads a clock or touches a file: every function takes `now` and the configured
//! zone, so the refill maths, the local-midnight reset and the status wording are tested with
//! fixed instants. The actor in the parent module owns the one live [`Bucket`].
//!
//! Refill is computed on read: a bucket remembers how many tokens it held at `last_refill`, and
//! [`Bucket::settled`] adds `elapsed / refill rate` tokens (fractions kept), capped at capacity.
//! The on-disk shape ([`BucketFile`]) is the original's `state/ping_budget.json`, field for field.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

/// Tokens a fresh bucket holds, and the most it can hold, unless configured otherwise.
pub const DEFAULT_CAPACITY: u32 = 5;
/// Minutes it takes to regain one token, unless configured otherwise.
pub const DEFAULT_REFILL_MINUTES: u32 = 90;
/// The largest capacity accepted, from `/ping-budget` or from the file: a hundred pings in
/// reserve is already far past "not noise".
pub const MAX_CAPACITY: u32 = 100;
/// The slowest refill accepted, in minutes: one token a week.
pub const MAX_REFILL_MINUTES: u32 = 7 * 24 * 60;

/// Slack for floating-point noise: tokens are sums of fractions (`47/90 + 43/90`), and a bucket
/// that holds 2.9999999999 tokens after such a sum holds 3 for every purpose a person sees.
const TOKEN_EPSILON: f64 = 1e-9;

/// The bucket and its daily counters at one instant.
#[derive(Debug, Clone, PartialEq)]
pub struct Bucket {
    /// Most tokens the bucket can hold.
    pub capacity: u32,
    /// Tokens held at `last_refill`, fractions included.
    pub available: f64,
    /// Minutes to regain one token; never zero.
    pub refill_rate_minutes: u32,
    /// When `available` was last brought up to date.
    pub last_refill: DateTime<Utc>,
    /// Critical pings sent on `critical_reset_date` (local date).
    pub critical_used: u32,
    /// Local date `critical_used` counts for.
    pub critical_reset_date: NaiveDate,
    /// Budgeted pings sent on `daily_used_reset` (local date).
    pub daily_used: u32,
    /// Local date `daily_used` counts for.
    pub daily_used_reset: NaiveDate,
}

impl Bucket {
    /// A full bucket with the default capacity and refill rate, counters at zero for today.
    pub fn fresh(now: DateTime<Utc>, zone: Tz) -> Self {
        let today = local_date(now, zone);
        Bucket {
            capacity: DEFAULT_CAPACITY,
            available: f64::from(DEFAULT_CAPACITY),
            refill_rate_minutes: DEFAULT_REFILL_MINUTES,
            last_refill: now,
            critical_used: 0,
            critical_reset_date: today,
            daily_used: 0,
            daily_used_reset: today,
        }
    }

    /// This bucket brought up to `now`: tokens regained since `last_refill` added (capped at
    /// capacity) and the daily counters zeroed if `now` falls on another local date.
    /// Time running backwards regains nothing.
    pub fn settled(&self, now: DateTime<Utc>, zone: Tz) -> Bucket {
        let elapsed_minutes =
            ((now - self.last_refill).num_milliseconds() as f64 / 60_000.0).max(0.0);
        let gained = elapsed_minutes / f64::from(self.refill_rate_minutes.max(1));
        let available = (self.available + gained).min(f64::from(self.capacity));
        let today = local_date(now, zone);
        let mut next = Bucket {
            available,
            last_refill: now,
            ..self.clone()
        };
        if next.critical_reset_date != today {
            next.critical_used = 0;
            next.critical_reset_date = today;
        }
        if next.daily_used_reset != today {
            next.daily_used = 0;
            next.daily_used_reset = today;
        }
        next
    }

    /// Whole tokens held (what the status line shows).
    pub fn whole_tokens(&self) -> u32 {
        whole(self.available)
    }

    /// Whether a ping can be paid for.
    pub fn has_token(&self) -> bool {
        self.available + TOKEN_EPSILON >= 1.0
    }

    /// Pays for one ping and counts it for today. The caller checks [`Bucket::has_token`] first.
    pub fn spend(&mut self) {
        self.available = (self.available - 1.0).max(0.0);
        self.daily_used += 1;
    }

    /// Minutes until the next whole token, or `None` when the bucket is full.
    pub fn minutes_to_next_refill(&self) -> Option<u32> {
        if self.available + TOKEN_EPSILON >= f64::from(self.capacity) {
            return None;
        }
        let fraction = (self.available - f64::from(whole(self.available))).max(0.0);
        let minutes = (1.0 - fraction) * f64::from(self.refill_rate_minutes);
        Some((minutes - TOKEN_EPSILON).ceil().max(1.0) as u32)
    }
}

/// A value in a loaded budget file that was out of range, and what it became.
#[derive(Debug, Clone, PartialEq)]
pub enum Clamped {
    /// `capacity` above [`MAX_CAPACITY`].
    Capacity {
        /// As found.
        found: u32,
    },
    /// `refill_rate_minutes` above [`MAX_REFILL_MINUTES`].
    RefillRate {
        /// As found.
        found: u32,
    },
    /// `available` above the capacity.
    Available {
        /// As found.
        found: f64,
    },
    /// `last_refill` later than now: refills would stop until that time.
    LastRefillInFuture {
        /// As found.
        found: DateTime<Utc>,
    },
}

impl Bucket {
    /// This bucket with every value brought into range as of `now` (capacity and refill rate
    /// within their limits, tokens within capacity, `last_refill` not after `now`), and what
    /// had to change.
    pub fn clamped(mut self, now: DateTime<Utc>) -> (Bucket, Vec<Clamped>) {
        let mut changed = Vec::new();
        if self.capacity > MAX_CAPACITY {
            changed.push(Clamped::Capacity {
                found: self.capacity,
            });
            self.capacity = MAX_CAPACITY;
        }
        if self.refill_rate_minutes > MAX_REFILL_MINUTES {
            changed.push(Clamped::RefillRate {
                found: self.refill_rate_minutes,
            });
            self.refill_rate_minutes = MAX_REFILL_MINUTES;
        }
        if self.available > f64::from(self.capacity) {
            changed.push(Clamped::Available {
                found: self.available,
            });
            self.available = f64::from(self.capacity);
        }
        if self.last_refill > now {
            changed.push(Clamped::LastRefillInFuture {
                found: self.last_refill,
            });
            self.last_refill = now;
        }
        (self, changed)
    }
}

/// Whole tokens in `available`, forgiving floating-point noise just below an integer.
fn whole(available: f64) -> u32 {
    (available + TOKEN_EPSILON).floor().max(0.0) as u32
}

/// How many refill periods fit between `now` and `until` (none when `until` is not later).
/// The forward schedule uses it for "~2 refills before last task.".
pub fn refills_between(refill_rate_minutes: u32, now: DateTime<Utc>, until: DateTime<Utc>) -> u32 {
    let minutes = (until - now).num_seconds() as f64 / 60.0;
    if minutes <= 0.0 {
        return 0;
    }
    (minutes / f64::from(refill_rate_minutes.max(1))).floor() as u32
}

/// The date on the wall calendar in `zone` at `at`.
pub fn local_date(at: DateTime<Utc>, zone: Tz) -> NaiveDate {
    at.with_timezone(&zone).date_naive()
}

/// `state/ping_budget.json` exactly as the original writes it: the same eight fields, the
/// timestamp as ISO 8601 with the zone's offset, the dates as `YYYY-MM-DD`. No extra field may
/// be added: the original rejects a file with fields it does not know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BucketFile {
    capacity: u32,
    available: f64,
    refill_rate_minutes: u32,
    last_refill: String,
    critical_used: u32,
    critical_reset_date: NaiveDate,
    daily_used: u32,
    daily_used_reset: NaiveDate,
}

/// Why a ping budget file was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The JSON did not have the expected shape.
    #[error("unexpected shape: {0}")]
    Shape(#[from] serde_json::Error),
    /// `last_refill` is not an ISO 8601 timestamp with an offset.
    #[error("last_refill {value:?} is not a timestamp with an offset: {source}")]
    Timestamp {
        /// The text found.
        value: String,
        /// The cause.
        #[source]
        source: chrono::ParseError,
    },
    /// A refill rate of zero minutes would mean infinitely many tokens.
    #[error("refill_rate_minutes is zero")]
    ZeroRefillRate,
}

impl BucketFile {
    /// The file contents for `bucket`, timestamps written in `zone`.
    pub fn new(bucket: &Bucket, zone: Tz) -> Self {
        BucketFile {
            capacity: bucket.capacity,
            available: bucket.available,
            refill_rate_minutes: bucket.refill_rate_minutes,
            last_refill: bucket
                .last_refill
                .with_timezone(&zone)
                .to_rfc3339_opts(SecondsFormat::Micros, false),
            critical_used: bucket.critical_used,
            critical_reset_date: bucket.critical_reset_date,
            daily_used: bucket.daily_used,
            daily_used_reset: bucket.daily_used_reset,
        }
    }

    /// Parses and validates the bytes of a ping budget file.
    pub fn parse(bytes: &[u8]) -> Result<Bucket, FileError> {
        let file: BucketFile = serde_json::from_slice(bytes)?;
        if file.refill_rate_minutes == 0 {
            return Err(FileError::ZeroRefillRate);
        }
        let last_refill = DateTime::parse_from_rfc3339(&file.last_refill)
            .map_err(|source| FileError::Timestamp {
                value: file.last_refill.clone(),
                source,
            })?
            .with_timezone(&Utc);
        Ok(Bucket {
            capacity: file.capacity,
            available: file.available.max(0.0),
            refill_rate_minutes: file.refill_rate_minutes,
            last_refill,
            critical_used: file.critical_used,
            critical_reset_date: file.critical_reset_date,
            daily_used: file.daily_used,
            daily_used_reset: file.daily_used_reset,
        })
    }
}

#[cfg(test)]
#[path = "bucket_tests.rs"]
mod tests;
