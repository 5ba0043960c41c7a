//! ollim-bot's actors and domain.
//!
//! Map of the crate (each actor owns its state; nobody else touches it):
//!
//! | module | owns | messages |
//! | --- | --- | --- |
//! | [`supervisor`] | start order, restarts, lifecycle logs | — |
//! | [`ping_budget`] | the token bucket, `state/ping_budget.json` | `TryUse`, `RecordCritical`, `Status`, `Configure` |
//! | [`pending_updates`] | the queue, `state/pending_updates.json` | `Append`, `Peek`, `Pop`, `Clear` |
//! | [`scheduler`] | routine/reminder files, next fire times | `Reload`, `Upcoming`, fired jobs go out as `FireJob` |
//!
//! Domain modules without an actor: [`jobs`] (routines and reminders on disk), [`settings`]
//! (the environment), [`data_dir`] (layout and git), [`state_file`] (atomic writes),
//! [`clock`] (injectable time).
#![warn(missing_docs)]

pub mod brain;
pub mod clock;
pub mod data_dir;
pub mod jobs;
pub mod pending_updates;
pub mod ping_budget;
pub mod runtime_config;
pub mod scheduler;
pub mod settings;
pub mod skills;
pub mod spec_docs;
pub mod state_file;
pub mod subagents;
pub mod supervisor;
pub mod system_prompt;
pub mod webhook_spec;
