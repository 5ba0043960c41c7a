//! Tier 3, the Discord surface end to end: the `ollim-bot` binary's real serenity/poise client
//! against a fake Discord on 127.0.0.1 (REST through `OLLIM_DISCORD_PROXY`, a `ws://` gateway),
//! with the real `claude` CLI talking to the mock Messages API. `fake_smoke` first proves the fake
//! itself with a bare serenity client.
//!
//! Needs the binary (`make claude`, or `OLLIM_CLAUDE_BIN`); a missing binary fails with
//! instructions, never a skip.

#[allow(dead_code)]
#[path = "../support/mod.rs"]
mod support;

mod approvals;
mod background;
mod bot;
mod buttons;
mod commands;
mod config_commands;
mod conversation;
mod expired_reply;
mod fake_smoke;
mod feedback;
mod files;
mod forks;
mod google;
mod idle_fork;
mod lifecycle;
mod memory;
mod messages;
mod routines;
mod serenity_client;
mod setup;
mod shutdown;
mod sign_in;
mod snooze;
mod trust;
mod update;
