//! PingBudget's bounds: values out of range in a loaded file are corrected (and the file left
//! as it was until the next change), and `/ping-budget` refuses the same values.

use std::fs;
use std::path::Path;

use actix::{Actor, Addr};
use chrono::Duration;
use chrono_tz::Tz;
use ollim_actors::base::clock::ManualClock;
use ollim_actors::records::ping_budget::{
    Configure, PingBudget, Snapshot, Status, TryUse, MAX_CAPACITY, MAX_REFILL_MINUTES,
};

use super::{clock_at, state_path};

fn start(path: &Path, clock: &ManualClock, zone: Tz) -> Addr<PingBudget> {
    PingBudget::new(path, clock.shared(), zone).start()
}

/// A budget file as the original writes it, with the given values.
fn budget_file(capacity: u64, available: f64, refill: u32, last_refill: &str) -> String {
    serde_json::json!({
        "capacity": capacity, "available": available, "refill_rate_minutes": refill,
        "last_refill": last_refill, "critical_used": 0, "critical_reset_date": "2026-02-24",
        "daily_used": 0, "daily_used_reset": "2026-02-24"
    })
    .to_string()
}

#[actix::test]
async fn a_last_refill_in_the_future_refills_normally_from_now() {
    let (_dir, path) = state_path("ping_budget.json");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    // Empty, and stamped a year ahead (a clock that was wrong when it was written).
    fs::write(&path, budget_file(5, 0.0, 90, "2027-02-24T17:00:00+00:00")).unwrap();
    let before = fs::read(&path).unwrap();
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    assert_eq!(
        addr.send(Status).await.unwrap(),
        "budget: 0/5 (next refill in 90 min)"
    );
    clock.advance(Duration::minutes(90));
    assert_eq!(
        addr.send(Status).await.unwrap(),
        "budget: 1/5 (next refill in 90 min)"
    );
    assert_eq!(fs::read(&path).unwrap(), before, "reading never rewrites");
    assert!(addr.send(TryUse).await.unwrap().is_allowed());
    let file: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(file["last_refill"], "2026-02-24T18:30:00.000000+00:00");
}

#[actix::test]
async fn an_enormous_capacity_in_the_file_is_clamped() {
    let (_dir, path) = state_path("ping_budget.json");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = budget_file(
        4_294_967_295,
        4_294_967_295.0,
        4_294_967_295,
        "2026-02-24T17:00:00+00:00",
    );
    fs::write(&path, text).unwrap();
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    let snapshot = addr.send(Snapshot).await.unwrap();
    assert_eq!(
        (
            snapshot.capacity,
            snapshot.whole_tokens,
            snapshot.refill_rate_minutes
        ),
        (MAX_CAPACITY, MAX_CAPACITY, MAX_REFILL_MINUTES)
    );
    assert!(addr.send(TryUse).await.unwrap().is_allowed());
    let file: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(file["capacity"].as_u64(), Some(u64::from(MAX_CAPACITY)));
}

#[actix::test]
async fn configure_refuses_what_loading_would_clamp() {
    let (_dir, path) = state_path("ping_budget.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    let configure = |capacity, refill_rate| Configure {
        capacity,
        refill_rate,
    };
    let too_big = addr
        .send(configure(Some(MAX_CAPACITY + 1), None))
        .await
        .unwrap();
    assert_eq!(too_big.to_string(), "capacity must be at most 100.");
    let too_slow = addr
        .send(configure(None, Some(MAX_REFILL_MINUTES + 1)))
        .await
        .unwrap();
    assert_eq!(
        too_slow.to_string(),
        "refill rate must be at most 10080 minutes (one token a week)."
    );
    let edge = addr
        .send(configure(Some(MAX_CAPACITY), Some(MAX_REFILL_MINUTES)))
        .await
        .unwrap();
    assert!(
        edge.to_string().starts_with("ping budget updated:"),
        "{edge}"
    );
    let snapshot = addr.send(Snapshot).await.unwrap();
    assert_eq!(
        (snapshot.capacity, snapshot.refill_rate_minutes),
        (MAX_CAPACITY, MAX_REFILL_MINUTES)
    );
}
