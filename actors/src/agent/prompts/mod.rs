//! Every prompt the bot writes for the agent, as pure functions of typed inputs (SPEC §6, §9,
//! §13): [`tag`] (tags and the late and interrupted markers), [`job`] (chain context, whole
//! routine and reminder prompts),
//! [`preamble`] (what a background fork is told before its task), [`forward`] (the forward
//! schedule's window rules and lines), [`skill_section`] (skills with bounded `` !`command` ``
//! expansion), [`slash`] (a body that invokes a skill as `/name` goes first), [`webhook`] (the
//! fenced webhook prompt) and [`fork`] (`[fork-started]`,
//! `[fork-timeout]`, `[button]`).
//!
//! Nothing here decides when something runs or talks to an actor: the scheduler says when, the
//! job runner gathers the facts (budget, busy, schedule) and calls these.

pub mod fork;
pub mod forward;
pub mod job;
pub mod preamble;
pub mod skill_section;
pub mod slash;
pub mod tag;
pub mod webhook;

#[cfg(test)]
pub(crate) mod test_jobs;
