//! Test fixtures for the prompt builders: jobs, fire times and budgets around a fixed "now".

use chrono::{DateTime, Duration, TimeZone, Utc};
use chrono_tz::Tz;

use crate::agent::prompts::forward::ScheduledItem;
use crate::agent::prompts::preamble::BudgetFacts;
use crate::jobs::{Job, JobId, JobSettings, Reminder, Routine};

/// The zone every fixture is shown in.
pub const TZ: Tz = chrono_tz::America::Los_Angeles;

/// 9:00 AM in Los Angeles.
pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 2, 24, 17, 0, 0).unwrap()
}

/// Default settings, background or not.
pub fn settings(background: bool) -> JobSettings {
    JobSettings {
        background,
        ..JobSettings::default()
    }
}

/// A routine whose message is `message of <id>`.
pub fn routine(id: &str, settings: JobSettings) -> Routine {
    Routine {
        id: JobId(id.to_owned()),
        message: format!("message of {id}"),
        cron: "0 9 * * *".to_owned(),
        settings,
        paused: false,
        catch_up: Default::default(),
        session: Default::default(),
    }
}

/// A background routine as a job.
pub fn bg(id: &str) -> Job {
    Job::Routine(routine(id, settings(true)))
}

/// A reminder due now whose message is `message of <id>`.
pub fn reminder(id: &str, chain_depth: u32, max_chain: u32, settings: JobSettings) -> Reminder {
    let run_at = now().fixed_offset();
    Reminder {
        id: JobId(id.to_owned()),
        message: format!("message of {id}"),
        run_at,
        run_at_raw: run_at.to_rfc3339(),
        chain_depth,
        max_chain,
        chain_parent: None,
        settings,
        background_as_read: None,
    }
}

/// `job` firing `minutes_from_now`, stored at `<dir>/<id>-file.md`.
pub fn at(minutes_from_now: i64, job: Job) -> ScheduledItem {
    let dir = match job {
        Job::Routine(_) => "routines",
        Job::Reminder(_) => "reminders",
        Job::Webhook(_) => "webhooks",
    };
    let rel_path = format!("{dir}/{}-file.md", job.id());
    ScheduledItem {
        fire_at: now() + Duration::minutes(minutes_from_now),
        job,
        rel_path,
    }
}

/// A full bucket of 5, one token per 90 min.
pub fn full_budget() -> BudgetFacts {
    BudgetFacts {
        available: 5,
        capacity: 5,
        refill_minutes: 90,
        next_refill_in_minutes: None,
    }
}

/// A bucket at 3/5 with the next token in 42 min.
pub fn partial_budget() -> BudgetFacts {
    BudgetFacts {
        available: 3,
        capacity: 5,
        refill_minutes: 90,
        next_refill_in_minutes: Some(42),
    }
}
