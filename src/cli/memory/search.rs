//! `ollim-bot memory search QUERY [--limit N]`: one `path:line  snippet` line per hit, best
//! first; files that could not be read are named on stderr.

use std::io::Write;
use std::path::Path;

use ollim_actors::agent::memory_search;

/// Prints the hits for `query` in the memory under `root`.
pub fn run(query: &str, limit: usize, root: &Path) -> anyhow::Result<()> {
    let found = memory_search::search(root, query, limit)?;
    for (path, why) in &found.skipped {
        eprintln!("skipped {}: {why}", path.display());
    }
    let mut out = std::io::stdout().lock();
    if found.hits.is_empty() {
        writeln!(out, "no matches for {query:?}")?;
        return Ok(());
    }
    for hit in &found.hits {
        writeln!(out, "{}:{}  {}", hit.path, hit.line, hit.snippet)?;
    }
    Ok(())
}
