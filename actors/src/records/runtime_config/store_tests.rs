use super::*;

fn store_in(dir: &Path) -> ConfigStore {
    ConfigStore::load(&DataDir::new(dir)).unwrap()
}

#[test]
fn without_a_file_every_setting_is_its_default() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_in(tmp.path());
    assert_eq!(*store.values(), RuntimeConfig::default());
    let shown = store.show_all();
    let lines: Vec<&str> = shown.lines().collect();
    let values: Vec<&str> = lines
        .iter()
        .map(|l| l.split(" — ").next().unwrap_or_default())
        .collect();
    assert_eq!(
        values,
        [
            "model.main: cli default (default)",
            "model.fork: same as main (default)",
            "thinking.main: off (default)",
            "thinking.fork: adaptive (default)",
            "bg_fork_timeout: 1800s (default)",
            "fork_idle_timeout: 10m (default)",
            "permission_mode: dontAsk (default)",
            "auto_update: off (default)",
            "auto_update_interval: 60m (default)",
            "auto_update_hour: 6:00 (default)",
            "bg_fork_limit: 3 (default)",
            "catch_up_window: 120m (default)",
            "failure_alert_after: 2 (default)",
            "failure_alert_cooldown: 360m (default)",
            "quiet_hours: off (default)",
            "main_idle_release: 30m (default)",
            "google_calendars: primary (default)",
            "google_task_list: @default (default)",
            "spend_daily_usd: $10.00 (default)",
            "spend_monthly_usd: off (default)",
            "job_max_cost: $1.00 (default)",
            "job_max_turns: 40 (default)",
            "memory_flush: on (default)",
            "memory_flush_at: 70% (default)",
            "sandbox: auto (default)",
        ]
    );
    // Each key shows what it accepts.
    assert_eq!(
        lines[0],
        "model.main: cli default (default) — opus, sonnet, haiku or default"
    );
    assert_eq!(
        lines[6],
        "permission_mode: dontAsk (default) — dontAsk, default, acceptEdits or bypassPermissions"
    );
    assert!(
        shown.chars().count() < 2000,
        "one Discord message: {}",
        shown.len()
    );
    assert!(!store.path().exists(), "reading must not create the file");
}

#[test]
fn every_key_can_be_set_read_back_and_survives_a_reload() {
    let cases = [
        ("model.main", "Opus", "model.main: opus"),
        ("model.fork", "haiku", "model.fork: haiku"),
        ("thinking.main", "8000", "thinking.main: 8000 tokens"),
        ("thinking.fork", "off", "thinking.fork: off"),
        ("bg_fork_timeout", "3600", "bg_fork_timeout: 3600s"),
        ("fork_idle_timeout", "5", "fork_idle_timeout: 5m"),
        (
            "permission_mode",
            "acceptEdits",
            "permission_mode: acceptEdits",
        ),
        ("auto_update", "on", "auto_update: on"),
        ("auto_update_interval", "30", "auto_update_interval: 30m"),
        ("auto_update_hour", "0", "auto_update_hour: 0:00"),
        ("bg_fork_limit", "1", "bg_fork_limit: 1"),
        ("catch_up_window", "0", "catch_up_window: 0m"),
        ("failure_alert_after", "5", "failure_alert_after: 5"),
        (
            "failure_alert_cooldown",
            "60",
            "failure_alert_cooldown: 60m",
        ),
        ("quiet_hours", "22:00-8:00", "quiet_hours: 22:00-08:00"),
        ("main_idle_release", "0", "main_idle_release: never"),
        (
            "google_calendars",
            "primary, work@example.com",
            "google_calendars: primary,work@example.com",
        ),
        ("google_task_list", "MDc3NDk", "google_task_list: MDc3NDk"),
        ("spend_daily_usd", "off", "spend_daily_usd: off"),
        ("spend_monthly_usd", "$75.5", "spend_monthly_usd: $75.50"),
        ("job_max_cost", "0.40", "job_max_cost: $0.40"),
        ("job_max_turns", "15", "job_max_turns: 15"),
        ("memory_flush", "off", "memory_flush: off"),
        ("memory_flush_at", "80%", "memory_flush_at: 80%"),
        ("sandbox", "On", "sandbox: on"),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let mut store = store_in(tmp.path());
    for (key, value, line) in cases {
        let confirmation = store.set(key, value).unwrap();
        assert_eq!(confirmation, line.replacen(": ", " set to ", 1));
        assert_eq!(store.get(key).unwrap(), line);
        assert_eq!(
            store_in(tmp.path()).get(key).unwrap(),
            line,
            "{key} after reload"
        );
    }
    assert!(!store.show_all().contains("(default)"));
}

#[test]
fn an_empty_calendar_list_falls_back_to_primary_marked_default() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = store_in(tmp.path());
    store.set("google_calendars", "work@example.com").unwrap();
    assert_eq!(store.google().write_calendar(), "work@example.com");
    assert_eq!(
        store.set("google_calendars", " , ").unwrap(),
        "google_calendars set to primary (default)"
    );
    assert_eq!(store.google().calendars(), ["primary"]);
    store.set("google_task_list", "list9").unwrap();
    assert_eq!(
        google::read(&DataDir::new(tmp.path())).unwrap().task_list(),
        "list9",
        "the command line reads what /config saved"
    );
}

#[test]
fn setting_a_default_value_again_is_marked_default() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = store_in(tmp.path());
    store.set("model_main", "sonnet").unwrap();
    assert_eq!(
        store.set("model.main", "default").unwrap(),
        "model.main set to cli default (default)"
    );
    store.set("bg_fork_timeout", "1800").unwrap();
    assert_eq!(
        store.get("bg_fork_timeout").unwrap(),
        "bg_fork_timeout: 1800s (default)"
    );
}

#[test]
fn invalid_values_are_refused_naming_key_and_allowed_values() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = store_in(tmp.path());
    let cases = [
        ("model.main", "gpt4", "opus, sonnet, haiku or default"),
        ("thinking.main", "maybe", "off, adaptive, or a token budget"),
        ("thinking.fork", "0", "off, adaptive, or a token budget"),
        ("bg_fork_timeout", "0", "from 1 to 86400"),
        ("bg_fork_timeout", "86401", "from 1 to 86400"),
        ("fork_idle_timeout", "-1", "from 1 to 1440"),
        ("auto_update_interval", "99999", "from 1 to 10080"),
        ("thinking.main", "200000", "from 1024 to 128000"),
        (
            "permission_mode",
            "admin",
            "dontAsk, default, acceptEdits or bypassPermissions",
        ),
        ("auto_update", "sometimes", "on or off"),
        ("auto_update_hour", "24", "a whole number from 0 to 23"),
        ("bg_fork_limit", "0", "from 1 to 20"),
        ("catch_up_window", "1h", "from 0 (never) to 10080"),
        ("failure_alert_after", "0", "from 1 to 100"),
        ("failure_alert_cooldown", "-5", "from 0 to 10080"),
        (
            "quiet_hours",
            "22:00",
            "off, or a local window such as 22:00-08:00",
        ),
        (
            "quiet_hours",
            "8:00-8:00",
            "off, or a local window such as 22:00-08:00",
        ),
        ("main_idle_release", "1441", "from 0 (never) to 1440"),
        ("main_idle_release", "-1", "from 0 (never) to 1440"),
        (
            "google_calendars",
            "my work",
            "calendar ids separated by commas",
        ),
        ("google_task_list", "a,b", "one task list id"),
    ];
    for (key, value, expected) in cases {
        let err = store.set(key, value).unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("{key}: {value:?} is not allowed (expected ")),
            "{message}"
        );
        assert!(message.contains(expected), "{message}");
    }
    assert_eq!(*store.values(), RuntimeConfig::default());
    assert!(!store.path().exists(), "a refused value must not be saved");
}

#[test]
fn unknown_key_is_refused_with_the_list_of_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = store_in(tmp.path());
    let err = store.set("colour", "blue").unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown config key \"colour\" (keys: model.main, model.fork, thinking.main, \
         thinking.fork, bg_fork_timeout, fork_idle_timeout, permission_mode, auto_update, \
         auto_update_interval, auto_update_hour, bg_fork_limit, catch_up_window, \
         failure_alert_after, failure_alert_cooldown, quiet_hours, main_idle_release, \
         google_calendars, google_task_list, spend_daily_usd, spend_monthly_usd, job_max_cost, \
         job_max_turns, memory_flush, memory_flush_at, sandbox)"
    );
    assert!(matches!(
        store.get("colour"),
        Err(ConfigError::UnknownKey { .. })
    ));
}

#[test]
fn corrupt_file_is_moved_aside_and_defaults_used() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    let path = data.state_file(FILE_NAME);
    std::fs::create_dir_all(data.state()).unwrap();
    std::fs::write(&path, "{\"model_main\": ").unwrap();
    let store = ConfigStore::load(&data).unwrap();
    assert_eq!(*store.values(), RuntimeConfig::default());
    assert!(!path.exists());
    let aside: Vec<_> = std::fs::read_dir(data.state())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("config.json.corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1);
}

#[test]
fn durations_and_fork_model_follow_the_settings() {
    let mut config = RuntimeConfig::default();
    assert_eq!(config.main_idle_release(), Some(Duration::from_secs(1800)));
    config.main_idle_release_mins = 0;
    assert_eq!(config.main_idle_release(), None);
    assert_eq!(config.bg_fork_timeout(), Duration::from_secs(1800));
    assert_eq!(config.fork_idle_timeout(), Duration::from_secs(600));
    assert_eq!(config.effective_fork_model(), None);
    config.model_main = Some(ModelChoice::Sonnet);
    assert_eq!(config.effective_fork_model(), Some(ModelChoice::Sonnet));
    config.model_fork = Some(ModelChoice::Haiku);
    assert_eq!(config.effective_fork_model(), Some(ModelChoice::Haiku));
}

#[test]
fn a_value_that_cannot_be_saved_is_refused_naming_the_file_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("state").join(FILE_NAME);
    let mut store = ConfigStore::load_from(&path).unwrap();
    // The state directory cannot be made: a plain file holds its name.
    std::fs::write(tmp.path().join("state"), "").unwrap();
    let refused = store.set("bg_fork_limit", "5").unwrap_err().to_string();
    assert!(
        refused.starts_with(&format!("couldn't save {}: ", path.display()))
            && refused.ends_with(" — nothing changed"),
        "{refused}"
    );
    assert_eq!(*store.values(), RuntimeConfig::default());
    assert_eq!(
        store.get("bg_fork_limit").unwrap(),
        "bg_fork_limit: 3 (default)"
    );
}

#[test]
fn the_sandbox_setting_is_read_without_touching_the_file() {
    use crate::claude::sandbox::SandboxSetting;
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    assert_eq!(sandbox_setting_in(&data), SandboxSetting::Auto);
    let path = data.state_file(FILE_NAME);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, r#"{"sandbox": "off"}"#).unwrap();
    assert_eq!(sandbox_setting_in(&data), SandboxSetting::Off);
    std::fs::write(&path, "[1, 2]").unwrap();
    assert_eq!(sandbox_setting_in(&data), SandboxSetting::Auto);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "[1, 2]");
}
