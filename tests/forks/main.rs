//! Tier 2, background work end to end: the real actors in-process (supervisor, scheduler, main
//! session, background forks) with the real `claude` CLI against a mock Messages API on
//! 127.0.0.1. Time for the scheduler is a manual clock, so jobs fire when a test says so.

#[allow(dead_code)]
#[path = "../support/mod.rs"]
mod support;

mod background_prompt;
mod broken_jobs;
mod budget;
mod chain;
mod foreground_line;
mod fork_buttons;
mod fork_limit;
mod fork_model;
mod idle_release;
mod interactive;
mod offered;
mod original_data;
mod permissions;
mod persistent;
mod proactive;
mod reflections;
mod reporting;
mod restrictions;
mod retries;
mod rig;
mod routine_validator;
mod save_guard;
mod skills;
mod spend;
mod start_retry;
mod subagents;
mod tool_sets;
