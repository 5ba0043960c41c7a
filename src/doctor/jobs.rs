//! What the bot runs: every routine (it parses; when it fires next, in the zone), every reminder
//! (it parses; overdue ones), each file the bot ignores because an earlier file by name holds
//! its id (the scheduler's rule, [`duplicates::find`]), webhook specs and skills (they parse),
//! and the `allowed-tools` of each (unsafe patterns, which skip a background run, and patterns
//! the bot would strip).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use ollim_actors::jobs::store::Item;
use ollim_actors::jobs::{duplicates, store, Reminder, Routine};
use ollim_actors::scheduling::scheduler::cron::CronSchedule;
use ollim_actors::{agent::permissions, jobs::skills, jobs::webhook_spec};

use super::{Check, Inputs};

/// How late a reminder may be before it counts as overdue (the scheduler wakes within seconds).
const OVERDUE_AFTER: chrono::Duration = chrono::Duration::minutes(2);

/// Routines and reminders.
pub fn schedule_checks(inputs: &Inputs<'_>) -> Vec<Check> {
    let mut checks = routines(inputs);
    checks.extend(reminders(inputs));
    checks
}

/// Webhook specs and skills.
pub fn spec_checks(inputs: &Inputs<'_>) -> Vec<Check> {
    let mut checks = webhooks(inputs);
    checks.extend(skills_checks(inputs));
    checks
}

/// The file's name relative to the data directory, for short lines.
fn short(inputs: &Inputs<'_>, path: &Path) -> String {
    path.strip_prefix(inputs.data.root())
        .unwrap_or(path)
        .display()
        .to_string()
}

fn unreadable_dir(name: &str, e: &store::Error) -> Check {
    Check::fail(
        name,
        format!("cannot be listed: {e}"),
        "give the user running the bot read access",
    )
}

/// A file the bot skips; `spec` is the data directory's document on its format.
fn broken_file(inputs: &Inputs<'_>, path: &Path, e: &store::Error, spec: &str) -> Check {
    let reason = match e {
        store::Error::Parse { source, .. } => source.to_string(),
        other => other.to_string(),
    };
    Check::fail(
        short(inputs, path),
        format!("skipped: {reason}"),
        format!(
            "fix it (the format is in {}) or delete it",
            inputs.data.root().join(spec).display()
        ),
    )
}

const JOB_SPEC: &str = "routine-reminder-spec.md";

/// A check for each pattern of `tools` that is wrong: an unsafe one FAILs where it skips a
/// background run (`background`: the tools are used by one), WARNs elsewhere; one the bot keeps
/// or strips with a warning WARNs.
fn tool_checks(
    inputs: &Inputs<'_>,
    source: &str,
    tools: Option<&Vec<String>>,
    background: bool,
) -> Vec<Check> {
    let Some(tools) = tools else {
        return Vec::new();
    };
    let fix = "narrow the pattern (for example Bash(git status) rather than Bash(*))";
    let v = permissions::validate(tools, &inputs.data);
    let errors = v.errors.iter().map(|e| match background {
        true => Check::fail(
            source.to_owned(),
            format!("allowed-tools: {e} (unsafe: a background run is skipped)"),
            fix,
        ),
        false => Check::warn(
            source.to_owned(),
            format!("allowed-tools: {e} (unsafe; unused, the job runs in the foreground)"),
            fix,
        ),
    });
    let warnings = v.warnings.iter().map(|w| {
        Check::warn(
            source.to_owned(),
            format!("allowed-tools: {w} (kept with a warning)"),
            fix,
        )
    });
    errors.chain(warnings).collect()
}

/// Each file parsed, and the files the scheduler ignores (another file, earlier by name, holds
/// the id) with the file it uses instead.
type LoadedFiles<T> = (
    Vec<(PathBuf, Result<T, store::Error>)>,
    HashMap<PathBuf, PathBuf>,
);

fn load_all<T: Item>(files: Vec<PathBuf>) -> LoadedFiles<T> {
    let loaded: Vec<_> = files
        .into_iter()
        .map(|path| {
            let item = store::load_file::<T>(&path);
            (path, item)
        })
        .collect();
    let ids = loaded
        .iter()
        .filter_map(|(p, item)| item.as_ref().ok().map(|i| (p.as_path(), i.id())));
    let ignored = duplicates::find(ids)
        .into_iter()
        .map(|d| (d.ignored, d.kept))
        .collect();
    (loaded, ignored)
}

/// The WARN for a file the scheduler ignores, naming the file it uses.
fn duplicate(inputs: &Inputs<'_>, name: &str, kind: &str, id: &str, kept: &Path) -> Check {
    Check::warn(
        name.to_owned(),
        format!(
            "shares id {id} with {}, which the bot runs; this {kind} file is ignored",
            short(inputs, kept)
        ),
        format!("give each {kind} its own id (or delete the copy)"),
    )
}

fn routines(inputs: &Inputs<'_>) -> Vec<Check> {
    let files = match store::markdown_files(&inputs.data.routines()) {
        Ok(f) => f,
        Err(e) => return vec![unreadable_dir("routines/", &e)],
    };
    if files.is_empty() {
        return vec![Check::pass("routines/", "no routines")];
    }
    let mut checks = Vec::new();
    let (loaded, ignored) = load_all::<Routine>(files);
    for (path, routine) in loaded {
        let name = short(inputs, &path);
        let routine = match routine {
            Ok(r) => r,
            Err(e) => {
                checks.push(broken_file(inputs, &path, &e, JOB_SPEC));
                continue;
            }
        };
        if let Some(kept) = ignored.get(&path) {
            checks.push(duplicate(
                inputs,
                &name,
                "routine",
                routine.id.as_str(),
                kept,
            ));
            continue;
        }
        checks.push(match CronSchedule::parse(&routine.cron) {
            Err(e) => Check::fail(
                name.clone(),
                format!("skipped: {e}"),
                "fix the cron: five fields, minute hour day-of-month month day-of-week",
            ),
            Ok(schedule) => match schedule.next_after(inputs.now, inputs.tz) {
                Some(next) => Check::pass(
                    name.clone(),
                    format!(
                        "{} `{}`, next {}",
                        routine.id,
                        routine.cron,
                        when(next, inputs.now, inputs.tz)
                    ),
                ),
                None => Check::warn(
                    name.clone(),
                    format!("`{}` never fires", routine.cron),
                    "check the date fields (a day that does not exist in that month?)",
                ),
            },
        });
        checks.extend(tool_checks(
            inputs,
            &name,
            routine.settings.allowed_tools.as_ref(),
            routine.settings.background,
        ));
        checks.extend(super::references::checks(inputs, &name, &routine.settings));
    }
    checks
}

fn reminders(inputs: &Inputs<'_>) -> Vec<Check> {
    let files = match store::markdown_files(&inputs.data.reminders()) {
        Ok(f) => f,
        Err(e) => return vec![unreadable_dir("reminders/", &e)],
    };
    if files.is_empty() {
        return vec![Check::pass("reminders/", "no reminders pending")];
    }
    let mut checks = Vec::new();
    let (loaded, ignored) = load_all::<Reminder>(files);
    for (path, reminder) in loaded {
        let name = short(inputs, &path);
        let reminder = match reminder {
            Ok(r) => r,
            Err(e) => {
                checks.push(broken_file(inputs, &path, &e, JOB_SPEC));
                continue;
            }
        };
        if let Some(kept) = ignored.get(&path) {
            checks.push(duplicate(
                inputs,
                &name,
                "reminder",
                reminder.id.as_str(),
                kept,
            ));
            continue;
        }
        let due = reminder.run_at.with_timezone(&Utc);
        checks.push(if due + OVERDUE_AFTER < inputs.now {
            Check::warn(
                name.clone(),
                format!(
                    "{} was due {} and has not fired",
                    reminder.id,
                    when(due, inputs.now, inputs.tz)
                ),
                "it fires (marked late) within seconds of the bot's start; if the bot is running, \
                 look at its log",
            )
        } else {
            Check::pass(
                name.clone(),
                format!("{} fires {}", reminder.id, when(due, inputs.now, inputs.tz)),
            )
        });
        checks.extend(tool_checks(
            inputs,
            &name,
            reminder.settings.allowed_tools.as_ref(),
            reminder.settings.background,
        ));
        checks.extend(super::references::checks(inputs, &name, &reminder.settings));
    }
    checks
}

fn webhooks(inputs: &Inputs<'_>) -> Vec<Check> {
    let loaded = match webhook_spec::load_specs(&inputs.data.webhooks()) {
        Ok(l) => l,
        Err(e) => return vec![unreadable_dir("webhooks/", &e)],
    };
    if loaded.items.is_empty() && loaded.skipped.is_empty() {
        return vec![Check::pass("webhooks/", "no webhook specs")];
    }
    let mut checks: Vec<Check> = loaded
        .skipped
        .iter()
        .map(|(path, e)| broken_file(inputs, path, e, "webhook-spec.md"))
        .collect();
    for (path, spec) in &loaded.items {
        let name = short(inputs, path);
        checks.push(Check::pass(name.clone(), format!("POST /hook/{}", spec.id)));
        checks.extend(tool_checks(
            inputs,
            &name,
            spec.allowed_tools.as_ref(),
            true,
        ));
        if let ollim_actors::jobs::Job::Webhook(hook) = spec.job() {
            checks.extend(super::references::checks(inputs, &name, &hook.settings));
        }
    }
    let set = |k: &str| (inputs.env)(k).is_some_and(|v| !v.trim().is_empty());
    let server = set("WEBHOOK_PORT") && set("WEBHOOK_SECRET");
    if !loaded.items.is_empty() && !server {
        checks.push(Check::warn(
            "webhooks/",
            "there are webhook specs but no webhook server (WEBHOOK_PORT and WEBHOOK_SECRET)",
            "set both variables to receive webhooks, or ignore this",
        ));
    }
    checks
}

fn skills_checks(inputs: &Inputs<'_>) -> Vec<Check> {
    let loaded = match skills::load_skills(&inputs.data.skills()) {
        Ok(l) => l,
        Err(e) => return vec![unreadable_dir("skills/", &e)],
    };
    if loaded.items.is_empty() && loaded.skipped.is_empty() {
        return vec![Check::pass("skills/", "no skills")];
    }
    let mut checks: Vec<Check> = loaded
        .skipped
        .iter()
        .map(|(path, e)| broken_file(inputs, path, e, "skill-spec.md"))
        .collect();
    for (path, skill) in &loaded.items {
        let name = short(inputs, path);
        let detail = if skill.description.trim().is_empty() {
            format!("skill {} (no description)", skill.name)
        } else {
            skill.description.clone()
        };
        checks.push(Check::pass(name.clone(), detail));
        checks.extend(tool_checks(
            inputs,
            &name,
            skill.allowed_tools.as_ref(),
            true,
        ));
    }
    checks
}

/// `Tue 2026-03-03 08:30 CET (in 13h 5m)` / `(2h 10m ago)`.
fn when(at: DateTime<Utc>, now: DateTime<Utc>, tz: Tz) -> String {
    let local = at.with_timezone(&tz).format("%a %Y-%m-%d %H:%M %Z");
    let minutes = (at - now).num_minutes();
    let span = |m: i64| {
        let (d, h, m) = (m / 1440, (m % 1440) / 60, m % 60);
        match (d, h) {
            (0, 0) => format!("{m}m"),
            (0, _) => format!("{h}h {m}m"),
            _ => format!("{d}d {h}h"),
        }
    };
    if minutes >= 0 {
        format!("{local} (in {})", span(minutes))
    } else {
        format!("{local} ({} ago)", span(-minutes))
    }
}
