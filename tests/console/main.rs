//! Tier 2, the conversation end to end: the `ollim-bot console` binary, driven over pipes like
//! a script would, with the real `claude` CLI talking to a mock Messages API on 127.0.0.1.
//!
//! Needs the binary (`make claude`, or `OLLIM_CLAUDE_BIN`); a missing binary fails with
//! instructions, never a skip.

#[allow(dead_code)]
#[path = "../support/mod.rs"]
mod support;

mod agent_tools;
mod background;
mod bot;
mod bypass_as_root;
mod chat;
mod commands;
mod conversation;
mod crash_loop;
mod detached_delete;
mod docs_server;
mod early_lines;
mod failures;
mod feedback;
mod forks;
mod full_disk;
mod full_disk_commands;
mod google;
mod google_auth;
mod history;
mod memory;
mod memory_flush;
mod names;
mod outside_text;
mod own_command;
mod priority;
mod quiet;
mod recovery;
mod runs;
mod sandbox;
mod secrets;
mod setup;
mod shutdown;
mod single_instance;
mod state_bounds;
mod subagents;
mod usage;
