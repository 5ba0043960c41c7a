//! Reading many transcript files at once: a few worker threads take the files in turn, and
//! their results come back in the files' order, one at a time, so a caller can print as it
//! goes and stop early. Only the files in flight and the results not yet taken are held.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// The most files read at once.
const MAX_WORKERS: usize = 4;

/// How many workers: one per core, at least two (reading waits on the disk), at most four.
fn workers(jobs: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    cores.clamp(2, MAX_WORKERS).min(jobs).max(1)
}

/// Runs `work` on every item of `items` in parallel and hands each result to `take` in the
/// items' order; `take` returning `Break` stops the reading (results already made are dropped).
pub fn in_order<I, T, W, F>(items: &[I], work: W, mut take: F)
where
    I: Sync,
    T: Send,
    W: Fn(&I) -> T + Sync,
    F: FnMut(usize, T) -> ControlFlow<()>,
{
    if items.is_empty() {
        return;
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (send, receive) = mpsc::channel::<(usize, T)>();
    std::thread::scope(|scope| {
        for _ in 0..workers(items.len()) {
            let send = send.clone();
            let (next, stop, work) = (&next, &stop, &work);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(index) else {
                    break;
                };
                if send.send((index, work(item))).is_err() {
                    break;
                }
            });
        }
        drop(send);
        let mut waiting = BTreeMap::new();
        let mut due = 0;
        'taking: for (index, result) in receive.iter() {
            waiting.insert(index, result);
            while let Some(result) = waiting.remove(&due) {
                if take(due, result).is_break() {
                    stop.store(true, Ordering::Relaxed);
                    break 'taking;
                }
                due += 1;
            }
        }
        stop.store(true, Ordering::Relaxed);
        // Dropping the receiver ends the workers' sends.
        drop(receive);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order_and_stop_on_request() {
        let items: Vec<u64> = (0..200).collect();
        let mut seen = Vec::new();
        in_order(
            &items,
            |n| {
                // Uneven work, so workers finish out of order.
                std::thread::sleep(std::time::Duration::from_micros((n * 37) % 200));
                n * 2
            },
            |index, doubled| {
                seen.push((index, doubled));
                ControlFlow::Continue(())
            },
        );
        assert_eq!(
            seen,
            (0..200).map(|i| (i as usize, i * 2)).collect::<Vec<_>>()
        );
        let mut taken = 0;
        in_order(
            &items,
            |n| *n,
            |_, n| {
                taken += 1;
                if n == 9 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert_eq!(taken, 10);
    }
}
