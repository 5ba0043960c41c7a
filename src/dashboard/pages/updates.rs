//! Updates (`/updates`): what background jobs reported and the conversation has not read yet —
//! the pending-updates queue, asked of its actor with [`Peek`] (the queue stays as it is; the
//! conversation still receives each update once, with its next message). Read only: the queue
//! is the conversation's to consume.

use actix_web::{web, HttpResponse};
use askama::Template;
use chrono::{DateTime, Utc};
use ollim_actors::records::pending_updates::{relative_time, Peek, CAP};

use super::ActorGone;
use crate::dashboard::guard::Session;
use crate::dashboard::layout::{self, Page};
use crate::dashboard::Dash;

struct Row {
    when: String,
    ago: String,
    message: String,
    marker: bool,
}

#[derive(Template)]
#[template(path = "dashboard/updates.html")]
struct Body {
    rows: Vec<Row>,
    cap: usize,
}

/// `GET /updates`.
pub async fn page(_session: Session, dash: web::Data<Dash>) -> Result<HttpResponse, ActorGone> {
    let queue = dash
        .handles
        .pending_updates
        .send(Peek)
        .await
        .map_err(|_| ActorGone("pending-updates queue"))?;
    let now = Utc::now();
    let rows = queue
        .into_iter()
        .rev()
        .map(|u| {
            let at = DateTime::parse_from_rfc3339(&u.ts).ok();
            Row {
                when: at
                    .map(|t| t.with_timezone(&dash.tz).format("%a %H:%M").to_string())
                    .unwrap_or_else(|| u.ts.clone()),
                ago: at
                    .map(|t| relative_time(now - t.with_timezone(&Utc)))
                    .unwrap_or_default(),
                marker: u.omitted_count().is_some(),
                message: u.message,
            }
        })
        .collect();
    Ok(Page {
        name: "updates",
        title: "Updates",
        notes: Vec::new(),
        body: layout::render(&Body { rows, cap: CAP }),
        refresh: 60,
    }
    .respond())
}
