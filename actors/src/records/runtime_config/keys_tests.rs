use super::*;
use crate::claude::brain::{PermissionMode, Thinking};

#[test]
fn both_spellings_name_the_same_key() {
    for key in Key::ALL {
        assert_eq!(Key::from_name(key.name()), Some(key));
        assert_eq!(Key::from_name(key.field()), Some(key));
    }
    assert_eq!(Key::from_name("model"), None);
}

#[test]
fn thinking_accepts_named_modes_and_real_budgets_only() {
    assert_eq!(parse_thinking("OFF"), Ok(Thinking::Disabled));
    assert_eq!(parse_thinking("adaptive"), Ok(Thinking::Adaptive));
    assert_eq!(parse_thinking("32000"), Ok(Thinking::Budget(32000)));
    assert_eq!(parse_thinking("128000"), Ok(Thinking::Budget(128_000)));
    for bad in ["maybe", "0", "-1", "1023", "8k", "", "128001", "4294967296"] {
        assert_eq!(parse_thinking(bad), Err(()), "{bad:?}");
    }
}

#[test]
fn switches_hours_and_counts_reject_out_of_range_values() {
    assert_eq!(parse_switch("Yes"), Ok(true));
    assert_eq!(parse_switch("0"), Ok(false));
    assert_eq!(parse_switch("maybe"), Err(()));
    assert_eq!(parse_hour("0"), Ok(0));
    assert_eq!(parse_hour("23"), Ok(23));
    assert_eq!(parse_hour("24"), Err(()));
    let timeout = Key::BgForkTimeout;
    assert_eq!(parse_count(timeout, "0"), Err(()));
    assert_eq!(parse_count(timeout, "-5"), Err(()));
    assert_eq!(parse_count(timeout, "90"), Ok(90));
    assert_eq!(parse_count(timeout, "86400"), Ok(86_400));
    assert_eq!(parse_count(timeout, "86401"), Err(()));
    assert_eq!(parse_count(Key::ForkIdleTimeout, "1441"), Err(()));
    assert_eq!(parse_count(Key::AutoUpdateInterval, "10081"), Err(()));
    assert_eq!(parse_count(Key::BgForkLimit, "0"), Err(()));
    assert_eq!(parse_count(Key::BgForkLimit, "21"), Err(()));
    assert_eq!(parse_count(Key::CatchUpWindow, "0"), Ok(0));
    assert_eq!(parse_count(Key::FailureAlertAfter, "0"), Err(()));
    assert_eq!(parse_count(Key::FailureAlertCooldown, "10081"), Err(()));
    assert_eq!(parse_count(Key::MainIdleRelease, "0"), Ok(0));
    assert_eq!(parse_count(Key::MainIdleRelease, "1441"), Err(()));
    assert_eq!(
        parse_count(Key::AutoUpdateHour, "3"),
        Err(()),
        "not a count"
    );
}

#[test]
fn quiet_hours_are_off_or_a_window() {
    assert_eq!(parse_quiet_hours("OFF"), Ok(None));
    assert_eq!(
        parse_quiet_hours("22:00-08:00").map(|w| w.map(|w| w.to_string())),
        Ok(Some("22:00-08:00".to_owned()))
    );
    for bad in ["sometimes", "22:00", "24:00-08:00", "08:00-08:00"] {
        assert_eq!(parse_quiet_hours(bad), Err(()), "{bad:?}");
    }
}

#[test]
fn permission_modes_are_the_four_resting_ones() {
    assert_eq!(
        parse_permission_mode("dontask"),
        Ok(PermissionMode::DontAsk)
    );
    assert_eq!(
        parse_permission_mode("bypassPermissions"),
        Ok(PermissionMode::BypassPermissions)
    );
    assert_eq!(parse_permission_mode("plan"), Err(()));
    assert_eq!(parse_permission_mode("admin"), Err(()));
}

#[test]
fn memory_flush_is_a_switch_and_its_threshold_a_bounded_percentage() {
    let mut config = RuntimeConfig::default();
    let mut google = GoogleTargets::default();
    assert_eq!(label(&config, &google, Key::MemoryFlush), "on");
    assert_eq!(label(&config, &google, Key::MemoryFlushAt), "70%");
    apply(&mut config, &mut google, Key::MemoryFlush, "off").unwrap();
    assert!(!config.memory_flush);
    apply(&mut config, &mut google, Key::MemoryFlushAt, "85%").unwrap();
    assert_eq!(config.memory_flush_at_pct, 85);
    apply(&mut config, &mut google, Key::MemoryFlushAt, " 60 ").unwrap();
    assert_eq!(config.memory_flush_at_pct, 60);
    for bad in ["9", "96", "70 percent", "-1", ""] {
        assert_eq!(
            apply(&mut config, &mut google, Key::MemoryFlushAt, bad),
            Err(()),
            "{bad:?}"
        );
    }
    assert_eq!(
        config.memory_flush_at_pct, 60,
        "a refused value changes nothing"
    );
}
