//! The values the `/config` keys take: each kind of value read from what the user typed (or
//! from `state/config.json`), refused with `Err(())` when out of bounds, and how it is shown.
//! Which key takes which value is the business of `keys.rs`.

use std::str::FromStr;

use crate::claude::brain::{PermissionMode, Thinking};
use crate::jobs::ModelChoice;
use crate::records::quiet_hours::QuietHours;

use super::keys::{Key, MAX_THINKING_BUDGET, MIN_THINKING_BUDGET};

/// The permission modes `/config` may choose (the CLI's `plan` is not a resting mode).
const PERMISSION_MODES: [PermissionMode; 4] = [
    PermissionMode::DontAsk,
    PermissionMode::Default,
    PermissionMode::AcceptEdits,
    PermissionMode::BypassPermissions,
];

/// `off` (or an empty value) for no quiet hours, else a window like `22:00-08:00`.
pub(super) fn parse_quiet_hours(value: &str) -> Result<Option<QuietHours>, ()> {
    match value.to_ascii_lowercase().as_str() {
        "" | "off" | "none" | "null" => Ok(None),
        _ => value.parse().map(Some).map_err(|_| ()),
    }
}

pub(super) fn model_label(model: Option<ModelChoice>, unset: &str) -> String {
    model.map_or_else(|| unset.to_owned(), |m| m.as_str().to_owned())
}

pub(super) fn thinking_label(thinking: Thinking) -> String {
    match thinking {
        Thinking::Disabled => "off".to_owned(),
        Thinking::Adaptive => "adaptive".to_owned(),
        Thinking::Budget(tokens) => format!("{tokens} tokens"),
    }
}

/// A model name, or one of the words that mean "no override".
pub(super) fn parse_model(value: &str) -> Result<Option<ModelChoice>, ()> {
    let lower = value.to_ascii_lowercase();
    match lower.as_str() {
        "" | "default" | "none" | "null" => Ok(None),
        other => ModelChoice::from_str(other).map(Some).map_err(|_| ()),
    }
}

/// `off`, `adaptive` or a budget in tokens ([`MIN_THINKING_BUDGET`] to
/// [`MAX_THINKING_BUDGET`]).
pub(super) fn parse_thinking(value: &str) -> Result<Thinking, ()> {
    match value.to_ascii_lowercase().as_str() {
        "off" => Ok(Thinking::Disabled),
        "adaptive" => Ok(Thinking::Adaptive),
        digits => digits
            .parse::<u64>()
            .map_err(|_| ())
            .and_then(thinking_budget),
    }
}

/// A thinking budget in tokens, if within bounds.
pub(super) fn thinking_budget(tokens: u64) -> Result<Thinking, ()> {
    u32::try_from(tokens)
        .ok()
        .filter(|t| (MIN_THINKING_BUDGET..=MAX_THINKING_BUDGET).contains(t))
        .map(Thinking::Budget)
        .ok_or(())
}

/// A whole number within `key`'s [`Key::count_range`].
pub(super) fn parse_count(key: Key, value: &str) -> Result<u64, ()> {
    value
        .parse::<u64>()
        .map_err(|_| ())
        .and_then(|n| count(key, n))
}

/// `n` if it is within `key`'s [`Key::count_range`].
pub(super) fn count(key: Key, n: u64) -> Result<u64, ()> {
    match key.count_range() {
        Some(range) if range.contains(&n) => Ok(n),
        _ => Err(()),
    }
}

pub(super) fn parse_hour(value: &str) -> Result<u8, ()> {
    match value.parse::<u8>() {
        Ok(h) if h <= 23 => Ok(h),
        _ => Err(()),
    }
}

pub(super) fn parse_switch(value: &str) -> Result<bool, ()> {
    match value.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(()),
    }
}

/// One of the four resting modes, matched without regard to case.
pub(super) fn parse_permission_mode(value: &str) -> Result<PermissionMode, ()> {
    PERMISSION_MODES
        .into_iter()
        .find(|m| m.as_str().eq_ignore_ascii_case(value))
        .ok_or(())
}
