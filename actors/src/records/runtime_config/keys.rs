//! The `/config` keys (SPEC §12, and ours from §16): their names, what each accepts when set,
//! and how each value is shown. Which value each key takes lives here, reading and showing the
//! values in `values.rs`; storage lives in the parent module.

use super::google::GoogleTargets;
use super::spend_keys;
use super::values::{
    model_label, parse_count, parse_hour, parse_model, parse_permission_mode, parse_quiet_hours,
    parse_switch, parse_thinking, thinking_label,
};
use super::RuntimeConfig;
use crate::claude::sandbox::SandboxSetting;

/// One runtime setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// `model.main`: the main session's model (none = the CLI's default).
    ModelMain,
    /// `model.fork`: interactive forks' model (none = same as main).
    ModelFork,
    /// `thinking.main`: extended thinking in the main session.
    ThinkingMain,
    /// `thinking.fork`: extended thinking in interactive forks.
    ThinkingFork,
    /// `bg_fork_timeout`: longest a background fork may run, in seconds.
    BgForkTimeout,
    /// `fork_idle_timeout`: minutes before an idle interactive fork is nudged.
    ForkIdleTimeout,
    /// `permission_mode`: the default permission mode.
    PermissionMode,
    /// `auto_update`: pull and restart when new commits appear.
    AutoUpdate,
    /// `auto_update_interval`: minutes between update checks.
    AutoUpdateInterval,
    /// `auto_update_hour`: the hour (0-23) at which updates are applied.
    AutoUpdateHour,
    /// `bg_fork_limit` *(ours)*: background CLIs (forks, reflections) running at once; later ones wait.
    BgForkLimit,
    /// `catch_up_window` *(ours)*: minutes a missed routine time may still run late.
    CatchUpWindow,
    /// `failure_alert_after` *(ours)*: failed runs in a row before the owner is told.
    FailureAlertAfter,
    /// `failure_alert_cooldown` *(ours)*: minutes of quiet after a failure alert.
    FailureAlertCooldown,
    /// `quiet_hours` *(ours)*: the local window in which background pings are refused unless critical.
    QuietHours,
    /// `main_idle_release` *(ours)*: minutes of idleness before the conversation's CLI process is closed.
    MainIdleRelease,
    /// `google_calendars`: the calendars `cal today|upcoming` read, comma-separated; the first
    /// takes writes.
    GoogleCalendars,
    /// `google_task_list`: the Google Tasks list commands and buttons use.
    GoogleTaskList,
    /// `spend_daily_usd` *(ours, SPEC §19)*: what unattended jobs may spend from local midnight.
    SpendDailyUsd,
    /// `spend_monthly_usd` *(ours)*: the same per calendar month.
    SpendMonthlyUsd,
    /// `job_max_cost` *(ours)*: one run's cost limit unless its job sets `max-cost`.
    JobMaxCost,
    /// `job_max_turns` *(ours)*: one run's model-turn limit unless its job sets `max-turns`.
    JobMaxTurns,
    /// `memory_flush` *(ours)*: the silent `[memory-flush]` turn before forgetting.
    MemoryFlush,
    /// `memory_flush_at` *(ours)*: the share of the window at which the conversation flushes once.
    MemoryFlushAt,
    /// `sandbox` *(ours, SPEC §20)*: the OS sandbox for the agent's commands: auto, on, off.
    Sandbox,
}

/// The smallest thinking budget the model accepts.
pub const MIN_THINKING_BUDGET: u32 = 1024;
/// The largest thinking budget accepted: the most output any model offers.
pub const MAX_THINKING_BUDGET: u32 = 128_000;

impl Key {
    /// Every key, in the order `/config` lists them.
    pub const ALL: [Key; 25] = [
        Key::ModelMain,
        Key::ModelFork,
        Key::ThinkingMain,
        Key::ThinkingFork,
        Key::BgForkTimeout,
        Key::ForkIdleTimeout,
        Key::PermissionMode,
        Key::AutoUpdate,
        Key::AutoUpdateInterval,
        Key::AutoUpdateHour,
        Key::BgForkLimit,
        Key::CatchUpWindow,
        Key::FailureAlertAfter,
        Key::FailureAlertCooldown,
        Key::QuietHours,
        Key::MainIdleRelease,
        Key::GoogleCalendars,
        Key::GoogleTaskList,
        Key::SpendDailyUsd,
        Key::SpendMonthlyUsd,
        Key::JobMaxCost,
        Key::JobMaxTurns,
        Key::MemoryFlush,
        Key::MemoryFlushAt,
        Key::Sandbox,
    ];

    /// The name users type (`model.main`).
    pub fn name(self) -> &'static str {
        match self {
            Key::ModelMain => "model.main",
            Key::ModelFork => "model.fork",
            Key::ThinkingMain => "thinking.main",
            Key::ThinkingFork => "thinking.fork",
            Key::BgForkTimeout => "bg_fork_timeout",
            Key::ForkIdleTimeout => "fork_idle_timeout",
            Key::PermissionMode => "permission_mode",
            Key::AutoUpdate => "auto_update",
            Key::AutoUpdateInterval => "auto_update_interval",
            Key::AutoUpdateHour => "auto_update_hour",
            Key::BgForkLimit => "bg_fork_limit",
            Key::CatchUpWindow => "catch_up_window",
            Key::FailureAlertAfter => "failure_alert_after",
            Key::FailureAlertCooldown => "failure_alert_cooldown",
            Key::QuietHours => "quiet_hours",
            Key::MainIdleRelease => "main_idle_release",
            Key::GoogleCalendars => "google_calendars",
            Key::GoogleTaskList => "google_task_list",
            Key::SpendDailyUsd => "spend_daily_usd",
            Key::SpendMonthlyUsd => "spend_monthly_usd",
            Key::JobMaxCost => "job_max_cost",
            Key::JobMaxTurns => "job_max_turns",
            Key::MemoryFlush => "memory_flush",
            Key::Sandbox => "sandbox",
            Key::MemoryFlushAt => "memory_flush_at",
        }
    }

    /// The field's name in `state/config.json` (`model_main`).
    pub fn field(self) -> &'static str {
        match self {
            Key::ModelMain => "model_main",
            Key::ModelFork => "model_fork",
            Key::ThinkingMain => "thinking_main",
            Key::ThinkingFork => "thinking_fork",
            other => other.name(),
        }
    }

    /// One line on what the key controls, for slash-command help.
    pub fn description(self) -> &'static str {
        match self {
            Key::ModelMain => "model of the main session",
            Key::ModelFork => "model of interactive forks",
            Key::ThinkingMain => "extended thinking in the main session",
            Key::ThinkingFork => "extended thinking in interactive forks",
            Key::BgForkTimeout => "longest a background fork may run (seconds)",
            Key::ForkIdleTimeout => "idle time before an interactive fork is nudged (minutes)",
            Key::PermissionMode => "default permission mode",
            Key::AutoUpdate => "pull and restart when new commits appear",
            Key::AutoUpdateInterval => "time between update checks (minutes)",
            Key::AutoUpdateHour => "hour of the day at which updates are applied (0-23)",
            Key::BgForkLimit => "background forks running at once; later ones wait their turn",
            Key::CatchUpWindow => "how late a missed routine may still run (minutes, 0 = never)",
            Key::FailureAlertAfter => "failed runs of one job in a row before you are told",
            Key::FailureAlertCooldown => "quiet time after a failure alert (minutes)",
            Key::QuietHours => "local window in which background pings wait (e.g. 22:00-08:00)",
            Key::MainIdleRelease => {
                "idle time before the conversation's CLI process is closed (minutes, 0 = never)"
            }
            Key::GoogleCalendars => {
                "calendars `ollim-bot cal` reads, comma-separated; the first takes new events"
            }
            Key::GoogleTaskList => "Google Tasks list `ollim-bot tasks` and task buttons use",
            Key::SpendDailyUsd => "what background work may spend per day (USD, from midnight)",
            Key::SpendMonthlyUsd => "what background work may spend per calendar month (USD)",
            Key::JobMaxCost => "one job run's cost limit unless the job sets max-cost (USD)",
            Key::JobMaxTurns => "one job run's model turns unless the job sets max-turns",
            Key::MemoryFlush => {
                "save what to remember (context.md, a session snapshot) before /clear, /compact \
                 and a full context"
            }
            Key::MemoryFlushAt => "share of the context window at which that save happens once",
            Key::Sandbox => {
                "the OS sandbox for the assistant's commands (auto: on where bubblewrap and socat \
                 or Seatbelt are there)"
            }
        }
    }

    /// The values `set` accepts, as told to the user when a value is refused.
    pub fn expected(self) -> &'static str {
        match self {
            Key::ModelMain | Key::ModelFork => "opus, sonnet, haiku or default",
            Key::ThinkingMain | Key::ThinkingFork => {
                "off, adaptive, or a token budget from 1024 to 128000 (e.g. 8000)"
            }
            Key::BgForkTimeout => "a whole number of seconds from 1 to 86400 (a day)",
            Key::ForkIdleTimeout => "a whole number of minutes from 1 to 1440 (a day)",
            Key::AutoUpdateInterval => "a whole number of minutes from 1 to 10080 (a week)",
            Key::PermissionMode => "dontAsk, default, acceptEdits or bypassPermissions",
            Key::AutoUpdate => "on or off",
            Key::AutoUpdateHour => "a whole number from 0 to 23",
            Key::BgForkLimit => "a whole number from 1 to 20",
            Key::CatchUpWindow => "a whole number of minutes from 0 (never) to 10080 (a week)",
            Key::FailureAlertAfter => "a whole number from 1 to 100",
            Key::FailureAlertCooldown => "a whole number of minutes from 0 to 10080 (a week)",
            Key::QuietHours => "off, or a local window such as 22:00-08:00 (it may cross midnight)",
            Key::MainIdleRelease => "a whole number of minutes from 0 (never) to 1440 (a day)",
            Key::GoogleCalendars => {
                "calendar ids separated by commas, such as primary,work@example.com (up to 20; \
                 empty means primary; `ollim-bot cal calendars` lists them)"
            }
            Key::GoogleTaskList => "one task list id without spaces, or @default",
            Key::SpendDailyUsd | Key::SpendMonthlyUsd => {
                "off, or dollars (0.01 to 100000) such as 10.00"
            }
            Key::JobMaxCost => "dollars (0.01 to 10000) such as 0.50",
            Key::JobMaxTurns => "1 to 1000",
            Key::MemoryFlush => "on or off",
            Key::Sandbox => "auto, on or off",
            Key::MemoryFlushAt => "10 to 95 (percent), such as 70",
        }
    }

    /// The whole numbers a counted key accepts, the same whether typed in `/config` or read
    /// from the file; `None` for keys that are not counts.
    pub fn count_range(self) -> Option<std::ops::RangeInclusive<u64>> {
        match self {
            Key::BgForkTimeout => Some(1..=86_400),
            Key::ForkIdleTimeout => Some(1..=1_440),
            Key::AutoUpdateInterval => Some(1..=10_080),
            Key::BgForkLimit => Some(1..=20),
            Key::CatchUpWindow => Some(0..=10_080),
            Key::FailureAlertAfter => Some(1..=100),
            Key::FailureAlertCooldown => Some(0..=10_080),
            Key::MainIdleRelease => Some(0..=1_440),
            Key::JobMaxTurns => Some(1..=1_000),
            Key::MemoryFlushAt => Some(10..=95),
            _ => None,
        }
    }

    /// The key for a user-typed name or a file field name (`model.main` or `model_main`).
    pub fn from_name(name: &str) -> Option<Key> {
        let name = name.trim();
        Key::ALL
            .into_iter()
            .find(|k| k.name() == name || k.field() == name)
    }
}

/// Sets `key` in `config` (or, for the Google keys, in `google`) from a user-typed value;
/// `Err(())` when the value is not one the key accepts (the caller words the refusal with
/// [`Key::expected`]).
pub(super) fn apply(
    config: &mut RuntimeConfig,
    google: &mut GoogleTargets,
    key: Key,
    raw: &str,
) -> Result<(), ()> {
    let value = raw.trim();
    match key {
        Key::ModelMain => config.model_main = parse_model(value)?,
        Key::ModelFork => config.model_fork = parse_model(value)?,
        Key::ThinkingMain => config.thinking_main = parse_thinking(value)?,
        Key::ThinkingFork => config.thinking_fork = parse_thinking(value)?,
        Key::BgForkTimeout => config.bg_fork_timeout_secs = parse_count(key, value)?,
        Key::ForkIdleTimeout => config.fork_idle_timeout_mins = parse_count(key, value)?,
        Key::PermissionMode => config.permission_mode = parse_permission_mode(value)?,
        Key::AutoUpdate => config.auto_update = parse_switch(value)?,
        Key::AutoUpdateInterval => config.auto_update_interval_mins = parse_count(key, value)?,
        Key::AutoUpdateHour => config.auto_update_hour = parse_hour(value)?,
        Key::BgForkLimit => config.bg_fork_limit = parse_count(key, value)?,
        Key::CatchUpWindow => config.catch_up_window_mins = parse_count(key, value)?,
        Key::FailureAlertAfter => config.failure_alert_after = parse_count(key, value)?,
        Key::FailureAlertCooldown => {
            config.failure_alert_cooldown_mins = parse_count(key, value)?;
        }
        Key::QuietHours => config.quiet_hours = parse_quiet_hours(value)?,
        Key::MainIdleRelease => config.main_idle_release_mins = parse_count(key, value)?,
        Key::GoogleCalendars => google.set_calendars(value)?,
        Key::GoogleTaskList => google.set_task_list(value)?,
        Key::SpendDailyUsd => config.spend_daily_cents = spend_keys::parse_cap(key, value)?,
        Key::SpendMonthlyUsd => config.spend_monthly_cents = spend_keys::parse_cap(key, value)?,
        Key::JobMaxCost => config.job_max_cost_cents = spend_keys::parse_cents(key, value)?,
        Key::JobMaxTurns => config.job_max_turns = parse_count(key, value)?,
        Key::MemoryFlush => config.memory_flush = parse_switch(value)?,
        Key::Sandbox => config.sandbox = SandboxSetting::parse(value).ok_or(())?,
        Key::MemoryFlushAt => {
            let pct = value.strip_suffix('%').unwrap_or(value).trim();
            config.memory_flush_at_pct = parse_count(key, pct)?;
        }
    }
    Ok(())
}

/// How `key`'s value in `config` (or `google`) is shown (without the default marker).
pub(super) fn label(config: &RuntimeConfig, google: &GoogleTargets, key: Key) -> String {
    match key {
        Key::ModelMain => model_label(config.model_main, "cli default"),
        Key::ModelFork => model_label(config.model_fork, "same as main"),
        Key::ThinkingMain => thinking_label(config.thinking_main),
        Key::ThinkingFork => thinking_label(config.thinking_fork),
        Key::BgForkTimeout => format!("{}s", config.bg_fork_timeout_secs),
        Key::ForkIdleTimeout => format!("{}m", config.fork_idle_timeout_mins),
        Key::PermissionMode => config.permission_mode.as_str().to_owned(),
        Key::AutoUpdate => if config.auto_update { "on" } else { "off" }.to_owned(),
        Key::AutoUpdateInterval => format!("{}m", config.auto_update_interval_mins),
        Key::AutoUpdateHour => format!("{}:00", config.auto_update_hour),
        Key::BgForkLimit => config.bg_fork_limit.to_string(),
        Key::CatchUpWindow => format!("{}m", config.catch_up_window_mins),
        Key::FailureAlertAfter => config.failure_alert_after.to_string(),
        Key::FailureAlertCooldown => format!("{}m", config.failure_alert_cooldown_mins),
        Key::QuietHours => config
            .quiet_hours
            .map_or_else(|| "off".to_owned(), |w| w.to_string()),
        Key::MainIdleRelease => match config.main_idle_release_mins {
            0 => "never".to_owned(),
            minutes => format!("{minutes}m"),
        },
        Key::GoogleCalendars => google.calendars_label(),
        Key::GoogleTaskList => google.task_list().to_owned(),
        Key::SpendDailyUsd => spend_keys::cap_label(config.spend_daily_cents),
        Key::SpendMonthlyUsd => spend_keys::cap_label(config.spend_monthly_cents),
        Key::JobMaxCost => spend_keys::cap_label(Some(config.job_max_cost_cents)),
        Key::JobMaxTurns => config.job_max_turns.to_string(),
        Key::MemoryFlush => if config.memory_flush { "on" } else { "off" }.to_owned(),
        Key::Sandbox => config.sandbox.as_str().to_owned(),
        Key::MemoryFlushAt => format!("{}%", config.memory_flush_at_pct),
    }
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
