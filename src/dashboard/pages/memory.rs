//! Memory (`/memory`): `context.md` as it is now, its size against the limit and its last
//! changes with their diffs, and Undo for the last one (`POST /memory/undo`); the session
//! snapshots the memory flush saved; and search (`?q=…`) across `context.md`, the snapshots and
//! the reflections.
//!
//! Everything goes through the functions `/memory` (Discord, console) and `ollim-bot memory`
//! use, in the same words: [`status`], [`versions`], [`memory_search`]. Undo is the Discord
//! button's: the form carries the short hash of the change it was shown with, so pressed after
//! a newer change it says so and changes nothing ([`versions::undo_if_last`]); every undo is a
//! new commit, so it can itself be undone.

use actix_web::{web, HttpResponse};
use askama::Template;
use chrono_tz::Tz;
use ollim_actors::agent::memory::status::{change_line, status, undo_answer};
use ollim_actors::agent::memory::{read, versions, PROMPT_CAP};
use ollim_actors::agent::{memory_flush, memory_search};
use ollim_actors::base::data_dir::DataDir;
use serde::Deserialize;

use super::ActorGone;
use crate::dashboard::guard::Session;
use crate::dashboard::layout::{self, Page};
use crate::dashboard::Dash;

/// How many changes are listed.
pub const CHANGES_SHOWN: usize = 5;
/// Most diff lines shown per change.
const DIFF_LINES: usize = 20;
/// How many snapshots are listed.
pub const SNAPSHOTS_SHOWN: usize = 10;
/// Most characters of a snapshot shown.
const SNAPSHOT_CHARS: usize = 4_000;
/// Most search hits shown.
pub const HITS_SHOWN: usize = 20;
/// Longest query taken, in characters.
const MAX_QUERY_CHARS: usize = 200;

struct ChangeView {
    line: String,
    diff: String,
}

struct HitView {
    place: String,
    snippet: String,
}

#[derive(Template)]
#[template(path = "dashboard/memory.html")]
struct Body {
    size: String,
    last: String,
    /// The short hash Undo names; `None`: nothing to undo.
    undo: Option<String>,
    text: String,
    over: bool,
    changes: Vec<ChangeView>,
    snapshots: Vec<memory_flush::Saved>,
    query: String,
    hits: Option<Vec<HitView>>,
    search_error: Option<String>,
    csrf: String,
}

/// `?q=…`.
#[derive(Debug, Deserialize)]
pub struct MemoryQuery {
    #[serde(default)]
    q: String,
}

/// Undo's form: the CSRF token and the change it was shown with.
#[derive(Debug, Deserialize)]
pub struct UndoForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    change: String,
}

/// Everything the page shows, read from the data directory (git runs: call off the server's
/// thread).
fn gather(data: &DataDir, tz: Tz, query: &str, csrf: String) -> Body {
    let now = status(data);
    let text = read(data).unwrap_or_else(|cause| {
        tracing::warn!(%cause, "dashboard: context.md unreadable");
        None
    });
    let changes = versions::changes(data, CHANGES_SHOWN)
        .iter()
        .map(|change| {
            let diff = versions::diff(data, change);
            let lines: Vec<&str> = diff.lines().collect();
            let mut shown = lines
                .iter()
                .take(DIFF_LINES)
                .copied()
                .collect::<Vec<_>>()
                .join("\n");
            if lines.len() > DIFF_LINES {
                shown.push_str(&format!("\n… {} more line(s)", lines.len() - DIFF_LINES));
            }
            ChangeView {
                line: change_line(change, tz),
                diff: shown,
            }
        })
        .collect();
    let (hits, search_error) = match query.trim() {
        "" => (None, None),
        q => match memory_search::search(data.root(), q, HITS_SHOWN) {
            Ok(found) => (
                Some(
                    found
                        .hits
                        .into_iter()
                        .map(|h| HitView {
                            place: format!("{}:{}", h.path, h.line),
                            snippet: h.snippet,
                        })
                        .collect(),
                ),
                None,
            ),
            Err(e) => (None, Some(e.to_string())),
        },
    };
    Body {
        size: now.size_line(),
        last: now
            .last
            .as_ref()
            .map(|c| change_line(c, tz))
            .unwrap_or_else(|| "none recorded".to_owned()),
        undo: now.last.as_ref().map(|c| c.short().to_owned()),
        over: text
            .as_deref()
            .is_some_and(|t| t.chars().count() > PROMPT_CAP),
        text: text.unwrap_or_default(),
        changes,
        snapshots: memory_flush::recent(data.root(), SNAPSHOTS_SHOWN, SNAPSHOT_CHARS),
        query: query.to_owned(),
        hits,
        search_error,
        csrf,
    }
}

async fn memory_page(
    dash: &Dash,
    session: &Session,
    query: String,
    notes: Vec<String>,
) -> Result<Page, ActorGone> {
    let data = dash.data_dir.clone();
    let tz = dash.tz;
    let csrf = session.csrf.clone();
    let body = tokio::task::spawn_blocking(move || gather(&data, tz, &query, csrf))
        .await
        .map_err(|_| ActorGone("memory page's reader"))?;
    Ok(Page {
        name: "memory",
        title: "Memory",
        notes,
        body: layout::render(&body),
        refresh: 0,
    })
}

/// `GET /memory[?q=…]`.
pub async fn page(
    session: Session,
    dash: web::Data<Dash>,
    query: web::Query<MemoryQuery>,
) -> Result<HttpResponse, ActorGone> {
    let q: String = query.into_inner().q.chars().take(MAX_QUERY_CHARS).collect();
    Ok(memory_page(&dash, &session, q, Vec::new()).await?.respond())
}

/// `POST /memory/undo`: reverts the last change of `context.md` — only when it is still the
/// change the page showed — and shows the page with what happened.
pub async fn undo(
    session: Session,
    dash: web::Data<Dash>,
    form: web::Form<UndoForm>,
) -> Result<HttpResponse, actix_web::Error> {
    let form = form.into_inner();
    session.check(&form.csrf)?;
    let data = dash.data_dir.clone();
    let change = form.change.trim().to_owned();
    let answer = tokio::task::spawn_blocking(move || {
        // The same call as Discord's Undo button (an empty change: the CLI's `memory undo`).
        let expected = (!change.is_empty()).then_some(change.as_str());
        undo_answer(&versions::undo_if_last(&data, expected))
    })
    .await
    .map_err(|_| ActorGone("memory page's reader"))?;
    tracing::info!(answer = %answer, "dashboard: memory undo");
    Ok(memory_page(&dash, &session, String::new(), vec![answer])
        .await?
        .respond())
}
