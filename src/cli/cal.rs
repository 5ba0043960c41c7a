//! `ollim-bot cal today|upcoming|show|add|delete|update`: Google Calendar, the primary calendar,
//! times in `OLLIM_TIMEZONE` (SPEC §4, §15).
//!
//! ```text
//! ollim-bot cal today
//! ollim-bot cal upcoming [--days 7]
//! ollim-bot cal show ID
//! ollim-bot cal add "Dentist" --start 2026-02-24T14:00 --end 2026-02-24T15:00 [--description "…"]
//! ollim-bot cal delete ID
//! ollim-bot cal update ID [--summary "…"] [--start …] [--end …] [--description "…"]
//! ```

use clap::Subcommand;
use ollim_actors::google::calendar::{self, Fields};

use super::google::Google;

/// Most days `upcoming` looks ahead.
const MAX_DAYS: u32 = 366;

/// Calendar subcommands.
#[derive(Debug, Subcommand)]
pub enum CalCommand {
    /// Today's events, from local midnight.
    Today,
    /// Events in the next days, from local midnight today.
    Upcoming {
        /// How many days (7 unless given).
        #[arg(long, default_value_t = 7)]
        days: u32,
    },
    /// One event in full.
    Show {
        /// The event's id (from `cal today` or `cal upcoming`).
        id: String,
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
    },
    /// Delete an event.
    Delete {
        /// The event's id.
        id: String,
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
    },
}

fn events(google: &Google, days: u32) -> anyhow::Result<()> {
    if !(1..=MAX_DAYS).contains(&days) {
        anyhow::bail!("--days must be between 1 and {MAX_DAYS} (got {days})");
    }
    let (from, to) = calendar::window(google.now, google.tz, days);
    google.block_on(async {
        let rest = google.api.rest(google.now).await?;
        let items = calendar::list(&rest, from, to, google.tz).await?;
        if items.is_empty() {
            println!("no events");
        }
        for e in items {
            println!("{}", e.line(google.tz));
        }
        Ok(())
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
        CalCommand::Today => events(google, 1),
        CalCommand::Upcoming { days } => events(google, days),
        CalCommand::Show { id } => google.block_on(async {
            let rest = google.api.rest(google.now).await?;
            for line in calendar::get(&rest, &id).await?.details(tz) {
                println!("{line}");
            }
            Ok(())
        }),
        CalCommand::Add {
            summary,
            start,
            end,
            description,
        } => {
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
                let event = calendar::insert(&rest, &fields, tz).await?;
                println!("created {}: {summary}", event.id);
                Ok(())
            })
        }
        CalCommand::Delete { id } => google.block_on(async {
            let rest = google.api.rest(google.now).await?;
            calendar::delete(&rest, &id).await?;
            println!("deleted {id}");
            Ok(())
        }),
        CalCommand::Update {
            id,
            summary,
            start,
            end,
            description,
        } => {
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
                calendar::update(&rest, &id, &fields, tz).await?;
                println!("updated {id}");
                Ok(())
            })
        }
    }
}
