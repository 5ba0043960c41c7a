//! The Admission actor (SPEC §20): each hook's rate limit and the delivery ids already
//! accepted. Both are counted in one mailbox, so two copies of one delivery arriving at once
//! cannot both be accepted, and the web workers share no state.
//!
//! | message | answer |
//! | --- | --- |
//! | [`CountRequest`] | `Ok(())`, or the seconds until the hook's window has room |
//! | [`ClaimDelivery`] | `true` the first time a hook's delivery id is claimed in 24 hours |
//! | [`RecordVerdict`](super::verdicts::RecordVerdict), [`RecentVerdicts`](super::verdicts::RecentVerdicts) | the recent answers ([`super::verdicts`]) |
//!
//! Rate: a sliding window of the last minute's requests per hook, on the injected clock.
//! Deliveries: `state/webhook_deliveries.json`, `[{hook, id, at}]`, read when the actor
//! starts and written atomically on every claim, so a replay is refused across a restart.
//! Ids older than 24 hours are dropped; at most [`MAX_DELIVERIES`] are kept (the oldest go).

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;

use actix::{Actor, Context, Handler, Message};
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::base::state_file;

use super::verdicts::Verdict;

/// The file inside `state/`.
pub const FILE_NAME: &str = "webhook_deliveries.json";
/// How long a delivery id is remembered.
pub const REMEMBER: Duration = Duration::hours(24);
/// Most delivery ids kept.
pub const MAX_DELIVERIES: usize = 10_000;
/// Longest delivery id kept, in bytes (longer ones are refused before this point).
pub const MAX_ID_BYTES: usize = 200;

/// One request to `hook`, which allows `limit` a minute.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), u64>")]
pub struct CountRequest {
    /// The hook's id.
    pub hook: String,
    /// Its `rate-limit`.
    pub limit: u32,
}

/// Claims delivery `id` of `hook`; `false` when it was claimed in the last 24 hours.
#[derive(Debug, Clone, Message)]
#[rtype(result = "bool")]
pub struct ClaimDelivery {
    /// The hook's id.
    pub hook: String,
    /// The delivery id (`webhook-id`, `X-GitHub-Delivery`).
    pub id: String,
}

/// A remembered delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivery {
    /// The hook's id.
    pub hook: String,
    /// The delivery id.
    pub id: String,
    /// When it was accepted.
    pub at: DateTime<Utc>,
}

/// The actor.
pub struct Admission {
    path: PathBuf,
    clock: SharedClock,
    windows: HashMap<String, VecDeque<DateTime<Utc>>>,
    deliveries: Vec<Delivery>,
    /// The recent answers, oldest first ([`super::verdicts`]).
    verdicts: VecDeque<Verdict>,
}

impl Admission {
    /// An actor remembering deliveries in `state/webhook_deliveries.json` of `data_dir`.
    pub fn in_data_dir(data_dir: &DataDir, clock: SharedClock) -> Self {
        Admission {
            path: data_dir.state_file(FILE_NAME),
            clock,
            windows: HashMap::new(),
            deliveries: Vec::new(),
            verdicts: VecDeque::new(),
        }
    }

    /// The recent answers, for [`super::verdicts`]' handlers.
    pub(super) fn verdicts_mut(&mut self) -> &mut VecDeque<Verdict> {
        &mut self.verdicts
    }

    fn forget_old(&mut self, now: DateTime<Utc>) {
        self.deliveries.retain(|d| now - d.at < REMEMBER);
        let excess = self.deliveries.len().saturating_sub(MAX_DELIVERIES);
        self.deliveries.drain(..excess);
    }
}

impl Actor for Admission {
    type Context = Context<Self>;

    fn started(&mut self, _ctx: &mut Self::Context) {
        match state_file::load_json::<Vec<Delivery>>(&self.path, Vec::new) {
            Ok(loaded) => self.deliveries = loaded.into_value(),
            Err(e) => {
                tracing::error!(file = %self.path.display(), cause = %e, "webhook deliveries unreadable; replays are not refused until it is fixed")
            }
        }
        self.forget_old(self.clock.now());
    }
}

impl Handler<CountRequest> for Admission {
    type Result = Result<(), u64>;

    fn handle(&mut self, msg: CountRequest, _ctx: &mut Self::Context) -> Self::Result {
        let now = self.clock.now();
        let window = self.windows.entry(msg.hook).or_default();
        while window
            .front()
            .is_some_and(|t| now - *t >= Duration::minutes(1))
        {
            window.pop_front();
        }
        if window.len() >= msg.limit as usize {
            let oldest = window.front().copied().unwrap_or(now);
            let wait = (oldest + Duration::minutes(1) - now).num_seconds().max(1);
            return Err(u64::try_from(wait).unwrap_or(60));
        }
        window.push_back(now);
        Ok(())
    }
}

impl Handler<ClaimDelivery> for Admission {
    type Result = bool;

    fn handle(&mut self, msg: ClaimDelivery, _ctx: &mut Self::Context) -> bool {
        let now = self.clock.now();
        self.forget_old(now);
        if self
            .deliveries
            .iter()
            .any(|d| d.hook == msg.hook && d.id == msg.id)
        {
            return false;
        }
        self.deliveries.push(Delivery {
            hook: msg.hook,
            id: msg.id,
            at: now,
        });
        self.forget_old(now);
        if let Err(e) = state_file::save_json(&self.path, &self.deliveries) {
            tracing::error!(file = %self.path.display(), cause = %e, "could not save webhook deliveries; a replay after a restart may be accepted");
        }
        true
    }
}
