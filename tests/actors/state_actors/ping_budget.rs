//! PingBudget through its mailbox: spending, refusing, refilling, counters, wording, files.

use std::fs;
use std::path::Path;

use actix::{Actor, Addr};
use chrono::Duration;
use chrono_tz::{America::Los_Angeles, Tz};
use ollim_actors::base::clock::ManualClock;
use ollim_actors::records::ping_budget::{
    Configure, FullStatus, PingBudget, PingDecision, RecordCritical, Refusal, Snapshot, Status,
    TryUse,
};

use super::{clock_at, file_names, start_on_own_arbiter, state_path, stop, utc};

fn start(path: &Path, clock: &ManualClock, zone: Tz) -> Addr<PingBudget> {
    PingBudget::new(path, clock.shared(), zone).start()
}

async fn spend(addr: &Addr<PingBudget>, times: usize) -> Vec<PingDecision> {
    let mut decisions = Vec::new();
    for _ in 0..times {
        decisions.push(addr.send(TryUse).await.expect("ping budget alive"));
    }
    decisions
}

#[actix::test]
async fn five_pings_spend_the_full_bucket_and_the_sixth_is_refused() {
    let (_dir, path) = state_path("ping_budget.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    let decisions = spend(&addr, 6).await;
    let remaining: Vec<_> = decisions[..5]
        .iter()
        .map(|d| match d {
            PingDecision::Allowed { remaining } => *remaining,
            other => panic!("expected allowed, got {other:?}"),
        })
        .collect();
    assert_eq!(remaining, vec![4, 3, 2, 1, 0]);
    assert_eq!(
        decisions[5],
        PingDecision::Refused {
            reason: Refusal::BudgetExhausted
        }
    );
}

#[actix::test]
async fn concurrent_requests_never_spend_more_than_the_bucket_holds() {
    let (_dir, path) = state_path("ping_budget.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    let asks: Vec<_> = (0..12).map(|_| actix::spawn(addr.send(TryUse))).collect();
    let mut allowed = 0;
    for ask in asks {
        if ask
            .await
            .expect("task")
            .expect("ping budget alive")
            .is_allowed()
        {
            allowed += 1;
        }
    }
    assert_eq!(allowed, 5);
}

#[actix::test]
async fn refill_across_hours_keeps_fractions_and_stops_at_capacity() {
    let (_dir, path) = state_path("ping_budget.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    spend(&addr, 5).await;
    clock.advance(Duration::minutes(135));
    assert_eq!(
        addr.send(Status).await.unwrap(),
        "budget: 1/5 (next refill in 45 min)"
    );
    clock.advance(Duration::minutes(45));
    assert_eq!(
        addr.send(Status).await.unwrap(),
        "budget: 2/5 (next refill in 90 min)"
    );
    clock.advance(Duration::hours(10));
    let snapshot = addr.send(Snapshot).await.unwrap();
    assert_eq!(snapshot.available, 5.0);
    assert_eq!(snapshot.next_refill_in_minutes, None);
    assert_eq!(addr.send(Status).await.unwrap(), "budget: 5/5");
}

#[actix::test]
async fn refused_ping_spends_nothing() {
    let (_dir, path) = state_path("ping_budget.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    spend(&addr, 5).await;
    clock.advance(Duration::minutes(45));
    let on_disk = fs::read(&path).unwrap();
    let decision = addr.send(TryUse).await.unwrap();
    assert!(!decision.is_allowed());
    let snapshot = addr.send(Snapshot).await.unwrap();
    assert!(
        (snapshot.available - 0.5).abs() < 1e-9,
        "{}",
        snapshot.available
    );
    assert_eq!(snapshot.daily_used, 5);
    assert_eq!(
        fs::read(&path).unwrap(),
        on_disk,
        "a refusal must not write"
    );
    clock.advance(Duration::minutes(45));
    assert!(addr.send(TryUse).await.unwrap().is_allowed());
}

#[actix::test]
async fn critical_ping_consumes_nothing_and_is_counted_even_when_exhausted() {
    let (_dir, path) = state_path("ping_budget.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    assert_eq!(addr.send(RecordCritical).await.unwrap(), 1);
    assert_eq!(addr.send(Snapshot).await.unwrap().available, 5.0);
    spend(&addr, 5).await;
    assert_eq!(addr.send(RecordCritical).await.unwrap(), 2);
    let snapshot = addr.send(Snapshot).await.unwrap();
    assert_eq!((snapshot.available, snapshot.critical_used), (0.0, 2));
    assert_eq!(
        addr.send(FullStatus).await.unwrap(),
        "budget: 0/5 (next refill in 90 min). used today: 5. critical bypasses: 2 \
         (urgent overrides, not deducted from budget)."
    );
}

#[actix::test]
async fn status_and_full_status_read_word_for_word() {
    let (_dir, path) = state_path("ping_budget.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    assert_eq!(addr.send(Status).await.unwrap(), "budget: 5/5");
    assert_eq!(addr.send(FullStatus).await.unwrap(), "budget: 5/5");
    spend(&addr, 2).await;
    addr.send(RecordCritical).await.unwrap();
    clock.advance(Duration::minutes(48));
    assert_eq!(
        addr.send(Status).await.unwrap(),
        "budget: 3/5 (next refill in 42 min)"
    );
    assert_eq!(
        addr.send(FullStatus).await.unwrap(),
        "budget: 3/5 (next refill in 42 min). used today: 2. critical bypasses: 1 \
         (urgent overrides, not deducted from budget)."
    );
}

#[actix::test]
async fn daily_counters_reset_at_local_midnight_not_utc_midnight() {
    let (_dir, path) = state_path("ping_budget.json");
    // 15:30 PST on Jan 14.
    let clock = clock_at(2026, 1, 14, 23, 30);
    let addr = start(&path, &clock, Los_Angeles);
    spend(&addr, 2).await;
    addr.send(RecordCritical).await.unwrap();
    // 16:30 PST: midnight has passed in UTC but not in Los Angeles.
    clock.advance(Duration::hours(1));
    let snapshot = addr.send(Snapshot).await.unwrap();
    assert_eq!((snapshot.daily_used, snapshot.critical_used), (2, 1));
    // 00:30 PST on Jan 15.
    clock.set(utc(2026, 1, 15, 8, 30));
    let snapshot = addr.send(Snapshot).await.unwrap();
    assert_eq!((snapshot.daily_used, snapshot.critical_used), (0, 0));
    spend(&addr, 1).await;
    let file: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(file["daily_used"], 1);
    assert_eq!(file["daily_used_reset"], "2026-01-15");
    assert_eq!(file["critical_used"], 0);
    assert_eq!(file["last_refill"], "2026-01-15T00:30:00.000000-08:00");
}

#[actix::test]
async fn a_configuration_that_cannot_be_saved_is_not_made_and_says_why() {
    let (_dir, path) = state_path("ping_budget.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    let configure = |capacity| Configure {
        capacity: Some(capacity),
        refill_rate: Some(60),
    };
    addr.send(configure(8)).await.unwrap();
    // A directory where the file was: the new content cannot replace it.
    fs::remove_file(&path).unwrap();
    fs::create_dir(&path).unwrap();
    let refused = addr.send(configure(3)).await.unwrap().to_string();
    assert!(
        refused.starts_with(&format!(
            "ping budget not updated: couldn't save {}: ",
            path.display()
        )) && refused.ends_with(" — nothing changed."),
        "{refused}"
    );
    let snapshot = addr.send(Snapshot).await.unwrap();
    assert_eq!(snapshot.capacity, 8, "the budget in memory is unchanged");
    fs::remove_dir(&path).unwrap();
    let updated = addr.send(configure(3)).await.unwrap();
    assert_eq!(updated.to_string(), "ping budget updated: budget: 3/3.");
}

#[actix::test]
async fn configure_answers_with_the_updated_status() {
    let (_dir, path) = state_path("ping_budget.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    let outcome = addr
        .send(Configure {
            capacity: Some(8),
            refill_rate: Some(60),
        })
        .await
        .unwrap();
    assert_eq!(
        outcome.to_string(),
        "ping budget updated: budget: 5/8 (next refill in 60 min)."
    );
    let lowered = addr
        .send(Configure {
            capacity: Some(3),
            refill_rate: None,
        })
        .await
        .unwrap();
    assert_eq!(lowered.to_string(), "ping budget updated: budget: 3/3.");
    let refused = addr
        .send(Configure {
            capacity: Some(9),
            refill_rate: Some(0),
        })
        .await
        .unwrap();
    assert_eq!(
        refused.to_string(),
        "refill rate must be at least 1 minute."
    );
    let snapshot = addr.send(Snapshot).await.unwrap();
    assert_eq!((snapshot.capacity, snapshot.refill_rate_minutes), (3, 60));
    let file: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        (
            file["capacity"].as_u64(),
            file["refill_rate_minutes"].as_u64()
        ),
        (Some(3), Some(60))
    );
}

#[actix::test]
async fn reads_and_writes_the_original_file_shape() {
    let (_dir, path) = state_path("ping_budget.json");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    // As the Python bot writes it: compact, microseconds, the zone's offset.
    fs::write(
        &path,
        r#"{"capacity": 5, "available": 2.5, "refill_rate_minutes": 90, "last_refill": "2026-02-24T09:00:00.123456-08:00", "critical_used": 1, "critical_reset_date": "2026-02-24", "daily_used": 3, "daily_used_reset": "2026-02-24"}"#,
    )
    .unwrap();
    let clock = ManualClock::new(utc(2026, 2, 24, 17, 0) + Duration::microseconds(123_456));
    let addr = start(&path, &clock, Los_Angeles);
    assert_eq!(
        addr.send(FullStatus).await.unwrap(),
        "budget: 2/5 (next refill in 45 min). used today: 3. critical bypasses: 1 \
         (urgent overrides, not deducted from budget)."
    );
    clock.advance(Duration::minutes(9));
    assert!(addr.send(TryUse).await.unwrap().is_allowed());
    let file: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    let mut keys: Vec<_> = file.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "available",
            "capacity",
            "critical_reset_date",
            "critical_used",
            "daily_used",
            "daily_used_reset",
            "last_refill",
            "refill_rate_minutes"
        ]
    );
    assert!(
        file["available"].is_f64(),
        "available stays a float: {}",
        file["available"]
    );
    assert!((file["available"].as_f64().unwrap() - 1.6).abs() < 1e-9);
    assert_eq!(file["daily_used"], 4);
    assert_eq!(file["last_refill"], "2026-02-24T09:09:00.123456-08:00");
}

#[actix::test]
async fn corrupt_file_is_quarantined_and_the_budget_starts_full() {
    let (dir, path) = state_path("ping_budget.json");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, b"{\"capacity\": 5, \"avail").unwrap();
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock, Tz::UTC);
    assert_eq!(addr.send(Status).await.unwrap(), "budget: 5/5");
    let names = file_names(&dir.path().join("state"));
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(
        names[0].starts_with("ping_budget.json.corrupt-"),
        "{names:?}"
    );
    assert!(addr.send(TryUse).await.unwrap().is_allowed());
    assert!(path.exists());
}

#[actix::test]
async fn a_new_actor_on_the_same_file_continues_where_the_last_stopped() {
    let (_dir, path) = state_path("ping_budget.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let (first_path, first_clock) = (path.clone(), clock.shared());
    let (arbiter, first) =
        start_on_own_arbiter(move || PingBudget::new(first_path, first_clock, Tz::UTC));
    for _ in 0..2 {
        assert!(first.send(TryUse).await.unwrap().is_allowed());
    }
    first.send(RecordCritical).await.unwrap();
    stop(arbiter);
    assert!(first.send(Status).await.is_err(), "the first actor is gone");

    clock.advance(Duration::minutes(30));
    let second = start(&path, &clock, Tz::UTC);
    assert_eq!(
        second.send(FullStatus).await.unwrap(),
        "budget: 3/5 (next refill in 60 min). used today: 2. critical bypasses: 1 \
         (urgent overrides, not deducted from budget)."
    );
}
