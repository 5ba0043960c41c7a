//! The scheduler: what fires routines and reminders, and the prompts it sends (SPEC §9).
//!
//! Prompt building is pure and split by concern: [`preamble`] (the background preamble),
//! [`forward`] (the forward schedule inside it), [`skill_section`] (skill instructions with
//! `` !`command` `` expansion), [`prompt`] (tags and whole job prompts), [`webhook_prompt`]
//! and [`fork_prompt`].

pub mod fork_prompt;
pub mod forward;
pub mod preamble;
pub mod prompt;
pub mod skill_section;
pub mod webhook_prompt;

#[cfg(test)]
mod test_jobs;
