//! Forks of the conversation (SPEC §6).
//!
//! [`background`]: one BackgroundFork actor per fired background job — a disposable fork of the
//! main session (or a fresh session when the job is `isolated`) that talks to the user only
//! through the agent tools and reports back through pending updates. Its folder also holds its
//! start, its CLI's options, what it does with its process's events, its answers to the CLI (no
//! questions, the file hooks, the Stop hook) and the tools it is started with and their backend
//! ([`background::tools`]); [`tool_actions`]: what it does for each tool call; [`end`]: how its
//! run ended, as the job runner hears it.

pub mod background;
pub mod end;
pub mod tool_actions;
