//! The page frame (askama, `templates/dashboard/layout.html`): the nav to every page, the
//! page's `<h1>` and `<main id="page-<name>">`, and the style sheet served from the binary.
//! A page renders its own body (its own template) and hands it to [`page`].

use actix_web::{HttpResponse, Responder};
use askama::Template;

/// The style sheet, compiled into the binary.
pub const CSS: &str = include_str!("dashboard.css");

/// One entry of the nav.
#[derive(Debug, Clone, Copy)]
pub struct NavItem {
    /// The page's short name (`today`, `jobs`, …): its `<main>` id is `page-<name>`.
    pub name: &'static str,
    /// The link's text.
    pub label: &'static str,
    /// Where it goes.
    pub href: &'static str,
}

/// Every page, in the nav's order.
pub const NAV: &[NavItem] = &[
    NavItem {
        name: "today",
        label: "Today",
        href: "/",
    },
    NavItem {
        name: "jobs",
        label: "Jobs",
        href: "/jobs",
    },
    NavItem {
        name: "runs",
        label: "Runs",
        href: "/runs",
    },
    NavItem {
        name: "memory",
        label: "Memory",
        href: "/memory",
    },
    NavItem {
        name: "updates",
        label: "Updates",
        href: "/updates",
    },
    NavItem {
        name: "spend",
        label: "Spend",
        href: "/spend",
    },
    NavItem {
        name: "webhooks",
        label: "Webhooks",
        href: "/webhooks",
    },
    NavItem {
        name: "health",
        label: "Health",
        href: "/health",
    },
];

#[derive(Template)]
#[template(path = "dashboard/layout.html")]
struct Frame<'a> {
    title: &'a str,
    name: &'a str,
    nav: &'static [NavItem],
    notes: &'a [String],
    body: &'a str,
    refresh: u32,
}

#[derive(Template)]
#[template(path = "dashboard/login.html")]
struct Login<'a> {
    title: &'a str,
    text: &'a str,
}

/// A page: its name in the nav, its title, lines shown above the body (what an action did),
/// the body's HTML, and how often it refreshes itself (seconds; 0: never).
#[derive(Debug, Clone, Default)]
pub struct Page {
    /// The nav name (`today`): `<main id="page-today">`.
    pub name: &'static str,
    /// The `<h1>` and the title.
    pub title: &'static str,
    /// Lines above the body.
    pub notes: Vec<String>,
    /// The body, already HTML.
    pub body: String,
    /// Seconds between refreshes (a meta tag: no script); 0 for none.
    pub refresh: u32,
}

impl Page {
    /// The whole document.
    pub fn html(&self) -> String {
        let frame = Frame {
            title: self.title,
            name: self.name,
            nav: NAV,
            notes: &self.notes,
            body: &self.body,
            refresh: self.refresh,
        };
        frame.render().unwrap_or_else(|e| {
            tracing::error!(cause = %e, page = self.name, "a dashboard page did not render");
            format!("the page did not render: {e}")
        })
    }

    /// The page as a 200 answer.
    pub fn respond(&self) -> HttpResponse {
        HttpResponse::Ok()
            .content_type("text/html; charset=utf-8")
            .body(self.html())
    }
}

/// A body template rendered, or a line saying it did not render (logged).
pub fn render(template: &impl Template) -> String {
    template.render().unwrap_or_else(|e| {
        tracing::error!(cause = %e, "a dashboard template did not render");
        format!("<p class=\"error\">this part did not render: {e}</p>")
    })
}

/// The sign-in page (no data, no nav): the answer to a visitor without a session.
pub fn login_page(title: &str, text: &str) -> String {
    Login { title, text }.render().unwrap_or_else(|e| {
        tracing::error!(cause = %e, "the login page did not render");
        "sign in with the link `ollim-bot dashboard` prints".to_owned()
    })
}

/// `GET /static/dashboard.css`.
pub async fn css() -> impl Responder {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .body(CSS)
}
