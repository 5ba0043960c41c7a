//! `search [-p|-r] [--since P] "QUERY"`: every prompt and answer (or only prompts, or only
//! answers — what the bot sent through its Discord tools counts as answer) containing the
//! query, case-insensitively, newest session first. A message copied into a fork's transcript
//! (a fork starts with its parent's history) is shown once.
//!
//! Files are read a few at a time ([`super::scan`]); a file is parsed only at the lines whose
//! bytes could hold the query ([`Query`]), and only the hits on the page asked for are kept.

use std::collections::HashSet;
use std::ops::ControlFlow;

use chrono::{DateTime, Utc};

use super::library::{note_skipped, Library};
use super::query::Query;
use super::scan;
use super::show::{emit, one_line, short, time, Layout};
use super::store::SessionFile;
use super::transcript::{record_entries, Kind};

/// Hits per page.
const HITS_PER_PAGE: usize = 30;
/// Characters of context on each side of a match.
const CONTEXT: usize = 60;

/// What to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Prompts and answers.
    Both,
    /// The user's prompts.
    Prompts,
    /// The assistant's answers.
    Responses,
}

impl Scope {
    fn wants(self, kind: Kind) -> bool {
        match self {
            Scope::Both => kind == Kind::Prompt || kind.is_answer(),
            Scope::Prompts => kind == Kind::Prompt,
            Scope::Responses => kind.is_answer(),
        }
    }
}

/// One match in one file.
struct Hit {
    uuid: String,
    kind: Kind,
    line: String,
}

/// What one file yielded.
enum Found {
    Hits(Vec<Hit>),
    Unreadable(String),
}

/// Prints the hits.
pub fn search(
    library: &Library,
    query: &str,
    scope: Scope,
    since: Option<DateTime<Utc>>,
    layout: &Layout,
) -> anyhow::Result<()> {
    let needle = query.trim();
    if needle.is_empty() {
        anyhow::bail!("give something to search for");
    }
    let compiled = Query::new(needle)?;
    let files: Vec<&SessionFile> = library
        .since(since)
        .into_iter()
        .map(|i| &library.sessions[i])
        .collect();
    let first = layout.page.saturating_sub(1) * HITS_PER_PAGE;
    let mut seen: HashSet<(String, Kind)> = HashSet::new();
    let mut total = 0;
    let mut page = Vec::new();
    scan::in_order(
        &files,
        |file| hits_in(file, &compiled, scope, since, layout),
        |_, found| {
            match found {
                Found::Unreadable(note) => eprintln!("note: {note}; skipped"),
                Found::Hits(hits) => {
                    for hit in hits {
                        if !seen.insert((hit.uuid, hit.kind)) {
                            continue;
                        }
                        if (first..first + HITS_PER_PAGE).contains(&total) {
                            page.push(hit.line);
                        }
                        total += 1;
                    }
                }
            }
            ControlFlow::Continue(())
        },
    );
    if total == 0 {
        return emit(format!("no matches for {query:?}"));
    }
    let pages = total.div_ceil(HITS_PER_PAGE);
    if layout.page == 0 || layout.page > pages {
        anyhow::bail!("page {} is past the end ({pages} page(s))", layout.page);
    }
    emit(format!(
        "{total} match(es) for {query:?} (session  message  who  text):"
    ))?;
    for line in &page {
        emit(line)?;
    }
    if layout.page < pages {
        emit(format!(
            "-- page {} of {pages}; --page {} for more",
            layout.page,
            layout.page + 1
        ))?;
    }
    Ok(())
}

/// The hits in one session's file, in file order.
fn hits_in(
    file: &SessionFile,
    query: &Query,
    scope: Scope,
    since: Option<DateTime<Utc>>,
    layout: &Layout,
) -> Found {
    let bytes = match std::fs::read(&file.path) {
        Ok(bytes) => bytes,
        Err(e) => return Found::Unreadable(format!("reading {}: {e}", file.path.display())),
    };
    let mut hits = Vec::new();
    let mut skipped = 0;
    for line in query.lines(&bytes) {
        let Ok(entries) = record_entries(line) else {
            skipped += 1;
            continue;
        };
        for entry in entries {
            let recent = match (since, entry.at) {
                (Some(since), Some(at)) => at >= since,
                _ => true,
            };
            if !scope.wants(entry.kind) || !recent {
                continue;
            }
            let Some(snippet) = snippet(&entry.text, query) else {
                continue;
            };
            let when = match (layout.timestamps, entry.at) {
                (true, Some(at)) => format!("{}  ", time(at, layout.tz)),
                _ => String::new(),
            };
            let line = format!(
                "{when}{}  {}  {:<9}  {snippet}",
                short(&file.id),
                short(&entry.uuid),
                entry.kind.word()
            );
            hits.push(Hit {
                uuid: entry.uuid,
                kind: entry.kind,
                line,
            });
        }
    }
    note_skipped(&file.id, skipped);
    Found::Hits(hits)
}

/// The text around the first match of the query in `text`, on one line.
fn snippet(text: &str, query: &Query) -> Option<String> {
    let found = query.find(text)?;
    let before: Vec<char> = text[..found.start].chars().collect();
    let after: Vec<char> = text[found.end..].chars().collect();
    let start = before.len().saturating_sub(CONTEXT);
    let end = after.len().min(CONTEXT);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&before[start..]);
    out.push_str(&text[found]);
    out.extend(&after[..end]);
    if end < after.len() {
        out.push('…');
    }
    Some(one_line(&out, usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snip(text: &str, needle: &str) -> Option<String> {
        snippet(text, &Query::new(needle).unwrap())
    }

    #[test]
    fn snippets_show_the_match_in_context() {
        let text = format!(
            "{} the Dentist at nine {}",
            "a".repeat(100),
            "b".repeat(100)
        );
        let s = snip(&text, "dentist").unwrap();
        assert!(s.starts_with('…') && s.ends_with('…'));
        assert!(s.contains("the Dentist at nine"));
        assert_eq!(snip("short one", "one").as_deref(), Some("short one"));
        assert_eq!(snip("nothing here", "dentist"), None);
        assert_eq!(
            snip("İstanbul trip", "trip").as_deref(),
            Some("İstanbul trip")
        );
        assert_eq!(
            snip("ΣΊΣΥΦΟΣ\n  rolls", "σίσυφος rolls").as_deref(),
            Some("ΣΊΣΥΦΟΣ rolls")
        );
    }
}
