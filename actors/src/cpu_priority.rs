//! Background work yields the CPU to the conversation. On a small machine ten background
//! forks starting at once (each a `claude` process, plus a git commit for each reminder file
//! that goes) would otherwise hold up the owner's own message; started with a lower priority
//! (Unix `nice`), they take only what the conversation leaves.

use std::process::Command;

/// How much background CLI processes and git bookkeeping are lowered: the most `nice` allows,
/// so the conversation's process is always served first.
pub const BACKGROUND: i32 = 19;

/// Lowers the priority of the process `command` starts by `by` (added to the bot's own `nice`
/// value). Best effort: a system that refuses leaves the child at the bot's priority, and the
/// start goes on.
pub fn lower(command: &mut Command, by: i32) {
    if by <= 0 {
        return;
    }
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec; it makes one `nice` system
    // call (no allocation, no lock) and ignores its result, which is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            let _ = rustix::process::nice(by);
            Ok(())
        });
    }
}
