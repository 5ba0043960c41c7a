//! `add_reminder`, `list_reminders`, `cancel_reminder` (SPEC §16, the original's later
//! version): the same files and rules as `ollim-bot reminder add|list|cancel`
//! ([`crate::jobs::new_reminder`], [`crate::jobs::store`]). No actor is involved: the scheduler
//! notices new and removed files by itself. A new reminder runs in the background unless asked
//! otherwise; a `run_at` without an offset is wall-clock time in the configured zone.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde_json::Value;

use super::arguments::{ArgumentError, Reader};
use super::{bad_arguments, refuse, Confirmation, DiscordTools, Refusal, ToolName};
use crate::claude::brain::mcp::ToolOutput;
use crate::jobs::new_reminder::{AddError, Invalid, NewReminder, When};
use crate::jobs::reminder::parse_run_at_in;
use crate::jobs::{store, JobId, JobSettings, Reminder};

/// The longest prompt accepted (a reminder file is the user's to read too).
const MAX_PROMPT_CHARS: usize = 10_000;

/// `add_reminder`'s arguments, as given.
struct AddArgs {
    prompt: String,
    delay_minutes: Option<i64>,
    run_at: Option<String>,
    description: String,
    foreground: bool,
    max_chain: u32,
}

fn add_args(arguments: &Value) -> Result<AddArgs, ArgumentError> {
    let reader = Reader::top(ToolName::AddReminder, arguments)?;
    let max_chain = reader.whole("max_chain", 0)?.unwrap_or(0);
    Ok(AddArgs {
        prompt: reader.text("prompt", MAX_PROMPT_CHARS)?.to_owned(),
        delay_minutes: reader.whole("delay_minutes", 0)?,
        run_at: reader
            .optional_string("run_at")?
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned),
        description: reader
            .optional_string("description")?
            .unwrap_or("")
            .trim()
            .to_owned(),
        foreground: reader.flag("foreground", false)?,
        max_chain: u32::try_from(max_chain)
            .map_err(|_| reader.invalid("max_chain", "is too large"))?,
    })
}

/// `when` as the model reads it: `Mon 2026-03-02 15:30 EST`.
fn local(at: DateTime<Utc>, tz: Tz) -> String {
    at.with_timezone(&tz)
        .format("%a %Y-%m-%d %H:%M %Z")
        .to_string()
}

/// One line of a reminder: id, time, where it runs, chain, summary.
fn line(reminder: &Reminder, tz: Tz) -> String {
    let mut out = format!(
        "{}  {}  {}",
        reminder.id,
        local(reminder.run_at.with_timezone(&Utc), tz),
        if reminder.settings.background {
            "[bg]"
        } else {
            "[fg]"
        },
    );
    if reminder.max_chain > 0 {
        out.push_str(&format!(
            "  (chain {}/{})",
            reminder.chain_depth, reminder.max_chain
        ));
    }
    let summary = if reminder.settings.description.is_empty() {
        &reminder.message
    } else {
        &reminder.settings.description
    };
    let summary: String = summary
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(80)
        .collect();
    out.push_str(&format!("  -- {summary}"));
    out
}

impl DiscordTools {
    /// Whether this session is offered `tool`; a background job must name it.
    fn guard(&self, tool: ToolName) -> Result<(), ToolOutput> {
        if self.kind.offers(super::offer::Tool::Discord(tool)) {
            Ok(())
        } else {
            Err(refuse(tool, Refusal::NotOffered(tool.qualified())))
        }
    }

    /// `add_reminder(prompt, delay_minutes | run_at, description?, foreground?, max_chain?)`.
    pub(super) async fn add_reminder(&self, arguments: &Value) -> ToolOutput {
        let tool = ToolName::AddReminder;
        if let Err(refused) = self.guard(tool) {
            return refused;
        }
        let args = match add_args(arguments) {
            Ok(args) => args,
            Err(error) => return bad_arguments(error),
        };
        let place = self.place.clone();
        let when = match (args.delay_minutes, &args.run_at) {
            (Some(_), Some(_)) => return refuse(tool, Refusal::ReminderTimeTwice),
            (None, None) => return refuse(tool, Refusal::ReminderTimeMissing),
            (Some(minutes), None) => When::InMinutes(minutes),
            (None, Some(raw)) => match parse_run_at_in(raw, place.tz) {
                Ok(at) => When::At(at),
                // Unreadable, or a local time the zone skips (the spring-forward hour).
                Err(_) => return refuse(tool, Refusal::ReminderTimeUnreadable(raw.clone())),
            },
        };
        let settings = JobSettings {
            background: !args.foreground,
            description: args.description,
            ..JobSettings::default()
        };
        let mut request = NewReminder::new(args.prompt, when, settings);
        request.max_chain = args.max_chain;
        let now = place.clock.now();
        let data = place.data_dir.clone();
        let tz = place.tz;
        let added = tokio::task::spawn_blocking(move || request.add(&data, tz, now)).await;
        match added {
            Ok(Ok((reminder, path))) => {
                tracing::info!(id = %reminder.id, file = %path.display(), "agent added a reminder");
                let minutes = (reminder.run_at.with_timezone(&Utc) - now).num_minutes();
                ToolOutput::ok(format!(
                    "scheduled {} (in {minutes} min)",
                    line(&reminder, tz)
                ))
            }
            Ok(Err(AddError::Invalid(Invalid::Passed(at)))) => {
                refuse(tool, Refusal::ReminderTimePassed(at))
            }
            Ok(Err(AddError::Invalid(invalid))) => {
                refuse(tool, Refusal::ReminderRefused(invalid.to_string()))
            }
            Ok(Err(AddError::Store(e))) => {
                tracing::error!(cause = %e, "could not write the agent's reminder");
                refuse(tool, Refusal::ReminderNotSaved(e.to_string()))
            }
            Err(e) => refuse(tool, Refusal::ReminderNotSaved(e.to_string())),
        }
    }

    /// `list_reminders()`.
    pub(super) async fn list_reminders(&self) -> ToolOutput {
        let tool = ToolName::ListReminders;
        if let Err(refused) = self.guard(tool) {
            return refused;
        }
        let dir = self.place.data_dir.reminders();
        let loaded = match store::load_dir::<Reminder>(&dir) {
            Ok(loaded) => loaded,
            Err(e) => return refuse(tool, Refusal::RemindersUnreadable(e.to_string())),
        };
        let mut items: Vec<&Reminder> = loaded.items.iter().map(|(_, r)| r).collect();
        if items.is_empty() {
            return ToolOutput::ok("no pending reminders");
        }
        items.sort_by_key(|r| r.run_at);
        let lines: Vec<String> = items.iter().map(|r| line(r, self.place.tz)).collect();
        ToolOutput::ok(lines.join("\n"))
    }

    /// `cancel_reminder(reminder_id)` (`id`, its older name, is read too).
    pub(super) async fn cancel_reminder(&self, arguments: &Value) -> ToolOutput {
        let tool = ToolName::CancelReminder;
        if let Err(refused) = self.guard(tool) {
            return refused;
        }
        let raw = match Reader::top(tool, arguments)
            .and_then(|r| Ok(r.text(r.renamed("reminder_id", "id"), 200)?.trim()))
        {
            Ok(raw) => raw.to_owned(),
            Err(error) => return bad_arguments(error),
        };
        let id = match JobId::parse(&raw) {
            Ok(id) => id,
            Err(e) => return refuse(tool, Refusal::ReminderIdInvalid(e.to_string())),
        };
        let data = self.place.data_dir.clone();
        let removing = id.clone();
        let removed = tokio::task::spawn_blocking(move || {
            let removed = store::remove(&data.reminders(), removing.as_str())?;
            if let Some(path) = &removed {
                data.commit(path, &format!("remove reminder {removing}"));
            }
            Ok::<_, store::Error>(removed)
        })
        .await;
        match removed {
            Ok(Ok(Some(_))) => {
                tracing::info!(%id, "agent cancelled a reminder");
                ToolOutput::ok(Confirmation::ReminderCancelled(id.0).to_string())
            }
            Ok(Ok(None)) => refuse(tool, Refusal::ReminderNotFound(id.0)),
            Ok(Err(e)) => refuse(tool, Refusal::RemindersUnreadable(e.to_string())),
            Err(e) => refuse(tool, Refusal::RemindersUnreadable(e.to_string())),
        }
    }
}

#[cfg(test)]
#[path = "reminders_tests.rs"]
mod tests;
