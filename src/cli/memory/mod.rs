//! `ollim-bot memory show|log|undo` (SPEC §18): the agent's living memory, `context.md`, read
//! and versioned straight from the data directory (no bot needed). `undo` reverts the last
//! change as a new commit, so `git log` shows both. `search` ranks matches across `context.md`,
//! the session snapshots and the reflections ([`search`]).
//!
//! ```text
//! $ ollim-bot memory show
//! context.md: 1,234 characters (limit 12,000)
//! last change: 2026-02-24 14:30  a1b2c3d  auto: memory: write context.md  (+2 -1)
//!
//! - Robin is moving in May
//! ```

mod search;

use chrono_tz::Tz;
use clap::Subcommand;
use ollim_actors::agent::memory::status::{change_line, status, undo_answer};
use ollim_actors::agent::memory::{read, versions};
use ollim_actors::base::data_dir::DataDir;

/// How many changes `memory log` shows without `--limit`.
pub const DEFAULT_LOG: usize = 5;

/// The most diff lines `memory log` shows of one change.
const DIFF_LINES: usize = 12;

/// `ollim-bot memory …`.
#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// Print context.md with its size and last change.
    Show,
    /// The last changes of context.md with short diffs, newest first.
    Log {
        /// How many changes.
        #[arg(long, short = 'n', default_value_t = DEFAULT_LOG)]
        limit: usize,
    },
    /// Revert the last change of context.md (as a new commit).
    Undo,
    /// Ranked (BM25) matches across context.md, session snapshots and reflections.
    Search {
        /// The words to look for.
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        /// The most hits to show.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
        limit: u64,
    },
}

/// Runs one `memory` subcommand.
pub fn run(cmd: MemoryCommand, data: &DataDir, tz: Tz) -> anyhow::Result<()> {
    match cmd {
        MemoryCommand::Search { query, limit } => {
            let limit = usize::try_from(limit).unwrap_or(10);
            search::run(&query.join(" "), limit, data.root())
        }
        MemoryCommand::Show => {
            println!("{}", status(data).describe(tz));
            if let Some(text) = read(data)? {
                println!();
                print!("{text}");
                if !text.ends_with('\n') {
                    println!();
                }
            }
            Ok(())
        }
        MemoryCommand::Log { limit } => {
            let changes = versions::changes(data, limit);
            if changes.is_empty() {
                println!("no changes of context.md recorded yet");
            }
            for change in &changes {
                println!("{}", change_line(change, tz));
                let diff = versions::diff(data, change);
                let lines: Vec<&str> = diff.lines().collect();
                for line in lines.iter().take(DIFF_LINES) {
                    println!("    {line}");
                }
                if lines.len() > DIFF_LINES {
                    println!("    … {} more line(s)", lines.len() - DIFF_LINES);
                }
            }
            Ok(())
        }
        MemoryCommand::Undo => {
            let result = versions::undo(data);
            let answer = undo_answer(&result);
            match result {
                Ok(_) => {
                    println!("{answer}");
                    Ok(())
                }
                Err(_) => anyhow::bail!("{answer}"),
            }
        }
    }
}
