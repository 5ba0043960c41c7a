//! `ollim-bot cal today|upcoming|show|add|delete|update|calendars`: Google Calendar, times in
//! `OLLIM_TIMEZONE` (SPEC §4, §15, §17). Listings read every calendar of the `google_calendars`
//! config key (merged, tagged when more than one); single-event commands use its first entry;
//! `--calendar ID` overrides either.
//!
//! ```text
//! ollim-bot cal today [--calendar ID]
//! ollim-bot cal upcoming [--days 7] [--calendar ID]
//! ollim-bot cal show ID [--calendar ID]
//! ollim-bot cal add "Dentist" --start 2026-02-24T14:00 --end 2026-02-24T15:00 [--description "…"] [--calendar ID]
//! ollim-bot cal delete ID [--calendar ID]
//! ollim-bot cal update ID [--summary "…"] [--start …] [--end …] [--description "…"] [--calendar ID]
//! ollim-bot cal calendars
//! ```
//!
//! Event titles, descriptions, locations and calendar names are printed inside an `UNTRUSTED`
//! fence (SPEC §20).

use clap::Subcommand;
use ollim_actors::google::calendar::{self, Fields};
use ollim_actors::google::calendars;
use ollim_actors::google::confirm::DeleteTarget;

use super::google::Google;

/// Most days `upcoming` looks ahead.
const MAX_DAYS: u32 = 366;

/// Calendar subcommands.
#[derive(Debug, Subcommand)]
pub enum CalCommand {
    /// Today's events, from local midnight.
    Today {
        /// Read only this calendar (all of google_calendars unless given).
        #[arg(long)]
        calendar: Option<String>,
    },
    /// Events in the next days, from local midnight today.
    Upcoming {
        /// How many days (7 unless given).
        #[arg(long, default_value_t = 7)]
        days: u32,
        /// Read only this calendar (all of google_calendars unless given).
        #[arg(long)]
        calendar: Option<String>,
    },
    /// One event in full.
    Show {
        /// The event's id (from `cal today` or `cal upcoming`).
        id: String,
        /// The event's calendar (the first of google_calendars unless given).
        #[arg(long)]
        calendar: Option<String>,
    },
    /// Create an event.
    Add {
        /// The event's title.
        summary: String,
        /// Start, YYYY-MM-DDTHH:MM.
        #[arg(long)]
        start: String,
        /// End, YYYY-MM-DDTHH:MM.
        #[arg(long)]
        end: String,
        /// Description.
        #[arg(long)]
        description: Option<String>,
        /// The calendar to add to (the first of google_calendars unless given).
        #[arg(long)]
        calendar: Option<String>,
    },
    /// Delete an event (run by the agent: asks the owner to confirm on Discord first).
    Delete {
        /// The event's id.
        id: String,
        /// The event's calendar (the first of google_calendars unless given).
        #[arg(long)]
        calendar: Option<String>,
    },
    /// Change an event.
    Update {
        /// The event's id.
        id: String,
        /// New title.
        #[arg(long)]
        summary: Option<String>,
        /// New start, YYYY-MM-DDTHH:MM.
        #[arg(long)]
        start: Option<String>,
        /// New end, YYYY-MM-DDTHH:MM.
        #[arg(long)]
        end: Option<String>,
        /// New description.
        #[arg(long)]
        description: Option<String>,
        /// The event's calendar (the first of google_calendars unless given).
        #[arg(long)]
        calendar: Option<String>,
    },
    /// Every calendar the Google account can reach: id, then name.
    Calendars,
}

fn events(google: &Google, days: u32, calendar: Option<String>) -> anyhow::Result<()> {
    if !(1..=MAX_DAYS).contains(&days) {
        anyhow::bail!("--days must be between 1 and {MAX_DAYS} (got {days})");
    }
    let ids = google.read_calendars(calendar)?;
    let (from, to) = calendar::window(google.now, google.tz, days);
    google.block_on(async {
        let rest = google.api.rest(google.now).await?;
        let merged = calendars::list_many(&rest, &ids, from, to, google.tz).await?;
        if merged.events.is_empty() {
            for line in merged.lines(google.tz) {
                println!("{line}");
            }
            return Ok(());
        }
        google.print_outside("calendar events", &merged.lines(google.tz))
    })
}

/// Runs a calendar subcommand, printing its lines.
pub fn run(cmd: CalCommand, google: &Google) -> anyhow::Result<()> {
    let tz = google.tz;
    let time = |flag: &str, t: &Option<String>| {
        t.as_deref()
            .map(|t| calendar::parse_time(flag, t, tz))
            .transpose()
    };
    match cmd {
        CalCommand::Today { calendar } => events(google, 1, calendar),
        CalCommand::Upcoming { days, calendar } => events(google, days, calendar),
        CalCommand::Calendars => google.block_on(async {
            let rest = google.api.rest(google.now).await?;
            let lines: Vec<String> = calendars::calendars(&rest)
                .await?
                .iter()
                .map(calendars::CalendarEntry::line)
                .collect();
            google.print_outside("calendar list", &lines)
        }),
        CalCommand::Show { id, calendar } => {
            let calendar = google.write_calendar(calendar)?;
            google.block_on(async {
                let rest = google.api.rest(google.now).await?;
                let event = calendar::get(&rest, &calendar, &id).await?;
                google.print_outside("calendar event", &event.details(tz))
            })
        }
        CalCommand::Add {
            summary,
            start,
            end,
            description,
            calendar,
        } => {
            let calendar = google.write_calendar(calendar)?;
            let fields = Fields {
                start: time("--start", &Some(start))?,
                end: time("--end", &Some(end))?,
                summary: Some(summary.clone()),
                description,
            };
            if summary.trim().is_empty() {
                anyhow::bail!("an event needs a summary");
            }
            if fields.end <= fields.start {
                anyhow::bail!("--end must be after --start");
            }
            google.block_on(async {
                let rest = google.api.rest(google.now).await?;
                let event = calendar::insert(&rest, &calendar, &fields, tz).await?;
                println!("created {}: {summary}", event.id);
                Ok(())
            })
        }
        CalCommand::Delete { id, calendar } => {
            let calendar = google.write_calendar(calendar)?;
            let target = DeleteTarget::Event {
                calendar: Some(calendar.clone()),
                id: id.clone(),
            };
            if super::delete_ask::handled_for_agent(target)? {
                return Ok(());
            }
            google.block_on(async {
                let rest = google.api.rest(google.now).await?;
                calendar::delete(&rest, &calendar, &id).await?;
                println!("deleted {id}");
                Ok(())
            })
        }
        CalCommand::Update {
            id,
            summary,
            start,
            end,
            description,
            calendar,
        } => {
            let calendar = google.write_calendar(calendar)?;
            let fields = Fields {
                start: time("--start", &start)?,
                end: time("--end", &end)?,
                summary,
                description,
            };
            if fields.summary.is_none()
                && fields.start.is_none()
                && fields.end.is_none()
                && fields.description.is_none()
            {
                anyhow::bail!("provide at least one of --summary, --start, --end, --description");
            }
            if let (Some(s), Some(e)) = (fields.start, fields.end) {
                if e <= s {
                    anyhow::bail!("--end must be after --start");
                }
            }
            google.block_on(async {
                let rest = google.api.rest(google.now).await?;
                calendar::update(&rest, &calendar, &id, &fields, tz).await?;
                println!("updated {id}");
                Ok(())
            })
        }
    }
}
