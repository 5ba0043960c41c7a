//! The clock every time-dependent actor reads, injectable so tests control time.
//!
//! Production code uses [`SystemClock`]; tests use [`ManualClock`] and move time forward
//! explicitly, so a test of an hourly refill or a midnight reset never sleeps for an hour.
//! Sleeping goes through the clock too ([`Clock::sleep_until`]): with a manual clock a sleeper
//! wakes as soon as a test advances time past its deadline.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::watch;

/// A boxed future, as returned by [`Clock::sleep_until`].
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// Longest single real sleep: the system clock can jump (suspend, NTP), so long waits are
/// re-checked against the wall clock at least this often.
const MAX_REAL_SLEEP: Duration = Duration::from_secs(30);

/// Source of the current time and of timers.
pub trait Clock: Send + Sync + 'static {
    /// The current instant.
    fn now(&self) -> DateTime<Utc>;
    /// A future that completes once [`Clock::now`] has reached `deadline`.
    fn sleep_until(&self, deadline: DateTime<Utc>) -> Sleep;
}

/// A shared handle to a clock.
pub type SharedClock = Arc<dyn Clock>;

/// The wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl SystemClock {
    /// A shared system clock.
    pub fn shared() -> SharedClock {
        Arc::new(SystemClock)
    }
}

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }

    fn sleep_until(&self, deadline: DateTime<Utc>) -> Sleep {
        Box::pin(async move {
            loop {
                let left = deadline - Utc::now();
                let Ok(left) = left.to_std() else { return };
                if left.is_zero() {
                    return;
                }
                tokio::time::sleep(left.min(MAX_REAL_SLEEP)).await;
            }
        })
    }
}

/// A clock that only moves when told to; for tests and benchmarks.
#[derive(Debug, Clone)]
pub struct ManualClock {
    now: Arc<watch::Sender<DateTime<Utc>>>,
}

impl ManualClock {
    /// A clock standing still at `start`.
    pub fn new(start: DateTime<Utc>) -> Self {
        let (tx, _rx) = watch::channel(start);
        Self { now: Arc::new(tx) }
    }

    /// Moves time forward (or anywhere) to `at`, waking every sleeper whose deadline passed.
    pub fn set(&self, at: DateTime<Utc>) {
        self.now.send_replace(at);
    }

    /// Moves time forward by `by`.
    pub fn advance(&self, by: chrono::Duration) {
        let next = *self.now.borrow() + by;
        self.set(next);
    }

    /// This clock as a shared handle (time still moves through `self`).
    pub fn shared(&self) -> SharedClock {
        Arc::new(self.clone())
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.borrow()
    }

    fn sleep_until(&self, deadline: DateTime<Utc>) -> Sleep {
        let mut rx = self.now.subscribe();
        Box::pin(async move {
            // An error means the clock was dropped: time will never reach the deadline.
            if rx.wait_for(|now| *now >= deadline).await.is_err() {
                std::future::pending::<()>().await;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[tokio::test]
    async fn manual_sleeper_wakes_when_time_passes_its_deadline() {
        let clock = ManualClock::new(Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap());
        let deadline = clock.now() + chrono::Duration::hours(3);
        let sleeper = tokio::spawn(clock.sleep_until(deadline));
        clock.advance(chrono::Duration::hours(1));
        tokio::task::yield_now().await;
        assert!(!sleeper.is_finished());
        clock.advance(chrono::Duration::hours(2));
        tokio::time::timeout(Duration::from_secs(1), sleeper)
            .await
            .expect("sleeper should wake")
            .unwrap();
    }
}
