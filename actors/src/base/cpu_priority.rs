//! Background work yields the CPU to the conversation. On a small machine ten background
//! forks starting at once (each a `claude` process, plus a git commit for each reminder file
//! that goes) would otherwise hold up the owner's own message. Their processes start at
//! `nice` 19, the lowest priority, which children they start inherit.
//!
//! Linux's `SCHED_IDLE` class was measured as well (`cargo bench --bench bench --
//! bg_fork_limit` and `-- forks`): the owner's latency under load did not improve beyond the
//! run-to-run noise, while a lone fork took 50–150 ms longer to reach the model, so it is not
//! used.

use std::process::Command;

/// The CPU priority a child process starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CpuPriority {
    /// The bot's own: the conversation's CLI.
    #[default]
    Conversation,
    /// Yields to everything else: background forks and git bookkeeping.
    Background,
}

/// How much background processes are lowered: the most `nice` allows.
const BACKGROUND_NICE: i32 = 19;

/// Starts the process `command` will run at `priority`. Best effort: a system that refuses
/// leaves the child at the bot's priority, and the start goes on.
pub fn apply(command: &mut Command, priority: CpuPriority) {
    if priority == CpuPriority::Conversation {
        return;
    }
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec; it makes one system call (no
    // allocation, no lock) and ignores its result, which is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            let _ = rustix::process::nice(BACKGROUND_NICE);
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(nice, scheduling policy)` of a process started with `priority`, read from its own
    /// `/proc/self/stat` (fields 19 and 41).
    fn started_with(priority: CpuPriority) -> (i64, u32) {
        let mut cat = Command::new("cat");
        cat.arg("/proc/self/stat");
        apply(&mut cat, priority);
        let out = cat.output().expect("cat runs");
        let stat = String::from_utf8_lossy(&out.stdout).into_owned();
        let after_comm: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        // Fields after `(comm)` start at field 3.
        let nice = after_comm[19 - 3].parse().expect("nice field");
        let policy = after_comm[41 - 3].parse().expect("policy field");
        (nice, policy)
    }

    fn own_nice() -> i64 {
        rustix::process::getpriority_process(None)
            .map(i64::from)
            .unwrap_or(0)
    }

    #[test]
    fn conversation_processes_keep_the_bots_priority() {
        assert_eq!(started_with(CpuPriority::Conversation), (own_nice(), 0));
    }

    #[test]
    fn background_processes_start_at_the_lowest_nice_in_the_normal_class() {
        assert_eq!(started_with(CpuPriority::Background), (19, 0));
    }
}
