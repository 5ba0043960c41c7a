//! `state/config.json` as the original program writes it (SPEC §12): reading each field
//! leniently (older boolean thinking values, unknown fields ignored, an unusable value replaced
//! by its default) and writing the same field names, order and value types back.

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::claude::brain::Thinking;
use crate::jobs::ModelChoice;

use super::google::GoogleTargets;
use super::keys::Key;
use super::spend_keys;
use super::values;
use super::RuntimeConfig;

/// The file as written: the original's field names, order and value types.
#[derive(Debug, Serialize)]
pub(super) struct ConfigFile {
    model_main: Option<&'static str>,
    model_fork: Option<&'static str>,
    thinking_main: String,
    thinking_fork: String,
    bg_fork_timeout: u64,
    fork_idle_timeout: u64,
    permission_mode: &'static str,
    auto_update: bool,
    auto_update_interval: u64,
    auto_update_hour: u8,
    bg_fork_limit: u64,
    catch_up_window: u64,
    failure_alert_after: u64,
    failure_alert_cooldown: u64,
    quiet_hours: Option<String>,
    main_idle_release: u64,
    google_calendars: String,
    google_task_list: String,
    spend_daily_usd: Option<f64>,
    spend_monthly_usd: Option<f64>,
    job_max_cost: f64,
    job_max_turns: u64,
    memory_flush: bool,
    memory_flush_at: u64,
    sandbox: &'static str,
}

impl ConfigFile {
    /// The file for `c` and the Google keys `g`.
    pub(super) fn new(c: &RuntimeConfig, g: &GoogleTargets) -> Self {
        let thinking = |t: Thinking| match t {
            Thinking::Disabled => "off".to_owned(),
            Thinking::Adaptive => "adaptive".to_owned(),
            Thinking::Budget(tokens) => tokens.to_string(),
        };
        ConfigFile {
            model_main: c.model_main.map(ModelChoice::as_str),
            model_fork: c.model_fork.map(ModelChoice::as_str),
            thinking_main: thinking(c.thinking_main),
            thinking_fork: thinking(c.thinking_fork),
            bg_fork_timeout: c.bg_fork_timeout_secs,
            fork_idle_timeout: c.fork_idle_timeout_mins,
            permission_mode: c.permission_mode.as_str(),
            auto_update: c.auto_update,
            auto_update_interval: c.auto_update_interval_mins,
            auto_update_hour: c.auto_update_hour,
            bg_fork_limit: c.bg_fork_limit,
            catch_up_window: c.catch_up_window_mins,
            failure_alert_after: c.failure_alert_after,
            failure_alert_cooldown: c.failure_alert_cooldown_mins,
            quiet_hours: c.quiet_hours.map(|w| w.to_string()),
            main_idle_release: c.main_idle_release_mins,
            google_calendars: g.calendars_label(),
            google_task_list: g.task_list().to_owned(),
            spend_daily_usd: c.spend_daily_cents.map(spend_keys::cents_to_json),
            spend_monthly_usd: c.spend_monthly_cents.map(spend_keys::cents_to_json),
            job_max_cost: spend_keys::cents_to_json(c.job_max_cost_cents),
            job_max_turns: c.job_max_turns,
            memory_flush: c.memory_flush,
            memory_flush_at: c.memory_flush_at_pct,
            sandbox: c.sandbox.as_str(),
        }
    }
}

/// Reads the file's object field by field; only a non-object is an error (quarantined).
pub(super) fn parse_file(
    path: &Path,
    bytes: &[u8],
) -> Result<(RuntimeConfig, GoogleTargets), String> {
    let object: Map<String, Value> = match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(object)) => object,
        Ok(_) => return Err("not a JSON object".to_owned()),
        Err(e) => return Err(e.to_string()),
    };
    let mut config = RuntimeConfig::default();
    for key in Key::ALL {
        if matches!(key, Key::GoogleCalendars | Key::GoogleTaskList) {
            continue;
        }
        let Some(value) = object.get(key.field()) else {
            continue;
        };
        if read_field(&mut config, key, value).is_err() {
            tracing::warn!(
                file = %path.display(),
                field = key.field(),
                %value,
                "unusable runtime config value; using the default"
            );
        }
    }
    Ok((config, GoogleTargets::from_object(path, &object)))
}

/// Sets one field from its JSON value, as the original wrote it (or older versions did).
fn read_field(config: &mut RuntimeConfig, key: Key, value: &Value) -> Result<(), ()> {
    let as_count = |v: &Value| v.as_u64().ok_or(()).and_then(|n| values::count(key, n));
    match key {
        Key::ModelMain | Key::ModelFork => {
            let model = match value {
                Value::Null => None,
                Value::String(s) => values::parse_model(s)?,
                _ => return Err(()),
            };
            match key {
                Key::ModelMain => config.model_main = model,
                _ => config.model_fork = model,
            }
        }
        Key::ThinkingMain | Key::ThinkingFork => {
            let thinking = match value {
                Value::Bool(true) => Thinking::Adaptive,
                Value::Bool(false) => Thinking::Disabled,
                Value::String(s) if s == "off" => Thinking::Disabled,
                Value::String(s) if s == "adaptive" => Thinking::Adaptive,
                Value::String(s) => values::thinking_budget(s.parse().map_err(|_| ())?)?,
                Value::Number(n) => values::thinking_budget(n.as_u64().ok_or(())?)?,
                _ => return Err(()),
            };
            match key {
                Key::ThinkingMain => config.thinking_main = thinking,
                _ => config.thinking_fork = thinking,
            }
        }
        Key::BgForkTimeout => config.bg_fork_timeout_secs = as_count(value)?,
        Key::ForkIdleTimeout => config.fork_idle_timeout_mins = as_count(value)?,
        Key::AutoUpdateInterval => config.auto_update_interval_mins = as_count(value)?,
        Key::MainIdleRelease => config.main_idle_release_mins = as_count(value)?,
        Key::QuietHours => {
            config.quiet_hours = match value {
                Value::Null => None,
                Value::String(s) => values::parse_quiet_hours(s)?,
                _ => return Err(()),
            }
        }
        Key::AutoUpdateHour => {
            config.auto_update_hour = value
                .as_u64()
                .and_then(|h| u8::try_from(h).ok())
                .filter(|h| *h <= 23)
                .ok_or(())?;
        }
        Key::PermissionMode => {
            config.permission_mode = values::parse_permission_mode(value.as_str().ok_or(())?)?;
        }
        Key::AutoUpdate => config.auto_update = value.as_bool().ok_or(())?,
        Key::BgForkLimit => config.bg_fork_limit = as_count(value)?,
        Key::CatchUpWindow => config.catch_up_window_mins = as_count(value)?,
        Key::FailureAlertAfter => config.failure_alert_after = as_count(value)?,
        Key::FailureAlertCooldown => config.failure_alert_cooldown_mins = as_count(value)?,
        Key::SpendDailyUsd => config.spend_daily_cents = spend_keys::cents_from_json(key, value)?,
        Key::SpendMonthlyUsd => {
            config.spend_monthly_cents = spend_keys::cents_from_json(key, value)?;
        }
        Key::JobMaxCost => {
            config.job_max_cost_cents = spend_keys::cents_from_json(key, value)?.ok_or(())?;
        }
        Key::JobMaxTurns => config.job_max_turns = as_count(value)?,
        Key::MemoryFlush => config.memory_flush = value.as_bool().ok_or(())?,
        Key::Sandbox => {
            config.sandbox =
                crate::claude::sandbox::SandboxSetting::parse(value.as_str().ok_or(())?)
                    .ok_or(())?;
        }
        Key::MemoryFlushAt => config.memory_flush_at_pct = as_count(value)?,
        // Read by `GoogleTargets::from_object`.
        Key::GoogleCalendars | Key::GoogleTaskList => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude::brain::PermissionMode;

    fn parse(json: &str) -> Result<RuntimeConfig, String> {
        parse_file(Path::new("config.json"), json.as_bytes()).map(|(c, _)| c)
    }

    fn file(c: &RuntimeConfig) -> ConfigFile {
        ConfigFile::new(c, &GoogleTargets::default())
    }

    #[test]
    fn the_originals_file_loads_with_every_field() {
        let config = parse(
            r#"{"model_main": "opus", "model_fork": null, "thinking_main": "off",
                "thinking_fork": "16000", "bg_fork_timeout": 3600, "fork_idle_timeout": 5,
                "permission_mode": "acceptEdits", "auto_update": true,
                "auto_update_interval": 30, "auto_update_hour": 4, "retired_key": 42}"#,
        )
        .unwrap();
        assert_eq!(
            config,
            RuntimeConfig {
                model_main: Some(ModelChoice::Opus),
                model_fork: None,
                thinking_main: Thinking::Disabled,
                thinking_fork: Thinking::Budget(16000),
                bg_fork_timeout_secs: 3600,
                fork_idle_timeout_mins: 5,
                permission_mode: PermissionMode::AcceptEdits,
                auto_update: true,
                auto_update_interval_mins: 30,
                auto_update_hour: 4,
                ..RuntimeConfig::default()
            }
        );
    }

    #[test]
    fn boolean_thinking_from_older_versions_still_reads() {
        let config = parse(r#"{"thinking_main": true, "thinking_fork": false}"#).unwrap();
        assert_eq!(config.thinking_main, Thinking::Adaptive);
        assert_eq!(config.thinking_fork, Thinking::Disabled);
    }

    #[test]
    fn an_unusable_field_takes_its_default_and_the_rest_load() {
        let config = parse(
            r#"{"model_main": "gpt4", "auto_update_hour": 30, "fork_idle_timeout": 0,
                "permission_mode": "plan", "model_fork": "sonnet"}"#,
        )
        .unwrap();
        let defaults = RuntimeConfig::default();
        assert_eq!(config.model_main, defaults.model_main);
        assert_eq!(config.auto_update_hour, defaults.auto_update_hour);
        assert_eq!(
            config.fork_idle_timeout_mins,
            defaults.fork_idle_timeout_mins
        );
        assert_eq!(config.permission_mode, defaults.permission_mode);
        assert_eq!(config.model_fork, Some(ModelChoice::Sonnet));
    }

    #[test]
    fn values_out_of_the_commands_bounds_take_their_defaults() {
        let config = parse(
            r#"{"bg_fork_timeout": 18446744073709551615, "fork_idle_timeout": 100000,
                "auto_update_interval": 10081, "thinking_main": "500",
                "thinking_fork": 4294967295}"#,
        )
        .unwrap();
        assert_eq!(config, RuntimeConfig::default());
        let edge = parse(
            r#"{"bg_fork_timeout": 86400, "fork_idle_timeout": 1440,
                "auto_update_interval": 10080, "thinking_main": "1024",
                "thinking_fork": 128000}"#,
        )
        .unwrap();
        assert_eq!(
            (
                edge.bg_fork_timeout_secs,
                edge.fork_idle_timeout_mins,
                edge.auto_update_interval_mins
            ),
            (86_400, 1_440, 10_080)
        );
        assert_eq!(edge.thinking_main, Thinking::Budget(1024));
        assert_eq!(edge.thinking_fork, Thinking::Budget(128_000));
    }

    #[test]
    fn quiet_hours_and_idle_release_round_trip_and_bad_values_take_defaults() {
        let config = RuntimeConfig {
            quiet_hours: "22:30-07:15".parse().ok(),
            main_idle_release_mins: 0,
            ..RuntimeConfig::default()
        };
        let json = serde_json::to_string(&file(&config)).unwrap();
        assert!(
            json.contains(r#""quiet_hours":"22:30-07:15","main_idle_release":0,"#),
            "{json}"
        );
        assert_eq!(parse(&json).unwrap(), config);
        let bad = parse(r#"{"quiet_hours": "late", "main_idle_release": 5000}"#).unwrap();
        assert_eq!(bad, RuntimeConfig::default());
    }

    #[test]
    fn only_a_json_object_is_a_config_file() {
        assert!(parse("[1, 2]").is_err());
        assert!(parse("{nope").is_err());
    }

    #[test]
    fn written_file_has_the_originals_fields_order_and_types() {
        let config = RuntimeConfig {
            model_main: Some(ModelChoice::Haiku),
            thinking_fork: Thinking::Budget(8000),
            ..RuntimeConfig::default()
        };
        let json = serde_json::to_string(&file(&config)).unwrap();
        assert_eq!(
            json,
            r#"{"model_main":"haiku","model_fork":null,"thinking_main":"off","thinking_fork":"8000","bg_fork_timeout":1800,"fork_idle_timeout":10,"permission_mode":"dontAsk","auto_update":false,"auto_update_interval":60,"auto_update_hour":6,"bg_fork_limit":3,"catch_up_window":120,"failure_alert_after":2,"failure_alert_cooldown":360,"quiet_hours":null,"main_idle_release":30,"google_calendars":"primary","google_task_list":"@default","spend_daily_usd":10.0,"spend_monthly_usd":null,"job_max_cost":1.0,"job_max_turns":40,"memory_flush":true,"memory_flush_at":70,"sandbox":"auto"}"#
        );
        assert_eq!(parse(&json).unwrap(), config);
    }
}
