//! What `/config` offers as a key's values (Discord's autocomplete for `value`): the values a
//! key can take where they are few (models, thinking modes, permission modes, on/off, hours),
//! a handful of sensible ones for the counts, and always the default, marked "(default)".
//! Anything else can still be typed; `set` judges it.

use super::google::{DEFAULT_CALENDAR, DEFAULT_TASK_LIST};
use super::keys::Key;
use super::spend_keys::dollars;
use super::RuntimeConfig;

/// A cap typed the way `/config` takes it: `10.00` or `off`.
fn cap(cents: Option<u64>) -> String {
    cents.map_or_else(|| "off".to_owned(), dollars)
}

/// One value to offer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueChoice {
    /// What `/config` is sent.
    pub value: String,
    /// It is the key's default.
    pub default: bool,
}

impl ValueChoice {
    /// What the list shows: `off (default)`, or the value alone.
    pub fn label(&self) -> String {
        if self.default {
            format!("{} (default)", self.value)
        } else {
            self.value.clone()
        }
    }
}

impl Key {
    /// The default, typed the way `/config` takes it (`1800`, `off`, `dontAsk`).
    pub fn default_value(self) -> String {
        let d = RuntimeConfig::default();
        let n = |v: u64| v.to_string();
        match self {
            Key::ModelMain | Key::ModelFork => "default".to_owned(),
            Key::ThinkingMain => "off".to_owned(),
            Key::ThinkingFork => "adaptive".to_owned(),
            Key::BgForkTimeout => n(d.bg_fork_timeout_secs),
            Key::ForkIdleTimeout => n(d.fork_idle_timeout_mins),
            Key::PermissionMode => d.permission_mode.as_str().to_owned(),
            Key::AutoUpdate => if d.auto_update { "on" } else { "off" }.to_owned(),
            Key::AutoUpdateInterval => n(d.auto_update_interval_mins),
            Key::AutoUpdateHour => d.auto_update_hour.to_string(),
            Key::BgForkLimit => n(d.bg_fork_limit),
            Key::CatchUpWindow => n(d.catch_up_window_mins),
            Key::FailureAlertAfter => n(d.failure_alert_after),
            Key::FailureAlertCooldown => n(d.failure_alert_cooldown_mins),
            Key::QuietHours => "off".to_owned(),
            Key::MainIdleRelease => n(d.main_idle_release_mins),
            Key::GoogleCalendars => DEFAULT_CALENDAR.to_owned(),
            Key::GoogleTaskList => DEFAULT_TASK_LIST.to_owned(),
            Key::SpendDailyUsd => cap(d.spend_daily_cents),
            Key::SpendMonthlyUsd => cap(d.spend_monthly_cents),
            Key::JobMaxCost => dollars(d.job_max_cost_cents),
            Key::JobMaxTurns => n(d.job_max_turns),
            Key::MemoryFlush => if d.memory_flush { "on" } else { "off" }.to_owned(),
            Key::Sandbox => d.sandbox.as_str().to_owned(),
            Key::MemoryFlushAt => n(d.memory_flush_at_pct),
        }
    }

    /// The values to offer, the default among them (first for the counts), at most 25
    /// (Discord's limit).
    pub fn value_choices(self) -> Vec<ValueChoice> {
        let words: Vec<String> = match self {
            Key::ModelMain | Key::ModelFork => words(&["opus", "sonnet", "haiku", "default"]),
            Key::ThinkingMain | Key::ThinkingFork => {
                words(&["off", "adaptive", "8000", "32000", "64000"])
            }
            Key::PermissionMode => {
                words(&["dontAsk", "default", "acceptEdits", "bypassPermissions"])
            }
            Key::AutoUpdate => words(&["on", "off"]),
            Key::AutoUpdateHour => (0..24).map(|h| h.to_string()).collect(),
            Key::QuietHours => words(&["off", "22:00-08:00", "23:00-07:00", "21:00-09:00"]),
            Key::BgForkTimeout => words(&["600", "1800", "3600", "7200"]),
            Key::ForkIdleTimeout => words(&["5", "10", "30", "60"]),
            Key::AutoUpdateInterval => words(&["30", "60", "360", "1440"]),
            Key::BgForkLimit => words(&["1", "2", "3", "5", "10"]),
            Key::CatchUpWindow => words(&["0", "60", "120", "1440"]),
            Key::FailureAlertAfter => words(&["1", "2", "3", "5"]),
            Key::FailureAlertCooldown => words(&["0", "60", "360", "1440"]),
            Key::MainIdleRelease => words(&["0", "10", "30", "60"]),
            Key::GoogleCalendars => words(&[DEFAULT_CALENDAR]),
            Key::GoogleTaskList => words(&[DEFAULT_TASK_LIST]),
            Key::SpendDailyUsd => words(&["off", "2.00", "5.00", "10.00", "25.00"]),
            Key::SpendMonthlyUsd => words(&["off", "20.00", "50.00", "100.00", "300.00"]),
            Key::JobMaxCost => words(&["0.25", "0.50", "1.00", "2.00", "5.00"]),
            Key::JobMaxTurns => words(&["10", "20", "40", "80"]),
            Key::MemoryFlush => words(&["on", "off"]),
            Key::Sandbox => words(&["auto", "on", "off"]),
            Key::MemoryFlushAt => words(&["50", "60", "70", "80", "90"]),
        };
        let default = self.default_value();
        let mut choices: Vec<ValueChoice> = words
            .into_iter()
            .map(|value| ValueChoice {
                default: value == default,
                value,
            })
            .collect();
        if !choices.iter().any(|c| c.default) {
            choices.insert(
                0,
                ValueChoice {
                    value: default,
                    default: true,
                },
            );
        }
        choices.truncate(25);
        choices
    }
}

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|w| (*w).to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::runtime_config::google::GoogleTargets;

    #[test]
    fn every_key_offers_its_default_once_and_every_offer_is_accepted() {
        for key in Key::ALL {
            let choices = key.value_choices();
            assert!(!choices.is_empty() && choices.len() <= 25, "{key:?}");
            let defaults: Vec<_> = choices.iter().filter(|c| c.default).collect();
            assert_eq!(defaults.len(), 1, "{key:?}: {choices:?}");
            assert_eq!(defaults[0].value, key.default_value());
            for c in &choices {
                let mut config = RuntimeConfig::default();
                let mut google = GoogleTargets::default();
                assert!(
                    super::super::keys::apply(&mut config, &mut google, key, &c.value).is_ok(),
                    "{key:?} refuses its own offer {:?}",
                    c.value
                );
            }
            // The default typed back leaves the settings as they were.
            let mut config = RuntimeConfig::default();
            let mut google = GoogleTargets::default();
            super::super::keys::apply(&mut config, &mut google, key, &key.default_value()).unwrap();
            assert_eq!(config, RuntimeConfig::default(), "{key:?}");
        }
    }

    #[test]
    fn models_are_offered_with_the_default_marked() {
        let labels: Vec<String> = Key::ModelMain
            .value_choices()
            .iter()
            .map(ValueChoice::label)
            .collect();
        assert_eq!(labels, ["opus", "sonnet", "haiku", "default (default)"]);
        let thinking: Vec<String> = Key::ThinkingFork
            .value_choices()
            .iter()
            .map(ValueChoice::label)
            .collect();
        assert_eq!(thinking[1], "adaptive (default)");
    }
}
