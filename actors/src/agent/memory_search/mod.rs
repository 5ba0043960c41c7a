//! `ollim-bot memory search` (SPEC §18): ranked matches across what the assistant remembers —
//! `context.md` (each `#` section a document), the session snapshots in `memory/sessions/`
//! (see [`crate::agent::memory_flush`]) and the reflections in `reflections/<job>/` — scored with BM25
//! ([`bm25`]). Each hit names the file, the line that matches best, and that line.

mod bm25;
mod corpus;

use std::path::{Path, PathBuf};

pub use bm25::words;

/// The living memory file at the data directory's root.
pub const CONTEXT_FILE: &str = "context.md";
/// The longest snippet shown, in characters.
const SNIPPET_CHARS: usize = 160;

/// One match.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The file, relative to the data directory (`memory/sessions/2026-11-27-1005-0123abcd.md`).
    pub path: String,
    /// The 1-based line that matches best.
    pub line: usize,
    /// That line, trimmed and shortened.
    pub snippet: String,
    /// Its BM25 score (higher is better).
    pub score: f64,
}

/// What a search found, and what it could not read.
#[derive(Debug, Default)]
pub struct Found {
    /// The hits, best first.
    pub hits: Vec<Hit>,
    /// Files skipped, with why.
    pub skipped: Vec<(PathBuf, String)>,
}

/// Why no search ran.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The query has nothing to look for.
    #[error("the query has no words to look for")]
    EmptyQuery,
}

/// Searches the memory under `data_root` for `query`, best `limit` hits first.
pub fn search(data_root: &Path, query: &str, limit: usize) -> Result<Found, Error> {
    let mut terms: Vec<String> = words(query).collect();
    terms.dedup();
    if terms.is_empty() {
        return Err(Error::EmptyQuery);
    }
    let mut found = Found::default();
    let counted = corpus::count(data_root, &terms, &mut found.skipped);
    let scores = bm25::scores(&counted.counts, terms.len());
    // Only a document with a query word scores above zero; they come in the corpus's order,
    // which a tie of score and path keeps (the sort is stable).
    let mut ranked: Vec<(f64, corpus::Doc)> = counted
        .matching
        .into_iter()
        .map(|(i, doc)| (scores[i], doc))
        .filter(|(score, _)| *score > 0.0)
        .collect();
    ranked.sort_by(|(sa, a), (sb, b)| sb.total_cmp(sa).then_with(|| a.path.cmp(&b.path)));
    ranked.truncate(limit);
    let mut counter = bm25::Counter::new(&terms);
    found.hits = ranked
        .into_iter()
        .map(|(score, doc)| {
            let (offset, line) = best_line(&doc.text, &mut counter);
            Hit {
                line: doc.first_line + offset,
                snippet: snippet(line),
                path: doc.path,
                score,
            }
        })
        .collect();
    Ok(found)
}

/// The line of `text` with the most query words (the first such), and its 0-based index.
fn best_line<'a>(text: &'a str, counter: &mut bm25::Counter<'_>) -> (usize, &'a str) {
    let mut best = (0, text.lines().next().unwrap_or(""), 0);
    for (i, line) in text.lines().enumerate() {
        let hits = counter.hits(line);
        if hits > best.2 {
            best = (i, line, hits);
        }
    }
    (best.0, best.1)
}

fn snippet(line: &str) -> String {
    let line = line.trim();
    if line.chars().count() <= SNIPPET_CHARS {
        return line.to_owned();
    }
    let cut: String = line.chars().take(SNIPPET_CHARS).collect();
    format!("{cut}…")
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
