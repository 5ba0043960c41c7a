//! `ollim-bot memory …` (SPEC §18): what the assistant remembers. `search` ranks matches across
//! `context.md`, the session snapshots and the reflections ([`search`]).

mod search;

use std::path::Path;

use clap::Subcommand;

/// Memory subcommands.
#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
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

/// Runs `command` against the data directory `root`.
pub fn run(command: MemoryCommand, root: &Path) -> anyhow::Result<()> {
    match command {
        MemoryCommand::Search { query, limit } => {
            let limit = usize::try_from(limit).unwrap_or(10);
            search::run(&query.join(" "), limit, root)
        }
    }
}
