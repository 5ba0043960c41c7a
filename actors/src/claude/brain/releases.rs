//! The CLI releases the bot is tested against, and where they behave differently — in one place.
//!
//! Users run whichever `claude` they have: the newest from npm, one the CLI's own installer
//! updated, or whatever the Python original left. The tier-2 tests run against [`PINNED`] in CI
//! and, with `make test-cli CLI=<version>`, against any other; [`OLDEST_TESTED`] to
//! [`NEWEST_TESTED`] is the range they passed on.
//!
//! What differs, what we rely on, and how the bot copes (each pinned by a tier-2 test):
//!
//! | | 2.1.197 | 2.1.330 | 2.1.332 |
//! |---|---|---|---|
//! | lines written while a turn runs | each replayed (`isReplay`) once taken into a turn; several taken at once replayed as one line with their texts joined, under a uuid of its own | replayed too, and `system/status` names their uuids as a request takes them | as 2.1.330 |
//! | a result names the lines it answered (`user_message_uuids`) | no | yes | yes |
//! | when a line taken into a turn is replayed | with the turn's first whole message, after its text has streamed (a turn shows first by its `init` and stream) | named by `system/status` as the request starts | as 2.1.330 |
//! | `session_state_changed` (idle/running) | never sent | sent | sent |
//! | a resumed or forked session's system prompt | the new process's `--append-system-prompt` | the one the session's first process had: the new one is dropped | as 2.1.330 |
//! | `/clear` sends `conversation_reset` | no: the next `init` names the new session | yes | yes |
//! | a result ended by `--max-budget-usd` gives a `terminal_reason` | no | `budget_exhausted` | as 2.1.330 |
//! | its built-ins include `TaskOutput` | yes | no | no |
//! | a failed model call's synthetic message (`<synthetic>` model, `error` kind) | not flagged; its result's `terminal_reason` is `completed` | flagged `is_api_error_message`; `terminal_reason: api_error` | as 2.1.330 |
//! | the window of `--model sonnet` (and `opus`) | 200k; `sonnet[1m]` is the 1M one | 1M, and `sonnet[1m]` is taken as `sonnet` | as 2.1.330 |
//! | auto-compacting a conversation of a single exchange | refused: `compact_result: failed`, `compact_error: too_few_groups`, then the turn fails `Prompt is too long` | compacts | compacts |
//! | the compaction's summary request | offers the tools, and its instructions are appended to the last user message | a user message of its own | as 2.1.330 |
//! | the agent types listed to the model | a message whose content is a bare string | a text block | as 2.1.330 |
//! | the initialize answer names the version | no | yes | yes, though a start was seen without it |
//!
//! - **Which lines a turn took in** comes from what the CLI says: the uuids a status or result
//!   names, else the replayed lines (matched by uuid or, when merged, by text). See
//!   [`super::BrainEvent::LinesTaken`] and the conversation's turn line.
//! - **Idle by its own account**: where `session_state_changed` exists, `idle` with lines still
//!   waiting means they are sent; 2.1.197 says nothing, and its results end the turns: it is
//!   taken as idle after a result and running once a turn shows (`init`, stream or replay).
//! - **Memory**: because 2.1.330 and later keep a resumed session's first system prompt, the
//!   memory a resumed or forked process must see rides in its first message, on every release
//!   ([`memory_in_first_message`]) — the version is known only once the process runs.
//! - **A failed model call** is known by its synthetic message: flagged, or on 2.1.197 the
//!   `error` kind of a message whose model is `<synthetic>`; the failure classifier reads that
//!   kind, not the `terminal_reason`.
//! - **A haiku fork of a context past haiku's window** runs on `sonnet[1m]`, which is the 1M
//!   window on every release (plain `sonnet` would be 200k on 2.1.197, and the CLI would compact
//!   the fork before its first answer).
//! - **A compaction that fails** (any release, when the summary call fails; 2.1.197 also for a
//!   single exchange) ends the turn with `Prompt is too long`: the owner is told the
//!   conversation no longer fits and that `/clear` starts a fresh one.
//! - **Version**: from `claude --version` ([`super::cli_info::version`]), as the initialize
//!   answer may lack it.
//! - **A cleared session's id** is read from the `/clear` turn's result, which every release
//!   gives; the subtype of the end (`error_max_budget_usd`) is read, not the `terminal_reason`.

use std::cmp::Ordering;
use std::fmt;

use super::SessionStart;

/// The oldest release the tier-2 tests passed on.
pub const OLDEST_TESTED: Release = Release(2, 1, 197);
/// The release `tools/install-claude.sh` installs and CI tests.
pub const PINNED: Release = Release(2, 1, 332);
/// The newest release the tier-2 tests passed on.
pub const NEWEST_TESTED: Release = Release(2, 1, 332);

/// A CLI release, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release(pub u32, pub u32, pub u32);

impl Release {
    /// The release a version line names: `2.1.330 (Claude Code)`, `2.1.332`, `v2.1.197`.
    pub fn parse(line: &str) -> Option<Release> {
        let word = line.split_whitespace().next()?.trim_start_matches('v');
        let mut parts = word.split('.');
        let mut next = || parts.next()?.parse::<u32>().ok();
        let release = Release(next()?, next()?, next()?);
        Some(release)
    }

    /// Where it stands against the tested range.
    pub fn standing(self) -> Standing {
        match (self.cmp(&OLDEST_TESTED), self.cmp(&NEWEST_TESTED)) {
            (Ordering::Less, _) => Standing::Older,
            (_, Ordering::Greater) => Standing::Newer,
            _ => Standing::Tested,
        }
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// A release against the tested range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Older than [`OLDEST_TESTED`].
    Older,
    /// Within [`OLDEST_TESTED`]..=[`NEWEST_TESTED`].
    Tested,
    /// Newer than [`NEWEST_TESTED`]: likely fine, not yet tested.
    Newer,
}

/// The tested range, as people read it: `2.1.197 to 2.1.332 (pinned 2.1.332)`.
pub fn tested_range() -> String {
    format!("{OLDEST_TESTED} to {NEWEST_TESTED} (pinned {PINNED})")
}

/// The first release that names the lines a turn took (`system/status` and results carry
/// `user_message_uuids`) and reports its state (`session_state_changed`); before it, lines are
/// known only from their replays.
pub const NAMES_LINES_SINCE: Release = Release(2, 1, 330);

impl Release {
    /// Its results name the lines they answered, and it reports its state (the table above).
    pub fn names_its_lines(self) -> bool {
        self >= NAMES_LINES_SINCE
    }

    /// `/clear` sends `conversation_reset`, and a budget's end says `budget_exhausted` (the table
    /// above: both came with the same releases as [`Release::names_its_lines`]).
    pub fn reports_resets_and_budgets(self) -> bool {
        self >= NAMES_LINES_SINCE
    }

    /// A resumed or forked session keeps its first process's system prompt.
    pub fn keeps_first_system_prompt(self) -> bool {
        self >= NAMES_LINES_SINCE
    }
}

/// True when a process started this way may not show its own `--append-system-prompt` (2.1.330
/// and later keep the session's first one): what it must see now goes in its first message.
pub fn memory_in_first_message(start: &SessionStart) -> bool {
    matches!(start, SessionStart::Resume(_) | SessionStart::Fork(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_lines_of_every_shape_parse() {
        assert_eq!(
            Release::parse("2.1.330 (Claude Code)"),
            Some(Release(2, 1, 330))
        );
        assert_eq!(Release::parse("v2.1.197"), Some(Release(2, 1, 197)));
        assert_eq!(Release::parse("2.1"), None);
        assert_eq!(Release::parse("claude 2.1.3"), None);
        assert_eq!(Release::parse(""), None);
    }

    #[test]
    fn the_range_is_inclusive_at_both_ends() {
        assert_eq!(OLDEST_TESTED.standing(), Standing::Tested);
        assert_eq!(NEWEST_TESTED.standing(), Standing::Tested);
        assert_eq!(Release(2, 1, 100).standing(), Standing::Older);
        assert_eq!(Release(2, 0, 999).standing(), Standing::Older);
        assert_eq!(Release(2, 2, 0).standing(), Standing::Newer);
        assert!(PINNED.standing() == Standing::Tested);
    }

    #[test]
    fn only_resumed_and_forked_processes_take_memory_in_their_first_message() {
        assert!(memory_in_first_message(&SessionStart::Resume("a".into())));
        assert!(memory_in_first_message(&SessionStart::Fork("a".into())));
        assert!(!memory_in_first_message(&SessionStart::New));
        assert!(!memory_in_first_message(&SessionStart::NewWithId(
            "a".into()
        )));
    }
}
