//! `sessions [--since P]`: one line per session, newest first, a page at a time. Which sessions
//! are in the listing, and in what order, comes from the files' modification times alone (a
//! session is active since P when its transcript changed since P, messages or none); only the
//! transcripts on the page shown are read.

use std::ops::ControlFlow;

use chrono::{DateTime, Utc};

use super::library::{note_skipped, Library};
use super::scan;
use super::show::{count, emit, one_line, short, time, Layout, SESSIONS_PER_PAGE};
use super::transcript::Transcript;

/// Prints the page of the sessions changed since `since` (all when `None`).
pub fn sessions(
    library: &Library,
    since: Option<DateTime<Utc>>,
    layout: &Layout,
) -> anyhow::Result<()> {
    let listed = library.since(since);
    if listed.is_empty() {
        return emit("no sessions");
    }
    let pages = listed.len().div_ceil(SESSIONS_PER_PAGE);
    if layout.page == 0 || layout.page > pages {
        anyhow::bail!("page {} is past the end ({pages} page(s))", layout.page);
    }
    let shown: Vec<usize> = listed
        .into_iter()
        .skip((layout.page - 1) * SESSIONS_PER_PAGE)
        .take(SESSIONS_PER_PAGE)
        .collect();
    let mut failed = None;
    scan::in_order(
        &shown,
        |&index| Transcript::read(&library.sessions[index].path),
        |at, read| {
            let index = shown[at];
            let file = &library.sessions[index];
            let transcript = match read {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("note: reading {}: {e}; skipped", file.path.display());
                    return ControlFlow::Continue(());
                }
            };
            note_skipped(&file.id, transcript.skipped_lines);
            match emit(line(library, index, &transcript, layout)) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            }
        },
    );
    if let Some(e) = failed {
        return Err(e);
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

/// `prev     1a2b3c4d  2026-03-02 09:14    3 prompts  the latest prompt`.
fn line(library: &Library, index: usize, t: &Transcript, layout: &Layout) -> String {
    let when = match (t.span(), layout.timestamps) {
        (Some((first, last)), true) => {
            format!("{} – {}", time(first, layout.tz), time(last, layout.tz))
        }
        (Some((_, last)), false) => time(last, layout.tz),
        (None, _) => "(empty)".to_owned(),
    };
    let latest = t.prompts().last().map(|p| one_line(&p.text, 80));
    format!(
        "{:<7} {}  {when}  {:>11}  {}",
        library.label(index),
        short(&library.sessions[index].id),
        count(t.prompts().count(), "prompt"),
        latest.unwrap_or_default()
    )
}
