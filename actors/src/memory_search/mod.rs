//! `ollim-bot memory search` (SPEC §18): ranked matches across what the assistant remembers —
//! `context.md` (each `#` section a document), the session snapshots in `memory/sessions/`
//! (see [`crate::memory_flush`]) and the reflections in `reflections/<job>/` — scored with BM25
//! ([`bm25`]). Each hit names the file, the line that matches best, and that line.

mod bm25;

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

/// One searchable piece: a whole file, or a section of `context.md`.
struct Doc {
    path: String,
    /// The line the text starts on (1-based).
    first_line: usize,
    text: String,
}

/// Searches the memory under `data_root` for `query`, best `limit` hits first.
pub fn search(data_root: &Path, query: &str, limit: usize) -> Result<Found, Error> {
    let mut terms: Vec<String> = words(query).collect();
    terms.dedup();
    if terms.is_empty() {
        return Err(Error::EmptyQuery);
    }
    let mut found = Found::default();
    let docs = corpus(data_root, &mut found.skipped);
    let counts: Vec<bm25::Counts> = docs
        .iter()
        .map(|d| bm25::Counts::of(&d.text, &terms))
        .collect();
    let scores = bm25::scores(&counts, terms.len());
    let mut ranked: Vec<usize> = (0..docs.len()).filter(|&i| scores[i] > 0.0).collect();
    ranked.sort_by(|&a, &b| {
        scores[b]
            .total_cmp(&scores[a])
            .then_with(|| docs[a].path.cmp(&docs[b].path))
    });
    ranked.truncate(limit);
    found.hits = ranked
        .into_iter()
        .map(|i| {
            let doc = &docs[i];
            let (offset, line) = best_line(&doc.text, &terms);
            Hit {
                path: doc.path.clone(),
                line: doc.first_line + offset,
                snippet: snippet(line),
                score: scores[i],
            }
        })
        .collect();
    Ok(found)
}

/// Every document: `context.md`'s sections, then snapshots, then reflections.
fn corpus(root: &Path, skipped: &mut Vec<(PathBuf, String)>) -> Vec<Doc> {
    let mut docs = Vec::new();
    let context = root.join(CONTEXT_FILE);
    if context.exists() {
        if let Some(text) = read(&context, skipped) {
            docs.extend(sections(CONTEXT_FILE, &text));
        }
    }
    let mut files = markdown_in(&root.join(crate::memory_flush::SNAPSHOT_DIR), skipped);
    let reflections = root.join(crate::reflection::DIR);
    for dir in subdirs(&reflections, skipped) {
        files.extend(markdown_in(&dir, skipped));
    }
    for file in files {
        if let Some(text) = read(&file, skipped) {
            let path = file
                .strip_prefix(root)
                .unwrap_or(&file)
                .display()
                .to_string();
            // The frontmatter (a snapshot's session, reason and times) is not what was said.
            let (skipped_lines, body) = without_frontmatter(&text);
            docs.push(Doc {
                path,
                first_line: 1 + skipped_lines,
                text: body.to_owned(),
            });
        }
    }
    docs
}

/// `context.md` cut at each line starting with `#` (text before the first heading is a section
/// too).
fn sections(path: &str, text: &str) -> Vec<Doc> {
    let mut out: Vec<Doc> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let heading = line.starts_with('#');
        match out.last_mut() {
            Some(doc) if !heading => {
                doc.text.push('\n');
                doc.text.push_str(line);
            }
            _ => out.push(Doc {
                path: path.to_owned(),
                first_line: i + 1,
                text: line.to_owned(),
            }),
        }
    }
    out
}

/// `text` after a leading `---` … `---` block, and how many lines that block took.
fn without_frontmatter(text: &str) -> (usize, &str) {
    let Some(rest) = text.strip_prefix("---\n") else {
        return (0, text);
    };
    match rest.find("\n---\n") {
        Some(end) => {
            let body = &rest[end + "\n---\n".len()..];
            (text[..text.len() - body.len()].lines().count(), body)
        }
        None => (0, text),
    }
}

fn read(path: &Path, skipped: &mut Vec<(PathBuf, String)>) -> Option<String> {
    match std::fs::read(path) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) => {
            skipped.push((path.to_path_buf(), e.to_string()));
            None
        }
    }
}

/// The entries of `dir` (missing: none), sorted, each kept when `keep` says so.
fn entries(
    dir: &Path,
    skipped: &mut Vec<(PathBuf, String)>,
    keep: impl Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let listing = match std::fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            skipped.push((dir.to_path_buf(), e.to_string()));
            return Vec::new();
        }
    };
    let mut out: Vec<PathBuf> = listing
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| keep(p))
        .collect();
    out.sort();
    out
}

fn markdown_in(dir: &Path, skipped: &mut Vec<(PathBuf, String)>) -> Vec<PathBuf> {
    entries(dir, skipped, |p| {
        p.extension().is_some_and(|e| e == "md") && p.is_file()
    })
}

fn subdirs(dir: &Path, skipped: &mut Vec<(PathBuf, String)>) -> Vec<PathBuf> {
    entries(dir, skipped, Path::is_dir)
}

/// The line of `text` with the most query words (the first such), and its 0-based index.
fn best_line<'a>(text: &'a str, terms: &[String]) -> (usize, &'a str) {
    let mut best = (0, text.lines().next().unwrap_or(""), 0);
    for (i, line) in text.lines().enumerate() {
        let hits = words(line).filter(|w| terms.contains(w)).count();
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
