//! Forks of the conversation (SPEC §6).
//!
//! [`background`]: one BackgroundFork actor per fired background job — a disposable fork of the
//! main session (or a fresh session when the job is `isolated`) that talks to the user only
//! through the agent tools and reports back through pending updates.

pub mod background;
mod background_host;
pub mod background_tools;
