//! Forks of the conversation (SPEC §6).
//!
//! [`background`]: one BackgroundFork actor per fired background job — a disposable fork of the
//! main session (or a fresh session when the job is `isolated`) that talks to the user only
//! through the agent tools and reports back through pending updates. `background_tools`: the
//! tools it is started with and their backend; `tool_actions`: what it does for each call;
//! `background_host`: its answers to the CLI (no questions, the file hooks, the Stop hook).

pub mod background;
mod background_host;
pub mod background_tools;
pub mod end;
pub mod tool_actions;
