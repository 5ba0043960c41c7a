//! Health (`/health`): `ollim-bot doctor`'s checks, run as the command runs them
//! ([`crate::doctor::current`]) — PASS, WARN or FAIL, what was found, and for each WARN and
//! FAIL what to do. The checks only read (files, the environment, `claude --version`); they run
//! off the server's thread each time the page is asked for.

use actix_web::{web, HttpResponse};
use askama::Template;

use super::ActorGone;
use crate::dashboard::guard::Session;
use crate::dashboard::layout::{self, Page};
use crate::dashboard::Dash;
use crate::doctor::{self, Status};

struct CheckRow {
    label: &'static str,
    class: &'static str,
    name: String,
    detail: String,
    fix: Option<String>,
}

struct SectionView {
    title: &'static str,
    checks: Vec<CheckRow>,
}

#[derive(Template)]
#[template(path = "dashboard/health.html")]
struct Body {
    summary: String,
    failed: bool,
    data_dir: String,
    sections: Vec<SectionView>,
}

fn class(status: Status) -> &'static str {
    match status {
        Status::Pass => "ok",
        Status::Warn => "warning",
        Status::Fail => "error",
    }
}

/// `GET /health`.
pub async fn page(_session: Session, _dash: web::Data<Dash>) -> Result<HttpResponse, ActorGone> {
    let ran = tokio::task::spawn_blocking(doctor::current)
        .await
        .map_err(|_| ActorGone("doctor"))?;
    let (data, sections) = match ran {
        Ok(found) => found,
        Err(e) => {
            tracing::error!(cause = %e, "dashboard: the doctor's checks did not run");
            let page = Page {
                name: "health",
                title: "Health",
                notes: vec![format!("the checks did not run: {e}")],
                ..Page::default()
            };
            return Ok(page.respond());
        }
    };
    let (mut passed, mut warned, mut failed) = (0, 0, 0);
    let sections: Vec<SectionView> = sections
        .into_iter()
        .map(|s| SectionView {
            title: s.title,
            checks: s
                .checks
                .into_iter()
                .map(|c| {
                    match c.status {
                        Status::Pass => passed += 1,
                        Status::Warn => warned += 1,
                        Status::Fail => failed += 1,
                    }
                    CheckRow {
                        label: c.status.label(),
                        class: class(c.status),
                        name: c.name,
                        detail: ollim_actors::base::own_command::in_text(&c.detail),
                        fix: c.fix.map(|f| ollim_actors::base::own_command::in_text(&f)),
                    }
                })
                .collect(),
        })
        .collect();
    let body = Body {
        summary: format!("{passed} passed, {warned} warning(s), {failed} failure(s)"),
        failed: failed > 0,
        data_dir: data.root().display().to_string(),
        sections,
    };
    Ok(Page {
        name: "health",
        title: "Health",
        notes: Vec::new(),
        body: layout::render(&body),
        refresh: 0,
    }
    .respond())
}
