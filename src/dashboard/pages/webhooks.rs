//! Webhooks (`/webhooks`): the specs in `webhooks/` as the server reads them on each request
//! (the same loader, so a spec it would refuse shows here with why), the server's recent
//! answers — accepted, duplicate, refused and why — kept by its admission actor
//! ([`RecentVerdicts`]), and what the accepted ones then did: their lines in the run history
//! (screening's verdict shows there, as a skip "screening flagged …").

use actix_web::{web, HttpResponse};
use askama::Template;
use ollim_actors::bot::webhook_server::verdicts::RecentVerdicts;
use ollim_actors::jobs::webhook_auth::HookAuth;
use ollim_actors::jobs::webhook_spec::{load_specs, WebhookSpec};
use ollim_actors::records::runs::{History, JobKind};
use ollim_actors::records::usage::render::usd;

use super::runs::duration;
use super::ActorGone;
use crate::dashboard::guard::Session;
use crate::dashboard::layout::{self, Page};
use crate::dashboard::Dash;

/// Most webhook runs listed.
pub const RUNS_SHOWN: usize = 30;

struct SpecRow {
    id: String,
    file: String,
    auth: String,
    rate: u32,
    fields: String,
    mode: &'static str,
}

struct Broken {
    file: String,
    why: String,
}

struct VerdictRow {
    when: String,
    hook: String,
    status: u16,
    note: String,
    class: &'static str,
}

struct RunRow {
    when: String,
    job: String,
    run: String,
    outcome: &'static str,
    class: &'static str,
    error: String,
    cost: String,
    duration: String,
}

#[derive(Template)]
#[template(path = "dashboard/webhooks.html")]
struct Body {
    server_on: bool,
    specs: Vec<SpecRow>,
    broken: Vec<Broken>,
    verdicts: Vec<VerdictRow>,
    runs: Vec<RunRow>,
}

/// The payload's fields as the spec declares them: `repo*, status, note` (`*`: required).
fn fields(spec: &WebhookSpec) -> String {
    let required: Vec<&str> = spec
        .fields
        .get("required")
        .and_then(|r| r.as_array())
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let names: Vec<String> = spec
        .fields
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|p| {
            p.keys()
                .map(|k| {
                    if required.contains(&k.as_str()) {
                        format!("{k}*")
                    } else {
                        k.clone()
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    if names.is_empty() {
        "—".to_owned()
    } else {
        names.join(", ")
    }
}

fn auth_text(auth: &HookAuth) -> String {
    match auth {
        HookAuth::Bearer => "bearer (WEBHOOK_SECRET)".to_owned(),
        HookAuth::Standard { secret_env } | HookAuth::GitHub { secret_env } => {
            format!("{} (secret in {secret_env})", auth.as_str())
        }
    }
}

/// `GET /webhooks`.
pub async fn page(_session: Session, dash: web::Data<Dash>) -> Result<HttpResponse, ActorGone> {
    let data = dash.data_dir.clone();
    let loaded = tokio::task::spawn_blocking(move || {
        let dir = data.webhooks();
        let rel = |p: &std::path::Path| {
            p.strip_prefix(data.root())
                .unwrap_or(p)
                .display()
                .to_string()
        };
        load_specs(&dir).map(|loaded| {
            let specs: Vec<SpecRow> = loaded
                .items
                .iter()
                .map(|(path, spec)| SpecRow {
                    id: spec.id.clone(),
                    file: rel(path),
                    auth: auth_text(&spec.auth),
                    rate: spec.rate_limit,
                    fields: fields(spec),
                    mode: if spec.isolated { "isolated" } else { "fork" },
                })
                .collect();
            let broken: Vec<Broken> = loaded
                .skipped
                .iter()
                .map(|(path, why)| Broken {
                    file: rel(path),
                    why: why.to_string(),
                })
                .collect();
            (specs, broken)
        })
    })
    .await
    .map_err(|_| ActorGone("webhooks page's reader"))?;
    let mut notes = Vec::new();
    let (specs, broken) = loaded.unwrap_or_else(|e| {
        notes.push(format!("the specs could not be read: {e}"));
        (Vec::new(), Vec::new())
    });
    let tz = dash.tz;
    let verdicts = match &dash.hook_admission {
        Some(admission) => admission
            .send(RecentVerdicts)
            .await
            .map_err(|_| ActorGone("webhook server"))?,
        None => Vec::new(),
    };
    let verdicts = verdicts
        .into_iter()
        .map(|v| VerdictRow {
            when: v.at.with_timezone(&tz).format("%a %H:%M:%S").to_string(),
            class: match v.status {
                200..=299 => "ok",
                429 | 500..=599 => "warning",
                _ => "error",
            },
            hook: v.hook,
            status: v.status,
            note: v.note,
        })
        .collect();
    let records = dash
        .handles
        .run_log
        .send(History {
            job: None,
            kind: Some(JobKind::Webhook),
            limit: RUNS_SHOWN,
        })
        .await
        .map_err(|_| ActorGone("run log"))?;
    let runs = records
        .into_iter()
        .rev()
        .map(|r| RunRow {
            when: r.ended.with_timezone(&tz).format("%a %H:%M:%S").to_string(),
            outcome: r.outcome.as_str(),
            class: match r.outcome {
                ollim_actors::records::runs::Outcome::Ok => "ok",
                o if o.is_failure() => "error",
                _ => "warning",
            },
            error: r.error.clone().unwrap_or_default(),
            cost: r.cost_usd.map(usd).unwrap_or_else(|| "—".to_owned()),
            duration: duration(&r),
            job: r.job.to_string(),
            run: r.run,
        })
        .collect();
    let body = Body {
        server_on: dash.hook_admission.is_some(),
        specs,
        broken,
        verdicts,
        runs,
    };
    Ok(Page {
        name: "webhooks",
        title: "Webhooks",
        notes,
        body: layout::render(&body),
        refresh: 60,
    }
    .respond())
}
