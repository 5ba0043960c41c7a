//! The route table: every URL the dashboard answers. Pages take a [`super::guard::Session`]
//! (no session: the login page, 401); forms also check its CSRF token; the front door has
//! already checked `Host` and, for POSTs, `Origin`.
//!
//! One line per route; pages owned by other modules add theirs as new lines.

use actix_web::{web, HttpResponse};
use serde::Deserialize;

use super::guard::{self, Session};
use super::layout::{self, Page};
use super::logins::Redeem;
use super::pages;
use super::Dash;

/// Adds the dashboard's routes to an app.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/static/dashboard.css", web::get().to(layout::css))
        .route("/login", web::get().to(login))
        .route("/", web::get().to(pages::today::page))
        .route("/jobs", web::get().to(pages::jobs::list))
        .route("/jobs/new", web::get().to(pages::job_edit::new_form))
        .route("/jobs/new", web::post().to(pages::job_edit::create))
        .route("/jobs/{id}/edit", web::get().to(pages::job_edit::edit_form))
        .route("/jobs/{id}/edit", web::post().to(pages::job_edit::save))
        .route("/jobs/{id}/run", web::post().to(pages::jobs::run))
        .route("/jobs/{id}/pause", web::post().to(pages::jobs::pause))
        .route("/jobs/{id}/resume", web::post().to(pages::jobs::resume))
        .route("/runs", web::get().to(pages::runs::page))
        .route(
            "/runs/{run}/transcript",
            web::get().to(pages::runs::transcript),
        )
        .route("/memory", web::get().to(pages::memory::page))
        .route("/memory/undo", web::post().to(pages::memory::undo))
        .route("/updates", web::get().to(pages::updates::page))
        .route("/spend", web::get().to(pages::spend::page))
        .route("/webhooks", web::get().to(pages::webhooks::page))
        .route("/health", web::get().to(pages::health::page))
        .default_service(web::to(not_found));
}

/// `?token=…` of the login link.
#[derive(Debug, Deserialize)]
pub struct LoginQuery {
    #[serde(default)]
    token: String,
}

/// `GET /login?token=T`: a valid, unused token opens a session (an HttpOnly, SameSite=Strict
/// cookie) and goes to Today; any other is refused with 403.
async fn login(dash: web::Data<Dash>, query: web::Query<LoginQuery>) -> HttpResponse {
    let token = query.into_inner().token;
    let opened = if token.is_empty() {
        None
    } else {
        match dash.logins.send(Redeem(token)).await {
            Ok(opened) => opened,
            Err(e) => {
                tracing::error!(cause = %e, "dashboard: the logins have stopped");
                None
            }
        }
    };
    match opened {
        Some(opened) => HttpResponse::SeeOther()
            .insert_header(("Location", "/"))
            .insert_header(("Set-Cookie", guard::session_cookie(&opened.id)))
            .finish(),
        None => HttpResponse::Forbidden()
            .content_type("text/html; charset=utf-8")
            .body(layout::login_page(
                "Link refused",
                "This login link was already used or has expired. Ask for a new one with \
                 `ollim-bot dashboard` (or /dashboard in the chat).",
            )),
    }
}

/// Anything else: 404, saying so only to a signed-in visitor.
async fn not_found(_session: Session) -> HttpResponse {
    let page = Page {
        name: "",
        title: "Not found",
        body: "<p>There is no such page.</p>".to_owned(),
        ..Page::default()
    };
    HttpResponse::NotFound()
        .content_type("text/html; charset=utf-8")
        .body(page.html())
}
