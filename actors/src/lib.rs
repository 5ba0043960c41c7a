//! ollim-bot's actors and domain.
//!
//! Map of the crate (each actor owns its state; nobody else touches it):
//!
//! | module | owns | messages |
//! | --- | --- | --- |
//! | [`supervisor`] | start order, restarts, lifecycle logs | `GetHandles`, `RestartChild`, `Shutdown` |
//! | [`ping_budget`] | the token bucket, `state/ping_budget.json`; each job's pings of the last day, `state/sent_pings.json` | `TryUse`, `TrySend`, `NoteSent`, `RecordCritical`, `Status`, `FullStatus`, `Snapshot`, `Configure` |
//! | [`pending_updates`] | the queue, `state/pending_updates.json` | `Append`, `Peek`, `Pop`, `Clear` |
//! | [`main_session`] | the main Claude session, its turns, "busy", its idle release | `Say`, `Command`, `FireJob`, `IsBusy`, `QuietHoursNow`, `ProcessRunning`, `ForkTimeout`, `Close` |
//! | [`job_runner`] | the one fire path: condition gates, screening, prompt facts, starting background forks | `RunJob`, `Runs`; sends `FireJob` |
//! | [`runs`] | the run history `state/runs.jsonl`, runs in progress `state/runs_open.json` (`RunLog`) | `Open`, `Mark`, `Close`, `Record`, `TakeInterrupted`, `History`, `LatestRuns`, `Considered` |
//! | [`usage`] | what the conversation's and interactive forks' turns cost, `state/usage.jsonl` (`UsageLog`); the `/usage` report over it and the run history | `RecordTurn` |
//! | [`spend`] | nothing of its own: what jobs spent today and this month, summed by the run log from `state/runs.jsonl` | `SpendSoFar` (to `RunLog`) |
//! | [`google`] | the `/google-auth` flow, Google buttons, the revoked notice (`GoogleAccount`) | `StartConsent`, `PasteRedirect`, `PressGoogleButton` |
//! | [`scheduler`] | routine/reminder files, next fire times, broken files told once (`state/broken_jobs.json`) | `Reload`, `Upcoming`, `ForwardItems`, `FireDue`; sends `RunJob` |
//! | [`fork`] | one background job's session, its ping count, its deadline | `ToolAction`, `MayStop` |
//! | [`reflection`] | writing each finished background run's reflection, one at a time (`Reflector`) | `Reflect` |
//! | [`control_socket`] | `state/bot.sock`: `ollim-bot routine run` reaching the running bot (tokio, not an actor) | sends `RunNow` |
//! | [`webhook_server`] | `POST /hook/<id>` (actix-web); its `Admission` actor owns each hook's rate window and `state/webhook_deliveries.json` | `CountRequest`, `ClaimDelivery`; accepted hooks go out as `RunJob` |
//!
//! Domain modules without an actor: [`routines_view`] (`/routines`: gathered from the scheduler,
//! the run log and the job runner, rendered for each surface, and its buttons), [`prompts`]
//! (every prompt as a pure function), [`brain`] (the
//! Claude CLI driver), [`jobs`] (routines and reminders on disk), [`permissions`] (tool
//! restrictions, approval policy, the file hooks), [`skills`], [`webhook_spec`],
//! [`webhook_screen`] (prompt-injection screening), [`webhook_auth`] (signed hooks),
//! [`untrusted_fence`] (the fence around outside text), [`outside_reads`] (which forks read it), [`sessions`] (session bookkeeping files),
//! [`tools`] (the `discord` MCP server's agent tools and their refusals), [`buttons`],
//! [`system_prompt`], [`subagents`], [`claude_settings`] (the CLI's `.claude/settings.json`:
//! auto-memory off), [`runtime_config`], [`quiet_hours`], [`snooze`],
//! [`spec_docs`], [`surface`] (what the conversation shows), [`settings`] (the environment),
//! [`redaction`] (secret values kept out of Discord and the log), [`child_env`] (the allow-listed environment of every `claude` child),
//! [`shell_words`] (a command line split into words without a shell), [`data_dir`] (layout and git),
//! [`downloads`] (files the owner sends, kept in `downloads/`), [`memory_flush`] (the
//! `[memory-flush]` prompt and the session snapshots it leaves), [`memory_search`] (BM25 over
//! `context.md`, snapshots and reflections),
//! [`state_file`] (atomic writes), [`disk_space`] (a full disk told to the owner once), [`usd`] (dollar amounts as typed and shown, in cents), [`clock`] (injectable time), [`cron`] (five-field cron
//! schedules: the scheduler's timers, the routine validator's check).
//!
//! No import circle spans two of these modules (`import_graph`'s test checks it).
#![warn(missing_docs)]

pub mod brain;
pub mod bundled_skills;
pub mod buttons;
pub mod child_env;
pub mod claude_settings;
pub mod clock;
#[cfg(unix)]
pub mod control_socket;
pub mod cpu_priority;
pub mod cron;
pub mod data_dir;
pub mod disk_space;
pub mod downloads;
pub mod env_file;
pub mod fork;
pub mod google;
#[cfg(test)]
mod import_graph;
pub mod job_runner;
pub mod jobs;
pub mod local_days;
pub mod main_session;
pub mod memory;
pub mod memory_flush;
pub mod memory_search;
pub mod onboarding;
pub mod outside_reads;
pub mod pending_updates;
pub mod permissions;
pub mod ping_budget;
pub mod prompts;
pub mod quiet_hours;
pub mod redaction;
pub mod reflection;
pub mod routine_sessions;
pub mod routines_view;
pub mod runs;
pub mod runtime_config;
pub mod scheduler;
pub mod sessions;
pub mod settings;
pub mod shell_words;
pub mod skills;
pub mod snooze;
pub mod spec_docs;
pub mod spend;
pub mod state_file;
pub mod subagent_binding;
pub mod subagents;
pub mod supervisor;
pub mod surface;
pub mod system_prompt;
pub mod tools;
pub mod untrusted_fence;
pub mod usage;
pub mod usd;
pub mod webhook_auth;
pub mod webhook_screen;
pub mod webhook_server;
pub mod webhook_spec;
