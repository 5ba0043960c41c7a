//! An interactive fork left idle (SPEC §6): after `fork_idle_timeout` a visible note ("fork
//! idle for 10 minutes — checking in...") and a `[fork-timeout]` prompt; idle again, a stronger
//! prompt to exit. The bot never ends a fork for idleness; when the agent ends one that has heard
//! nothing from the owner since a nudge, [`fork_closed_idle_note`] says so
//! ([`MainSession::maybe_end_fork`]). The owner's fork buttons count as activity ([`OwnerActed`]).

use std::time::{Duration, Instant};

use actix::prelude::*;

use super::conversation::Outgoing;
use super::fork_role::Role;
use super::turn::TurnKind;
use super::MainSession;
use crate::agent::prompts::fork as fork_prompt;
use crate::conversation::surface::SurfaceEvent;

/// The visible note when a fork has been idle for `fork_idle_timeout` (`minutes`).
pub fn fork_idle_note(minutes: u32) -> String {
    format!(
        "-# fork idle for {} — checking in...",
        fork_prompt::minutes(minutes)
    )
}

/// *(ours)* The line when the agent ends a fork that was nudged for idleness and has heard
/// nothing from the owner since: idle for `minutes` in all.
pub fn fork_closed_idle_note(minutes: u32) -> String {
    format!(
        "-# fork closed after {} idle.",
        fork_prompt::minutes(minutes)
    )
}

/// The owner pressed one of the fork's buttons: that is activity, not idleness.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct OwnerActed;

/// What a fork idle for the `nudges`+1-th time gets: the visible note (the first time) and
/// the prompt for the agent; nothing after the second, stronger prompt — the fork is never
/// ended for idleness, the agent decides.
fn idle_nudge(nudges: u32, user_name: &str, minutes: u32) -> Option<(Option<String>, String)> {
    match nudges {
        0 => Some((
            Some(fork_idle_note(minutes)),
            fork_prompt::fork_idle_prompt(user_name, minutes),
        )),
        1 => Some((None, fork_prompt::fork_forced_exit_prompt(minutes))),
        _ => None,
    }
}

/// The idle check's period: a nudge comes at most this late.
pub const IDLE_CHECK: Duration = Duration::from_secs(15);

impl MainSession {
    /// Fork: nudges the agent after idleness (a visible note first), twice at most; the agent
    /// decides how the fork ends.
    pub(super) fn idle_check(&mut self, ctx: &mut Context<Self>) {
        let busy = self.turns.busy();
        let Role::Fork(state) = &mut self.forks.role else {
            return;
        };
        if busy || state.last_activity.elapsed() < state.idle {
            return;
        }
        state.last_activity = Instant::now();
        let minutes = (state.idle.as_secs() / 60) as u32;
        let Some((note, text)) = idle_nudge(state.nudges, &self.config.user_name, minutes) else {
            return;
        };
        state.nudges += 1;
        if let Some(note) = note {
            self.show(SurfaceEvent::Notice(note));
        }
        self.submit(Outgoing::own(text, TurnKind::Message), ctx);
    }
}

impl Handler<OwnerActed> for MainSession {
    type Result = ();
    fn handle(&mut self, _msg: OwnerActed, _ctx: &mut Self::Context) {
        if let Role::Fork(state) = &mut self.forks.role {
            state.last_activity = Instant::now();
            state.nudges = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idleness_shows_a_note_then_nudges_twice_and_never_ends_the_fork() {
        let (note, first) = idle_nudge(0, "Sam", 10).unwrap();
        assert_eq!(
            note.as_deref(),
            Some("-# fork idle for 10 minutes — checking in...")
        );
        assert_eq!(
            idle_nudge(0, "Sam", 1).unwrap().0.as_deref(),
            Some("-# fork idle for 1 minute — checking in...")
        );
        assert_eq!(
            fork_closed_idle_note(2),
            "-# fork closed after 2 minutes idle."
        );
        assert!(first.starts_with("[fork-timeout]"), "{first}");
        let (note, second) = idle_nudge(1, "Sam", 10).unwrap();
        assert_eq!(note, None);
        assert!(second.contains("20 minutes"), "{second}");
        assert_eq!(idle_nudge(2, "Sam", 10), None);
        assert_eq!(idle_nudge(7, "Sam", 10), None);
    }
}
