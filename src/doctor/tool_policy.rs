//! `tool-policy.yaml` (SPEC §17): absent is fine; a file the bot cannot use, keys that mean
//! nothing and patterns it would leave out WARN; an unsafe background pattern FAILs, since it
//! skips every background job.

use ollim_actors::agent::permissions::tool_policy::{ToolPolicy, FILE_NAME};
use ollim_actors::agent::permissions::validate;

use super::{Check, Inputs};

const FIX: &str = "narrow the pattern (for example Bash(git status) rather than Bash(*))";

/// The checks of the data directory's `tool-policy.yaml`.
pub fn checks(inputs: &Inputs<'_>) -> Vec<Check> {
    let policy = match ToolPolicy::read(&inputs.data) {
        Ok(Some(policy)) => policy,
        Ok(None) => return vec![Check::pass(FILE_NAME, "none; the built-in tool sets apply")],
        Err(e) => {
            return vec![Check::warn(
                FILE_NAME,
                format!("{e}; a running bot keeps the policy it last read well (none at start)"),
                "fix it: main_session.additional_allowed, bg_forks.additional_allowed and \
                 bg_forks.override, each a list of tool patterns",
            )]
        }
    };
    let mut checks = Vec::new();
    if !policy.unknown_keys.is_empty() {
        checks.push(Check::warn(
            FILE_NAME,
            format!("ignored keys: {}", policy.unknown_keys.join(", ")),
            "the keys are main_session.additional_allowed, bg_forks.additional_allowed and \
             bg_forks.override",
        ));
    }
    let main = validate(&policy.main_additional, &inputs.data);
    for problem in main.errors.iter().chain(&main.warnings) {
        checks.push(Check::warn(
            format!("{FILE_NAME} main_session"),
            format!("{problem} (left out or kept with a warning)"),
            FIX,
        ));
    }
    let (key, background) = match &policy.bg_override {
        Some(set) => ("bg_forks.override", set),
        None => ("bg_forks.additional_allowed", &policy.bg_additional),
    };
    let bg = validate(background, &inputs.data);
    for problem in &bg.errors {
        checks.push(Check::fail(
            format!("{FILE_NAME} {key}"),
            format!("{problem} (unsafe: every background job is skipped)"),
            FIX,
        ));
    }
    for problem in &bg.warnings {
        checks.push(Check::warn(
            format!("{FILE_NAME} {key}"),
            format!("{problem} (kept with a warning)"),
            FIX,
        ));
    }
    if policy.bg_override.is_some() && !policy.bg_additional.is_empty() {
        checks.push(Check::warn(
            FILE_NAME,
            "bg_forks.override is set, so bg_forks.additional_allowed is ignored",
            "put every background tool in bg_forks.override, or drop it to add to the defaults",
        ));
    }
    if checks.is_empty() {
        let replaced = match policy.bg_override {
            Some(set) => format!("background set replaced ({} patterns)", set.len()),
            None => format!("{} background additions", policy.bg_additional.len()),
        };
        checks.push(Check::pass(
            FILE_NAME,
            format!(
                "{} conversation additions, {replaced}",
                policy.main_additional.len()
            ),
        ));
    }
    checks
}
