//! What the bot remembers about itself in `state/`, each file with one owner: the ping budget,
//! the update queue, sessions, the run history, what turns cost, and the `/config` values.
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`ping_budget`] | the `PingBudget` actor: the refilling ping bucket and each job's recent pings |
//! | [`pending_updates`] | the `PendingUpdates` actor: background updates waiting for the conversation |
//! | [`snooze`] | snoozing a ping or a reminder's answer |
//! | [`quiet_hours`] | the daily window in which background jobs may not ping |
//! | [`sessions`] | the session bookkeeping files (the conversation's id, forks, history) |
//! | [`runs`] | the `RunLog` actor: the run history and the runs in progress |
//! | [`usage`] | the `UsageLog` actor: what the conversation's turns cost, and `/usage` |
//! | [`spend`] | what unattended work spent today and this month, against the caps |
//! | [`runtime_config`] | the `/config` values in `state/config.json` |

pub mod pending_updates;
pub mod ping_budget;
pub mod quiet_hours;
pub mod runs;
pub mod runtime_config;
pub mod sessions;
pub mod snooze;
pub mod spend;
pub mod usage;
