//! The PingBudget actor (SPEC §7): the one owner of the ping token bucket and of
//! `state/ping_budget.json`, and *(ours, §16)* of the record of what each job sent in the last
//! day, `state/sent_pings.json` ([`sent`]), so a job never sends the same text twice in 24 hours.
//!
//! | message | sent by | answer |
//! | --- | --- | --- |
//! | [`TryUse`] | a background fork's non-critical ping, after its own and the busy checks | [`PingDecision`] |
//! | [`TrySend`] | the same, naming the job and the text: a repeat within 24 h is refused first | [`PingDecision`] |
//! | [`NoteSent`] | a background fork's critical ping (recorded so a later repeat is refused) | — |
//! | [`RecordCritical`] | a background fork's critical ping (which bypasses the budget) | critical pings today |
//! | [`Status`] | the background preamble | `budget: 3/5 (next refill in 42 min)` |
//! | [`FullStatus`] | `/ping-budget` without arguments | status plus today's counters |
//! | [`Configure`] | `/ping-budget capacity refill_rate` | [`ConfigureOutcome`] (saved first: a change that cannot be written is not made) |
//! | [`Snapshot`] | the preamble builder (forward schedule, refill estimates) | [`BudgetSnapshot`] |
//!
//! Because every request passes through this mailbox, two forks can never both spend the last
//! token. Queries compute the refill from elapsed time without writing anything; every change is
//! written atomically in the original's file shape, so stopping the actor and starting a new one
//! on the same file (or going back to the original program) continues where it was. All time
//! comes from the injected clock; daily counters reset at midnight in the configured zone.
//!
//! A loaded file is held to the same bounds `/ping-budget` enforces (capacity at most
//! [`MAX_CAPACITY`], refill at most [`MAX_REFILL_MINUTES`], tokens within capacity) and a
//! `last_refill` in the future is taken as now, so refills run normally; each correction is
//! logged as a warning. Loading does not rewrite the file: the corrected values are written
//! with the next change (a spent token, a critical ping, a configuration).

mod bucket;
mod messages;
pub mod sent;
mod status;

use std::path::{Path, PathBuf};

use actix::{Actor, Context, Handler, MessageResult, Supervised};
use chrono_tz::Tz;

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::base::state_file::{self, Loaded};

pub use bucket::{
    refills_between, Bucket, BucketFile, Clamped, FileError, DEFAULT_CAPACITY,
    DEFAULT_REFILL_MINUTES, MAX_CAPACITY, MAX_REFILL_MINUTES,
};
pub use messages::{
    Configure, FullStatus, NoteSent, RecordCritical, Snapshot, Status, TrySend, TryUse,
};
pub use status::{
    status_line, BudgetSnapshot, ConfigureOutcome, ConfigureRefusal, PingDecision, Refusal,
};

/// Name of the budget's file inside `state/`.
pub const FILE_NAME: &str = "ping_budget.json";

/// The actor owning the bucket and its file.
pub struct PingBudget {
    /// Where the bucket is persisted.
    path: PathBuf,
    /// The source of every instant.
    clock: SharedClock,
    /// The zone whose midnight resets the daily counters and whose offset timestamps carry.
    zone: Tz,
    /// The bucket as of its `last_refill`; (re)loaded from disk in `started`.
    bucket: Bucket,
    /// `state/sent_pings.json`.
    sent_path: PathBuf,
    /// What each job sent in the last day; (re)loaded from disk in `started`.
    sent: sent::SentLog,
    /// Entered by every handler.
    span: tracing::Span,
}

impl PingBudget {
    /// An actor persisting to `path`; it reads the file when started.
    pub fn new(path: impl Into<PathBuf>, clock: SharedClock, zone: Tz) -> Self {
        let path = path.into();
        let bucket = Bucket::fresh(clock.now(), zone);
        PingBudget {
            sent_path: path.with_file_name(sent::FILE_NAME),
            path,
            clock,
            zone,
            bucket,
            sent: sent::SentLog::default(),
            span: tracing::Span::none(),
        }
    }

    /// An actor persisting to `state/ping_budget.json` in `data_dir`.
    pub fn in_data_dir(data_dir: &DataDir, clock: SharedClock, zone: Tz) -> Self {
        Self::new(data_dir.state_file(FILE_NAME), clock, zone)
    }

    /// The file this actor owns.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bucket brought up to the clock's now, without changing the stored one.
    fn current(&self) -> Bucket {
        self.bucket.settled(self.clock.now(), self.zone)
    }

    /// Writes `bucket` to the file.
    fn save(&self, bucket: &Bucket) -> Result<(), state_file::Error> {
        state_file::save_json(&self.path, &BucketFile::new(bucket, self.zone))
    }

    /// Replaces the bucket and writes it (a spent token, a critical ping). A failed write is
    /// logged: the bucket in memory stays authoritative, so a token spent stays spent, and the
    /// next change tries again.
    fn commit(&mut self, bucket: Bucket) {
        self.bucket = bucket;
        if let Err(err) = self.save(&self.bucket) {
            tracing::error!(cause = %err, "could not save the ping budget");
        }
    }

    /// Writes the sent-pings record; a failed write is logged (memory stays authoritative).
    fn save_sent(&self) {
        if let Err(err) = state_file::save_json(&self.sent_path, &self.sent) {
            tracing::error!(cause = %err, "could not save the sent pings");
        }
    }

    fn load_sent(&mut self) {
        self.sent =
            match state_file::load_with(&self.sent_path, sent::SentLog::parse, Default::default) {
                Ok(loaded) => loaded.into_value(),
                Err(err) => {
                    tracing::error!(cause = %err, "could not read the sent pings; starting empty");
                    sent::SentLog::default()
                }
            };
    }

    /// Spends a token if one is left (the shared part of [`TryUse`] and [`TrySend`]).
    fn try_spend(&mut self) -> PingDecision {
        let mut bucket = self.current();
        if !bucket.has_token() {
            tracing::info!(
                available = bucket.available,
                "ping refused: budget exhausted"
            );
            return PingDecision::Refused {
                reason: Refusal::BudgetExhausted,
            };
        }
        bucket.spend();
        let remaining = bucket.whole_tokens();
        self.commit(bucket);
        tracing::info!(remaining, "ping token spent");
        PingDecision::Allowed { remaining }
    }

    fn load(&mut self) {
        let now = self.clock.now();
        let zone = self.zone;
        let loaded =
            state_file::load_with(&self.path, BucketFile::parse, || Bucket::fresh(now, zone));
        self.bucket = match loaded {
            Ok(Loaded::Found(bucket)) => {
                tracing::debug!(file = %self.path.display(), "ping budget loaded");
                let (bucket, changed) = bucket.clamped(now);
                for change in changed {
                    warn_clamped(&change, &bucket);
                }
                bucket
            }
            Ok(Loaded::Missing(bucket) | Loaded::Corrupt(bucket, _)) => bucket,
            Err(err) => {
                tracing::error!(cause = %err, "could not read the ping budget; starting full");
                Bucket::fresh(now, zone)
            }
        };
    }
}

/// Logs one out-of-range value found in the file and what is used instead.
fn warn_clamped(change: &Clamped, now_using: &Bucket) {
    match change {
        Clamped::Capacity { found } => tracing::warn!(
            found,
            using = now_using.capacity,
            "ping budget capacity out of range; using the largest allowed"
        ),
        Clamped::RefillRate { found } => tracing::warn!(
            found,
            using = now_using.refill_rate_minutes,
            "ping budget refill rate out of range; using the slowest allowed"
        ),
        Clamped::Available { found } => tracing::warn!(
            found,
            using = now_using.available,
            "ping budget held more tokens than its capacity; using the capacity"
        ),
        Clamped::LastRefillInFuture { found } => tracing::warn!(
            found = %found,
            using = %now_using.last_refill,
            "ping budget last_refill is in the future; counting refills from now"
        ),
    }
}

impl Actor for PingBudget {
    type Context = Context<Self>;

    fn started(&mut self, _ctx: &mut Self::Context) {
        self.span =
            tracing::info_span!("actor", actor = "ping_budget", file = %self.path.display());
        let span = self.span.clone();
        let _entered = span.enter();
        self.load();
        self.load_sent();
        tracing::info!("started");
    }
}

/// After a restart `started` runs again and reloads the file.
impl Supervised for PingBudget {}

impl Handler<TryUse> for PingBudget {
    type Result = MessageResult<TryUse>;

    fn handle(&mut self, _msg: TryUse, _ctx: &mut Self::Context) -> Self::Result {
        let span = self.span.clone();
        let _entered = span.enter();
        MessageResult(self.try_spend())
    }
}

impl Handler<TrySend> for PingBudget {
    type Result = MessageResult<TrySend>;

    fn handle(&mut self, msg: TrySend, _ctx: &mut Self::Context) -> Self::Result {
        let span = self.span.clone();
        let _entered = span.enter();
        let now = self.clock.now();
        if let Some(at) = self.sent.sent_within(&msg.job, &msg.text, now) {
            tracing::info!(job = %msg.job, sent_at = %at, "ping refused: sent the same earlier");
            let today = now.with_timezone(&self.zone).date_naive();
            return MessageResult(PingDecision::Refused {
                reason: Refusal::AlreadySent {
                    at,
                    yesterday: at.date_naive() < today,
                },
            });
        }
        let decision = self.try_spend();
        if decision.is_allowed() {
            self.sent.record(&msg.job, &msg.text, now, self.zone);
            self.save_sent();
        }
        MessageResult(decision)
    }
}

impl Handler<NoteSent> for PingBudget {
    type Result = ();

    fn handle(&mut self, msg: NoteSent, _ctx: &mut Self::Context) {
        self.sent
            .record(&msg.job, &msg.text, self.clock.now(), self.zone);
        self.save_sent();
    }
}

impl Handler<RecordCritical> for PingBudget {
    type Result = u32;

    fn handle(&mut self, _msg: RecordCritical, _ctx: &mut Self::Context) -> u32 {
        let span = self.span.clone();
        let _entered = span.enter();
        let mut bucket = self.current();
        bucket.critical_used += 1;
        let count = bucket.critical_used;
        self.commit(bucket);
        tracing::info!(critical_used = count, "critical ping recorded");
        count
    }
}

impl Handler<Status> for PingBudget {
    type Result = String;

    fn handle(&mut self, _msg: Status, _ctx: &mut Self::Context) -> String {
        BudgetSnapshot::of(&self.current(), self.clock.now()).status_line()
    }
}

impl Handler<FullStatus> for PingBudget {
    type Result = String;

    fn handle(&mut self, _msg: FullStatus, _ctx: &mut Self::Context) -> String {
        BudgetSnapshot::of(&self.current(), self.clock.now()).full_status()
    }
}

impl Handler<Snapshot> for PingBudget {
    type Result = MessageResult<Snapshot>;

    fn handle(&mut self, _msg: Snapshot, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(BudgetSnapshot::of(&self.current(), self.clock.now()))
    }
}

impl Handler<Configure> for PingBudget {
    type Result = MessageResult<Configure>;

    fn handle(&mut self, msg: Configure, _ctx: &mut Self::Context) -> Self::Result {
        let span = self.span.clone();
        let _entered = span.enter();
        let refusal = match (msg.capacity, msg.refill_rate) {
            (_, Some(0)) => Some(ConfigureRefusal::ZeroRefillRate),
            (_, Some(m)) if m > MAX_REFILL_MINUTES => Some(ConfigureRefusal::RefillRateTooSlow),
            (Some(c), _) if c > MAX_CAPACITY => Some(ConfigureRefusal::CapacityTooLarge),
            _ => None,
        };
        if let Some(reason) = refusal {
            return MessageResult(ConfigureOutcome::Refused { reason });
        }
        let now = self.clock.now();
        let mut bucket = self.current();
        if let Some(capacity) = msg.capacity {
            bucket.capacity = capacity;
            bucket.available = bucket.available.min(f64::from(capacity));
        }
        if let Some(minutes) = msg.refill_rate {
            bucket.refill_rate_minutes = minutes;
        }
        // The owner's change is saved first and applied only once it is on disk: an answer
        // of "updated" is never left holding only in memory.
        if let Err(err) = self.save(&bucket) {
            tracing::error!(cause = %err, "could not save the ping budget; its settings stay as they were");
            return MessageResult(ConfigureOutcome::NotSaved(state_file::NotSaved::from(&err)));
        }
        self.bucket = bucket;
        tracing::info!(
            capacity = self.bucket.capacity,
            refill_rate_minutes = self.bucket.refill_rate_minutes,
            "ping budget configured"
        );
        MessageResult(ConfigureOutcome::Updated {
            status: BudgetSnapshot::of(&self.bucket, now).status_line(),
        })
    }
}
