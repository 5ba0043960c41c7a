//! `ollim-bot gmail unread|read|search|labels`: Gmail, read-only (SPEC §4, §15). The
//! gmail-reader subagent uses these.
//!
//! ```text
//! ollim-bot gmail unread [--max 20]
//! ollim-bot gmail read ID
//! ollim-bot gmail search "from:alex newer_than:3d" [--max 20]
//! ollim-bot gmail labels
//! ```
//!
//! Everything Gmail holds is printed inside an `UNTRUSTED` fence (SPEC §20).

use clap::Subcommand;
use ollim_actors::google::gmail;

use super::google::Google;

/// Gmail subcommands.
#[derive(Debug, Subcommand)]
pub enum GmailCommand {
    /// Unread messages, newest first.
    Unread {
        /// How many at most.
        #[arg(long, default_value_t = gmail::DEFAULT_MAX)]
        max: u32,
    },
    /// One message: headers and text.
    Read {
        /// The message's id (from `gmail unread` or `gmail search`).
        id: String,
    },
    /// Messages matching a Gmail search.
    Search {
        /// Gmail search syntax, e.g. "from:alex newer_than:3d".
        query: String,
        /// How many at most.
        #[arg(long, default_value_t = gmail::DEFAULT_MAX)]
        max: u32,
    },
    /// The mailbox's labels.
    Labels,
}

fn listing(google: &Google, query: &str, max: u32) -> anyhow::Result<()> {
    gmail::check_max(max)?;
    google.block_on(async {
        let rest = google.api.rest(google.now).await?;
        let messages = gmail::list(&rest, query, max).await?;
        if messages.is_empty() {
            println!("no messages");
            return Ok(());
        }
        let lines: Vec<String> = messages.iter().map(|m| m.line(google.tz)).collect();
        google.print_outside("gmail messages", &lines)
    })
}

/// Runs a gmail subcommand, printing its lines.
pub fn run(cmd: GmailCommand, google: &Google) -> anyhow::Result<()> {
    match cmd {
        GmailCommand::Unread { max } => listing(google, "is:unread", max),
        GmailCommand::Search { query, max } => {
            if query.trim().is_empty() {
                anyhow::bail!("give a search, e.g. \"from:alex newer_than:3d\"");
            }
            listing(google, &query, max)
        }
        GmailCommand::Read { id } => google.block_on(async {
            let rest = google.api.rest(google.now).await?;
            let text = gmail::read(&rest, &id).await?.full_text(google.tz);
            google.print_outside("gmail message", &[text])
        }),
        GmailCommand::Labels => google.block_on(async {
            let rest = google.api.rest(google.now).await?;
            let labels = gmail::labels(&rest).await?;
            if labels.is_empty() {
                println!("no labels");
                return Ok(());
            }
            let lines: Vec<String> = labels.iter().map(gmail::Label::line).collect();
            google.print_outside("gmail labels", &lines)
        }),
    }
}
