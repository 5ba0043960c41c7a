//! The Claude Code CLI: one process driven over stream-json, and the project settings it reads.
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`brain`] | the CLI driver: start, send, read events, interrupt, stop |
//! | [`claude_settings`] | the CLI's `.claude/settings.json` in the data directory |
//! | [`sandbox`] | the CLI's OS sandbox for the agent's commands: support, the `sandbox` setting |

pub mod brain;
pub mod claude_settings;
pub mod sandbox;
