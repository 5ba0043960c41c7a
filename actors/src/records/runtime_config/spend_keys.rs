//! The spend keys' values *(ours, SPEC §19)*: amounts of US dollars kept as whole cents (so the
//! settings stay exact and comparable), typed as `10`, `10.00`, `$0.50`, or `off` where a cap
//! may be switched off.

use super::keys::Key;

/// The largest daily or monthly cap accepted, in cents ($100,000).
const MAX_CAP_CENTS: u64 = 10_000_000;
/// The largest per-job cost accepted, in cents ($10,000).
const MAX_JOB_CENTS: u64 = 1_000_000;

/// What a dollar key accepts, in cents; `None` for keys that are not amounts.
pub(super) fn cents_range(key: Key) -> Option<std::ops::RangeInclusive<u64>> {
    match key {
        Key::SpendDailyUsd | Key::SpendMonthlyUsd => Some(1..=MAX_CAP_CENTS),
        Key::JobMaxCost => Some(1..=MAX_JOB_CENTS),
        _ => None,
    }
}

/// Dollars as typed (`10`, `10.5`, `$0.50`; at most two decimals) in cents, within `key`'s
/// range.
pub(super) fn parse_cents(key: Key, value: &str) -> Result<u64, ()> {
    crate::base::usd::cents(value)
        .ok_or(())
        .and_then(|c| in_range(key, c))
}

/// `off` (or an empty value) for no cap, else dollars as [`parse_cents`] reads them.
pub(super) fn parse_cap(key: Key, value: &str) -> Result<Option<u64>, ()> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "off" | "none" | "null" => Ok(None),
        _ => parse_cents(key, value).map(Some),
    }
}

/// `cents` if within `key`'s range.
pub(super) fn in_range(key: Key, cents: u64) -> Result<u64, ()> {
    match cents_range(key) {
        Some(range) if range.contains(&cents) => Ok(cents),
        _ => Err(()),
    }
}

pub use crate::base::usd::dollars;

/// A cap as shown: `$10.00`, or `off`.
pub(super) fn cap_label(cap: Option<u64>) -> String {
    cap.map_or_else(|| "off".to_owned(), crate::base::usd::shown)
}

/// A dollar value from the file: a number (`10.0`), a string as typed, or null for off.
pub(super) fn cents_from_json(key: Key, value: &serde_json::Value) -> Result<Option<u64>, ()> {
    match value {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::Number(n) => {
            let usd = n.as_f64().ok_or(())?;
            if !usd.is_finite() || usd < 0.0 {
                return Err(());
            }
            // Whole cents: the file holds what `/config` wrote, two decimals at most.
            let cents = (usd * 100.0).round();
            if cents > u64::MAX as f64 {
                return Err(());
            }
            in_range(key, cents as u64).map(Some)
        }
        serde_json::Value::String(s) => parse_cap(key, s),
        _ => Err(()),
    }
}

/// Cents as the file's number of dollars.
pub(super) fn cents_to_json(cents: u64) -> f64 {
    cents as f64 / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_are_read_to_the_cent_within_bounds() {
        let k = Key::SpendDailyUsd;
        assert_eq!(parse_cents(k, "10"), Ok(1000));
        assert_eq!(parse_cents(k, "10.5"), Ok(1050));
        assert_eq!(parse_cents(k, "$0.05"), Ok(5));
        assert_eq!(parse_cents(k, ".25"), Ok(25));
        assert_eq!(parse_cents(k, "100000"), Ok(10_000_000));
        for bad in [
            "",
            "0",
            "0.00",
            "-1",
            "1.005",
            "ten",
            "1e3",
            "100000.01",
            "1.2.3",
            ".",
        ] {
            assert_eq!(parse_cents(k, bad), Err(()), "{bad:?}");
        }
        assert_eq!(parse_cents(Key::JobMaxCost, "10000.01"), Err(()));
        assert_eq!(parse_cap(k, "OFF"), Ok(None));
        assert_eq!(parse_cap(k, "2.50"), Ok(Some(250)));
    }

    #[test]
    fn labels_and_the_file_round_trip() {
        assert_eq!(cap_label(Some(1000)), "$10.00");
        assert_eq!(cap_label(None), "off");
        assert_eq!(dollars(7), "0.07");
        let k = Key::SpendMonthlyUsd;
        assert_eq!(
            cents_from_json(k, &serde_json::json!(cents_to_json(12345))),
            Ok(Some(12345))
        );
        assert_eq!(cents_from_json(k, &serde_json::json!(null)), Ok(None));
        assert_eq!(cents_from_json(k, &serde_json::json!("off")), Ok(None));
        assert_eq!(cents_from_json(k, &serde_json::json!(-3)), Err(()));
        assert_eq!(cents_from_json(k, &serde_json::json!(true)), Err(()));
    }

    #[test]
    fn config_sets_shows_and_saves_the_spend_keys() {
        use super::super::{file, keys, GoogleTargets, RuntimeConfig};
        let defaults = RuntimeConfig::default();
        let mut c = defaults;
        let mut g = GoogleTargets::default();
        let label = |c: &RuntimeConfig, k| keys::label(c, &GoogleTargets::default(), k);
        assert_eq!(label(&c, Key::SpendDailyUsd), "$10.00");
        assert_eq!(label(&c, Key::SpendMonthlyUsd), "off");
        assert_eq!(label(&c, Key::JobMaxCost), "$1.00");
        assert_eq!(label(&c, Key::JobMaxTurns), "40");
        keys::apply(&mut c, &mut g, Key::SpendDailyUsd, "off").unwrap();
        keys::apply(&mut c, &mut g, Key::SpendMonthlyUsd, "$50").unwrap();
        keys::apply(&mut c, &mut g, Key::JobMaxCost, "0.25").unwrap();
        keys::apply(&mut c, &mut g, Key::JobMaxTurns, "12").unwrap();
        assert!(keys::apply(&mut c, &mut g, Key::JobMaxCost, "off").is_err());
        assert!(keys::apply(&mut c, &mut g, Key::JobMaxTurns, "0").is_err());
        assert!(keys::apply(&mut c, &mut g, Key::JobMaxTurns, "1001").is_err());
        assert!(keys::apply(&mut c, &mut g, Key::SpendDailyUsd, "-5").is_err());
        assert_eq!(
            (
                c.spend_daily_cents,
                c.spend_monthly_cents,
                c.job_max_cost_cents,
                c.job_max_turns
            ),
            (None, Some(5000), 25, 12)
        );
        let json = serde_json::to_string(&file::ConfigFile::new(&c, &g)).unwrap();
        assert!(
            json.contains(r#""spend_daily_usd":null,"spend_monthly_usd":50.0,"job_max_cost":0.25,"job_max_turns":12,"#),
            "{json}"
        );
        let path = std::path::Path::new("config.json");
        assert_eq!(file::parse_file(path, json.as_bytes()).unwrap().0, c);
        // Values no command would accept take their defaults.
        let bad = r#"{"spend_daily_usd": -1, "spend_monthly_usd": "lots", "job_max_cost": null,
            "job_max_turns": 0}"#;
        assert_eq!(file::parse_file(path, bad.as_bytes()).unwrap().0, defaults);
    }
}
