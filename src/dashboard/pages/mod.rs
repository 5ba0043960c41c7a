//! One module per dashboard page. Each asks the actors that own its facts and renders a body
//! for [`super::layout::Page`].

pub mod health;
pub mod job_edit;
pub mod jobs;
pub mod memory;
pub mod runs;
pub mod spend;
pub mod today;
pub mod updates;
pub mod webhooks;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};

/// Why a page could not be shown: an actor it asks has stopped.
#[derive(Debug, thiserror::Error)]
#[error("the {0} has stopped; the bot's log says why")]
pub struct ActorGone(pub &'static str);

impl ResponseError for ActorGone {
    fn status_code(&self) -> StatusCode {
        StatusCode::SERVICE_UNAVAILABLE
    }

    fn error_response(&self) -> HttpResponse {
        tracing::error!(actor = self.0, "dashboard: a page's actor has stopped");
        HttpResponse::ServiceUnavailable()
            .content_type("text/plain; charset=utf-8")
            .body(self.to_string())
    }
}

/// A money amount as people read it: `$0.42`.
pub fn dollars(usd: f64) -> String {
    format!("${usd:.2}")
}
