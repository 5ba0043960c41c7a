//! Persistent routine sessions (SPEC §18; the original's design of 2026-02-26): a background
//! routine with `session: persistent` ([`crate::jobs::session_mode`]) runs every fire in a
//! session of its own instead of a fork of the conversation, so a weekly review remembers last
//! week's.
//!
//! | file | holds |
//! | --- | --- |
//! | `state/routine_sessions/<routine id>` | the session's id, as plain text (the original's format) |
//! | `state/routine_sessions/<routine id>.usage` *(ours)* | the context the last run ended with, JSON |
//!
//! - The first fire starts a new, empty session, as an isolated routine does (the original's
//!   design: a standalone lineage, never a branch of the conversation); its id is saved when
//!   the run ends. Later fires resume it (`--resume <id>`, no `--fork-session`), and the id the
//!   CLI reports at the end of each run is saved again. A session the CLI cannot resume (its
//!   transcript is gone) is replaced by a new one, logged.
//! - Before a fire whose last run ended above [`COMPACT_ABOVE_PCT`] % of the model's window
//!   (the context its last model call read, against [`crate::conversation::main_session::window_of`] of the
//!   model the CLI reported), the fork sends that session `/compact` first and the job's
//!   prompt once the compaction has answered ([`PersistentRun`]).
//! - Cancelling the routine removes both files ([`remove`]): `ollim-bot routine cancel` (the
//!   agent cancels through it too) and the scheduler, when it notices a persistent routine's
//!   file is gone.
//!
//! Every write is atomic ([`crate::base::state_file`]). Each routine's files have one writer at a
//! time: the fork running it (the job runner never starts a second fire of a persistent
//! routine while one runs) or whoever removes the routine.

mod removed;
mod run;
mod store;

pub use removed::{forget_removed, persistent};
pub use run::PersistentRun;
pub use store::{load, remove, save, Saved};

/// Above this share of the window, the session is compacted before the next fire.
pub const COMPACT_ABOVE_PCT: u64 = 60;

/// Whether a session that ended a run with `tokens` of context in a `window`-token window is
/// compacted before its next fire.
pub fn compaction_due(tokens: u64, window: u64) -> bool {
    window > 0 && tokens.saturating_mul(100) > window.saturating_mul(COMPACT_ABOVE_PCT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_is_due_only_past_sixty_percent() {
        assert!(
            !compaction_due(120_000, 200_000),
            "exactly 60 % is not past it"
        );
        assert!(compaction_due(120_001, 200_000));
        assert!(!compaction_due(590_000, 1_000_000));
        assert!(compaction_due(650_000, 1_000_000));
        assert!(!compaction_due(5, 0), "no window known: nothing to compare");
    }
}
