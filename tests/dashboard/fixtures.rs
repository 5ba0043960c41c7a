//! What the bot starts with and what the mock model answers: three routines, a reminder and a
//! webhook spec in the data directory, a zone where it is midday, and a conversation that writes `context.md` twice when asked to.

use chrono::{Duration, Timelike, Utc};
use chrono_tz::Tz;
use serde_json::json;

use crate::support::home::Home;
use crate::support::mock_model_api::{ModelRequest, Reply};

/// A background routine at 9:00 every day: the one Run now starts.
pub const MORNING: &str = "d2a00001";
/// A background routine every two hours: the one paused (many marks on the timeline).
pub const STRETCH: &str = "d2a00002";
/// A foreground routine at 21:30: the one edited with a bad cron.
pub const EVENING: &str = "d2a00003";
/// A background reminder an hour from now.
pub const DENTIST: &str = "d2a00004";
/// The routine the test creates on `/jobs/new`.
pub const WATER: &str = "d2a00005";
/// The webhook spec the bot serves.
pub const HOOK: &str = "deploys";
/// The bearer token the webhook server takes.
pub const HOOK_SECRET: &str = "browser-tier-webhook-secret-0123456789abcdef";

/// A zone where it is now between noon and one in the afternoon (a fixed offset, no DST), so
/// that the day on Today's timeline holds the reminder an hour from now and no routine of
/// this file fires while the test runs.
pub fn midday_zone() -> Tz {
    let offset = 12 - i64::from(Utc::now().hour());
    // Etc/GMT-5 is five hours ahead of UTC (the sign is POSIX's).
    let name = match offset {
        0 => "Etc/GMT".to_owned(),
        ahead if ahead > 0 => format!("Etc/GMT-{ahead}"),
        behind => format!("Etc/GMT+{}", -behind),
    };
    name.parse()
        .unwrap_or_else(|e| panic!("the zone {name}: {e}"))
}

/// The path of each job's file under the data directory.
pub fn routine_path(id: &str) -> &'static str {
    match id {
        MORNING => "routines/morning-review.md",
        STRETCH => "routines/stretch-break.md",
        EVENING => "routines/evening-wind-down.md",
        DENTIST => "reminders/call-the-dentist.md",
        other => panic!("no fixture job {other}"),
    }
}

/// Writes the routines, the reminder and the webhook spec into the bot's data directory (the
/// reminder's time in `zone`).
pub fn write(home: &Home, zone: Tz) {
    home.write(
        routine_path(MORNING),
        &format!(
            "---\nid: \"{MORNING}\"\ncron: \"0 9 * * *\"\ndescription: \"Morning review\"\n\
             background: true\n---\nLook over today's plan and the calendar.\n"
        ),
    );
    home.write(
        routine_path(STRETCH),
        &format!(
            "---\nid: \"{STRETCH}\"\ncron: \"0 */2 * * *\"\ndescription: \"Stretch break\"\n\
             background: true\n---\nRemind me to stand up and stretch.\n"
        ),
    );
    home.write(
        routine_path(EVENING),
        &format!(
            "---\nid: \"{EVENING}\"\ncron: \"30 21 * * *\"\ndescription: \"Evening wind-down\"\n\
             ---\nHelp me wind down: what went well today?\n"
        ),
    );
    home.write(
        &format!("webhooks/{HOOK}.md"),
        &format!(
            "---\nid: \"{HOOK}\"\nfields:\n  type: object\n  required: [status]\n  properties:\n    \
             status:\n      type: string\n      enum: [ok, failed]\n---\n\
             The deploy finished: {{status}}. Tell me only if it failed.\n"
        ),
    );
    let at = (Utc::now() + Duration::hours(1))
        .with_timezone(&zone)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    home.write(
        routine_path(DENTIST),
        &format!(
            "---\nid: \"{DENTIST}\"\nrun-at: \"{at}\"\ndescription: \"Call the dentist\"\n\
             background: true\n---\nRemind me to call the dentist.\n"
        ),
    );
}

/// What the morning routine's run answers.
pub const MORNING_ANSWER: &str = "Reviewed the plan: three meetings, one deadline.";

/// The first line the conversation remembers, and the one added after it.
pub const FIRST_MEMORY: &str = "- Robin is moving in May (MEMO-D2-ONE)";
pub const SECOND_MEMORY: &str = "- The dentist is on Thursday (MEMO-D2-TWO)";

/// What the owner types to have each line remembered.
pub const REMEMBER_FIRST: &str = "remember that Robin is moving";
pub const REMEMBER_SECOND: &str = "remember the dentist too";
/// The conversation's answer after writing `context.md`.
pub const NOTED: &str = "noted in memory";

/// The mock model's script: a routine's run answers [`MORNING_ANSWER`]; asked to remember, the
/// conversation writes `context.md` at `context` with its Write tool (first one line, then
/// two); anything else is "ok".
pub fn model_reply(context: String) -> impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static {
    move |req| {
        let text = req.latest_user_text();
        if !req.tool_results().is_empty() {
            return Reply::Text(NOTED.into());
        }
        let write = |content: String| Reply::ToolUse {
            name: "Write".into(),
            input: json!({"file_path": context, "content": content}),
        };
        if text.contains(REMEMBER_FIRST) {
            write(format!("{FIRST_MEMORY}\n"))
        } else if text.contains(REMEMBER_SECOND) {
            write(format!("{FIRST_MEMORY}\n{SECOND_MEMORY}\n"))
        } else if text.contains("[routine-bg:") || text.contains("[routine:") {
            Reply::Text(MORNING_ANSWER.into())
        } else {
            Reply::Text("ok".into())
        }
    }
}
