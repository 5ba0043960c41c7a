//! ollim-bot's actors and domain, in nine groups. Each group may use the groups above it in this
//! table and none below (`import_graph`'s test holds that), so reading down is reading from the
//! ground up. Each group's `mod.rs` has the table of its modules; every actor owns its state and
//! nobody else touches it.
//!
//! | group | what it holds | actors |
//! | --- | --- | --- |
//! | [`base`] | settings, the data directory, atomic state files, clock, money, secrets kept out of text | — |
//! | [`claude`] | the Claude Code CLI driver and the settings file it reads | — |
//! | [`jobs`] | routines, reminders, webhook specs and skills on disk; cron | — |
//! | [`records`] | what `state/` remembers: ping budget, updates queue, sessions, runs, usage, spend, `/config` | `PingBudget`, `PendingUpdates`, `SessionRecords`, `RunLog`, `UsageLog` |
//! | [`agent`] | what the agent is given and may do: prompts, system prompt, memory, tools, permissions, the fence | — |
//! | [`conversation`] | the one persistent conversation and what it shows | `MainSession` |
//! | [`google`] | Tasks, Calendar and Gmail through one OAuth | `GoogleAccount` |
//! | [`scheduling`] | when jobs fire, the one fire path, background forks, reflections | `Scheduler`, `JobRunner`, `BackgroundFork`, `Reflector` |
//! | [`bot`] | the supervisor and the doors in: webhook server, control socket, onboarding | `Supervisor`, `Admission` |
#![warn(missing_docs)]

pub mod agent;
pub mod base;
pub mod bot;
pub mod claude;
pub mod conversation;
pub mod google;
pub mod jobs;
pub mod records;
pub mod scheduling;

#[cfg(test)]
mod import_graph;
