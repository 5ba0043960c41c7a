//! PendingUpdates' bounds on what it reads: a runaway or hand-edited file reaches the next
//! message as at most ten short entries, and the file itself is kept whole until it is replaced.

use std::fs;
use std::path::Path;

use actix::{Actor, Addr};
use chrono_tz::Tz;
use ollim_actors::base::clock::ManualClock;
use ollim_actors::records::pending_updates::{
    Append, Peek, PendingUpdate, PendingUpdates, Pop, CAP, MAX_MESSAGE_CHARS,
};

use super::{clock_at, file_names, state_path};

fn start(path: &Path, clock: &ManualClock) -> Addr<PendingUpdates> {
    PendingUpdates::new(path, clock.shared(), Tz::UTC).start()
}

fn write_queue(path: &Path, queue: &[PendingUpdate]) -> Vec<u8> {
    fs::create_dir_all(path.parent().expect("state dir")).expect("state dir");
    let bytes = serde_json::to_vec(queue).expect("encode");
    fs::write(path, &bytes).expect("write the queue");
    bytes
}

fn update(n: usize) -> PendingUpdate {
    PendingUpdate {
        ts: "2026-02-24T16:00:00+00:00".into(),
        message: format!("finding {n}"),
    }
}

/// The longest an entry may be once bounded: the kept text plus the cut marker.
fn longest_allowed() -> usize {
    MAX_MESSAGE_CHARS + "… [cut: 99999999 more characters]".chars().count()
}

#[actix::test]
async fn a_hundred_thousand_entries_pop_as_ten_and_the_file_is_kept_aside() {
    let (dir, path) = state_path("pending_updates.json");
    let queue: Vec<_> = (0..100_000).map(update).collect();
    let original = write_queue(&path, &queue);
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock);

    let peeked = addr.send(Peek).await.expect("alive");
    assert_eq!(peeked.len(), CAP);
    assert_eq!(
        peeked[0].message,
        "(99991 earlier update(s) omitted — cap reached)"
    );
    assert_eq!(peeked[1].message, "finding 99991");
    assert_eq!(peeked[9].message, "finding 99999");
    assert_eq!(
        fs::read(&path).expect("file"),
        original,
        "reading never rewrites"
    );

    let popped = addr.send(Pop).await.expect("alive");
    assert_eq!(popped, peeked);
    assert!(!path.exists(), "the queue is empty now");
    let aside: Vec<String> = file_names(&dir.path().join("state"))
        .into_iter()
        .filter(|n| n.starts_with("pending_updates.json.untrimmed-"))
        .collect();
    assert_eq!(aside.len(), 1, "the oversized file is kept aside");
    let kept = fs::read(dir.path().join("state").join(&aside[0])).expect("aside");
    assert_eq!(kept, original, "nothing the bounds left out is lost");
}

#[actix::test]
async fn a_five_megabyte_update_is_cut_when_read_and_when_appended() {
    let (_dir, path) = state_path("pending_updates.json");
    let huge = "x".repeat(5 * 1024 * 1024);
    let mut queue = vec![update(1)];
    queue[0].message = huge.clone();
    write_queue(&path, &queue);
    let clock = clock_at(2026, 2, 24, 17, 0);
    let addr = start(&path, &clock);

    let peeked = addr.send(Peek).await.expect("alive");
    let text = &peeked[0].message;
    assert!(text.chars().count() <= longest_allowed(), "{}", text.len());
    assert!(text.starts_with(&"x".repeat(MAX_MESSAGE_CHARS)));
    let more = 5 * 1024 * 1024 - MAX_MESSAGE_CHARS;
    assert!(
        text.ends_with(&format!("… [cut: {more} more characters]")),
        "{}",
        &text[text.len() - 60..]
    );

    addr.send(Append { message: huge }).await.expect("alive");
    let popped = addr.send(Pop).await.expect("alive");
    assert_eq!(popped.len(), 2);
    for update in &popped {
        assert!(update.message.chars().count() <= longest_allowed());
    }
}
