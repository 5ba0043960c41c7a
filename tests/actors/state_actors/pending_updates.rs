//! PendingUpdates through its mailbox: concurrent appends, the cap marker, pop-once, restarts.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use actix::{Actor, Addr};
use chrono::Duration;
use chrono_tz::{America::Los_Angeles, Tz};
use ollim_actors::base::clock::{Clock, ManualClock};
use ollim_actors::records::pending_updates::{
    prepend_updates, Append, Clear, Peek, PendingUpdate, PendingUpdates, Pop, Reader,
};

use super::{clock_at, file_names, start_on_own_arbiter, state_path, stop};

fn start(path: &Path, clock: &ManualClock) -> Addr<PendingUpdates> {
    PendingUpdates::new(path, clock.shared(), Tz::UTC).start()
}

async fn append_in_order(addr: &Addr<PendingUpdates>, messages: impl IntoIterator<Item = String>) {
    for message in messages {
        addr.send(Append { message })
            .await
            .expect("pending updates alive");
    }
}

/// Starts `count` tasks that each send one Append at once, and waits for all of them.
async fn append_concurrently(addr: &Addr<PendingUpdates>, count: usize) {
    let tasks: Vec<_> = (0..count)
        .map(|n| {
            let addr = addr.clone();
            actix::spawn(async move {
                addr.send(Append {
                    message: format!("finding {n}"),
                })
                .await
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("task").expect("pending updates alive");
    }
}

fn messages(updates: &[PendingUpdate]) -> Vec<String> {
    updates.iter().map(|u| u.message.clone()).collect()
}

fn on_disk(path: &Path) -> Vec<PendingUpdate> {
    serde_json::from_slice(&fs::read(path).expect("the queue file")).expect("the queue's shape")
}

#[actix::test]
async fn two_hundred_concurrent_appenders_leave_newest_nine_and_a_marker_for_the_rest() {
    let (_dir, path) = state_path("pending_updates.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock);
    append_concurrently(&addr, 200).await;
    let queue = addr.send(Peek).await.unwrap();
    assert_eq!(queue.len(), 10);
    assert_eq!(
        queue[0].message,
        "(191 earlier update(s) omitted — cap reached)"
    );
    let kept: HashSet<String> = messages(&queue[1..]).into_iter().collect();
    assert_eq!(kept.len(), 9, "no update kept twice: {queue:?}");
    let sent: HashSet<String> = (0..200).map(|n| format!("finding {n}")).collect();
    assert!(kept.is_subset(&sent), "only real updates kept: {kept:?}");
    assert_eq!(on_disk(&path), queue);
}

#[actix::test]
async fn up_to_ten_concurrent_appenders_are_all_kept() {
    let (_dir, path) = state_path("pending_updates.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock);
    append_concurrently(&addr, 10).await;
    let kept: HashSet<String> = messages(&addr.send(Peek).await.unwrap())
        .into_iter()
        .collect();
    let sent: HashSet<String> = (0..10).map(|n| format!("finding {n}")).collect();
    assert_eq!(kept, sent);
}

#[actix::test]
async fn appends_keep_their_order_and_a_zoned_timestamp() {
    let (_dir, path) = state_path("pending_updates.json");
    let clock = clock_at(2026, 2, 24, 22, 30);
    let addr = PendingUpdates::new(&path, clock.shared(), Los_Angeles).start();
    append_in_order(&addr, (0..10).map(|n| format!("step {n}"))).await;
    let queue = addr.send(Peek).await.unwrap();
    let expected: Vec<String> = (0..10).map(|n| format!("step {n}")).collect();
    assert_eq!(messages(&queue), expected);
    assert_eq!(queue[0].ts, "2026-02-24T14:30:00.000000-08:00");
}

#[actix::test]
async fn pop_returns_everything_once_then_nothing() {
    let (_dir, path) = state_path("pending_updates.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock);
    append_in_order(&addr, ["a", "b", "c"].map(String::from)).await;
    assert_eq!(messages(&addr.send(Peek).await.unwrap()), ["a", "b", "c"]);
    assert_eq!(messages(&addr.send(Pop).await.unwrap()), ["a", "b", "c"]);
    assert!(
        !path.exists(),
        "an emptied queue leaves no file, as the original does"
    );
    assert!(addr.send(Pop).await.unwrap().is_empty());
    assert!(addr.send(Peek).await.unwrap().is_empty());
}

#[actix::test]
async fn clear_drops_everything_unread() {
    let (_dir, path) = state_path("pending_updates.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock);
    append_in_order(&addr, ["a".to_owned()]).await;
    addr.send(Clear).await.unwrap();
    assert!(addr.send(Pop).await.unwrap().is_empty());
    assert!(!path.exists());
}

#[actix::test]
async fn a_stopped_actor_successor_still_has_the_five_and_continues() {
    let (_dir, path) = state_path("pending_updates.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let (first_path, first_clock) = (path.clone(), clock.shared());
    let (arbiter, first) =
        start_on_own_arbiter(move || PendingUpdates::new(first_path, first_clock, Tz::UTC));
    append_in_order(&first, (1..=5).map(|n| format!("update {n}"))).await;
    stop(arbiter);
    assert!(first.send(Peek).await.is_err(), "the first actor is gone");

    let second = start(&path, &clock);
    let expected: Vec<String> = (1..=5).map(|n| format!("update {n}")).collect();
    assert_eq!(messages(&second.send(Peek).await.unwrap()), expected);
    append_in_order(&second, ["update 6".to_owned()]).await;
    let queue = second.send(Pop).await.unwrap();
    assert_eq!(queue.len(), 6);
    assert_eq!(queue[5].message, "update 6");
}

#[actix::test]
async fn marker_count_accumulates_across_overflows_and_restarts_until_a_pop() {
    let (_dir, path) = state_path("pending_updates.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let (first_path, first_clock) = (path.clone(), clock.shared());
    let (arbiter, first) =
        start_on_own_arbiter(move || PendingUpdates::new(first_path, first_clock, Tz::UTC));
    append_in_order(&first, (0..11).map(|n| format!("u{n}"))).await;
    assert_eq!(
        first.send(Peek).await.unwrap()[0].message,
        "(2 earlier update(s) omitted — cap reached)"
    );
    stop(arbiter);

    let second = start(&path, &clock);
    append_in_order(&second, (11..14).map(|n| format!("u{n}"))).await;
    let popped = second.send(Pop).await.unwrap();
    assert_eq!(
        popped[0].message,
        "(5 earlier update(s) omitted — cap reached)"
    );
    let expected: Vec<String> = (5..14).map(|n| format!("u{n}")).collect();
    assert_eq!(messages(&popped[1..]), expected);

    append_in_order(&second, (14..25).map(|n| format!("u{n}"))).await;
    let after_pop = second.send(Peek).await.unwrap();
    assert_eq!(
        after_pop[0].message,
        "(2 earlier update(s) omitted — cap reached)"
    );
    assert_eq!(after_pop[1].message, "u16");
}

#[actix::test]
async fn reads_the_original_file_shape_and_an_empty_array() {
    let (_dir, path) = state_path("pending_updates.json");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(
        &path,
        r#"[{"ts": "2026-02-24T08:45:00.250000-08:00", "message": "(4 earlier update(s) omitted — cap reached)"}, {"ts": "2026-02-24T08:46:10.000001-08:00", "message": "inbox: 3 new"}]"#,
    )
    .unwrap();
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock);
    let queue = addr.send(Peek).await.unwrap();
    assert_eq!(queue[0].omitted_count(), Some(4));
    assert_eq!(queue[1].ts, "2026-02-24T08:46:10.000001-08:00");
    assert_eq!(queue[1].message, "inbox: 3 new");

    let (_dir2, empty) = state_path("pending_updates.json");
    fs::create_dir_all(empty.parent().unwrap()).unwrap();
    fs::write(&empty, "[]").unwrap();
    assert!(start(&empty, &clock).send(Pop).await.unwrap().is_empty());
}

#[actix::test]
async fn corrupt_queue_file_is_quarantined_and_the_queue_starts_empty() {
    let (dir, path) = state_path("pending_updates.json");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, b"[{\"ts\": 1}]").unwrap();
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock);
    assert!(addr.send(Peek).await.unwrap().is_empty());
    let names = file_names(&dir.path().join("state"));
    assert!(
        names.len() == 1 && names[0].starts_with("pending_updates.json.corrupt-"),
        "{names:?}"
    );
}

#[actix::test]
async fn delivered_updates_carry_their_age_in_words() {
    let (_dir, path) = state_path("pending_updates.json");
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock);
    append_in_order(&addr, ["checked calendar".to_owned()]).await;
    clock.advance(Duration::minutes(15));
    append_in_order(&addr, ["task done".to_owned()]).await;
    let peeked = addr.send(Peek).await.unwrap();
    let now = clock.now();
    assert_eq!(
        prepend_updates("[stamp]", &peeked, Reader::Fork, now, "hello"),
        "[stamp] RECENT BACKGROUND UPDATES (read-only — main session will also see these):\n\
         - (15m ago) checked calendar\n- (just now) task done\n\nhello"
    );
    clock.advance(Duration::hours(3));
    let popped = addr.send(Pop).await.unwrap();
    assert_eq!(
        prepend_updates("[stamp]", &popped, Reader::MainSession, clock.now(), "hi"),
        "[stamp] RECENT BACKGROUND UPDATES (mention key findings in your response):\n\
         - (3h ago) checked calendar\n- (3h ago) task done\n\nhi"
    );
}

#[actix::test]
async fn an_update_that_cannot_be_written_is_said_held_in_memory_and_saved_when_it_can_be() {
    let (dir, path) = state_path("pending_updates.json");
    // The write fails: where `state/` should be there is a file (a full disk fails the same
    // way, with another error).
    let state = dir.path().join("state");
    fs::write(&state, "not a directory").unwrap();
    let clock = clock_at(2026, 2, 24, 10, 0);
    let (first_path, first_clock) = (path.clone(), clock.shared());
    let (arbiter, first) =
        start_on_own_arbiter(move || PendingUpdates::new(first_path, first_clock, Tz::UTC));
    let queued = first
        .send(Append {
            message: "the invoice is paid".into(),
        })
        .await
        .unwrap();
    assert_eq!(queued.len, 1);
    let why = queued
        .unsaved
        .expect("the failed write is told to the caller");
    assert!(why.contains("pending_updates.json"), "{why}");
    assert!(!path.exists());

    // Room again; the process stops before any other change: the update is written then.
    fs::remove_file(&state).unwrap();
    fs::create_dir(&state).unwrap();
    stop(arbiter);
    let second = start(&path, &clock);
    assert_eq!(
        messages(&second.send(Peek).await.unwrap()),
        ["the invoice is paid"]
    );
}
