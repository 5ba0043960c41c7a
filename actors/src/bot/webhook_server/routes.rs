//! `POST /hook/<id>` (SPEC §13, §20): each check in turn, its refusal as a status and a JSON
//! body, and on success a 202 `{"status":"accepted"}` with the job started after the answer.

use std::path::{Path, PathBuf};
use std::time::Duration;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::{json, Map, Value};

use actix::Addr;

use super::admission::{Admission, ClaimDelivery, CountRequest, MAX_ID_BYTES};
use super::auth::{authenticate, bearer_matches, secret_in_query, Refusal};
use super::checks::{check_payload, keep_declared, Rejection};
use super::dispatch::dispatch;
use super::verdicts::{RecordVerdict, Verdict};
use super::HookConfig;
use crate::jobs::webhook_auth::HookAuth;
use crate::jobs::webhook_spec::{load_specs, WebhookSpec};
use crate::jobs::JobId;

/// Largest body accepted from a bearer hook, in bytes.
pub const MAX_BODY_BYTES: usize = 10 * 1024;

/// Largest body accepted from a signed hook (`auth: github|standard`), in bytes: a service
/// such as GitHub sends its whole event (a `workflow_run` delivery is often 20–40 KB), of
/// which the spec keeps only what it declares ([`keep_declared`]).
pub const MAX_SIGNED_BODY_BYTES: usize = 1024 * 1024;

/// Longest the body may take to arrive once the head is read (the head has its own limit, the
/// server's `client_request_timeout`). 10 KB in 10 s is slow enough for any real sender, and a
/// body trickled byte by byte cannot hold a connection open past it.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

fn answer(status: StatusCode, body: Value) -> HttpResponse {
    HttpResponse::build(status).json(body)
}

fn error(status: StatusCode, message: impl Into<String>) -> HttpResponse {
    answer(status, json!({ "error": message.into() }))
}

/// The handler: [`answer_hook`], whose answer is then kept as a [`Verdict`] by the admission
/// actor for the dashboard (its `status` or `error` text; the body is already in memory).
pub async fn hook(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    config: web::Data<HookConfig>,
    admission: web::Data<Addr<Admission>>,
) -> HttpResponse {
    let hook_id = id.as_str().to_owned();
    let clock = config.clock.clone();
    let keeper = admission.get_ref().clone();
    let response = answer_hook(req, id, payload, config, admission).await;
    let status = response.status().as_u16();
    let (head, body) = response.into_parts();
    let body = match body.try_into_bytes() {
        Ok(bytes) => {
            let note = serde_json::from_slice::<Value>(&bytes)
                .ok()
                .and_then(|v| {
                    v.get("status")
                        .or_else(|| v.get("error"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_default();
            keeper.do_send(RecordVerdict(Verdict::new(
                clock.now(),
                &hook_id,
                status,
                &note,
            )));
            BoxBody::new(bytes)
        }
        Err(body) => {
            keeper.do_send(RecordVerdict(Verdict::new(
                clock.now(),
                &hook_id,
                status,
                "",
            )));
            body
        }
    };
    head.set_body(body)
}

/// Answers one request: no secret in the URL (400), the spec (401 without a good bearer token
/// when it is unknown, else 404), the body, the sender's proof ([`authenticate`], 401), the
/// hook's rate limit (429 with `Retry-After`), the payload checks, a delivery id already
/// accepted in the last 24 hours (200 `duplicate`, nothing started), then 202 and the job.
async fn answer_hook(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    config: web::Data<HookConfig>,
    admission: web::Data<Addr<Admission>>,
) -> HttpResponse {
    let bearer = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .map(|v| v.as_bytes());
    let bearer_ok = bearer_matches(bearer, &config.secret);
    if secret_in_query(req.query_string(), &[&config.secret]) {
        tracing::warn!("webhook request with a secret in its URL refused; rotate that secret");
        return error(
            StatusCode::BAD_REQUEST,
            "secrets must never be sent in the URL; send them in headers",
        );
    }
    let Ok(id) = JobId::parse(&id.into_inner()) else {
        return if bearer_ok {
            error(StatusCode::NOT_FOUND, "webhook not found")
        } else {
            error(StatusCode::UNAUTHORIZED, "unauthorized")
        };
    };
    let id = id.0;
    let (path, spec) = match find(&config.data_dir.webhooks(), &id) {
        Ok(Some(found)) => found,
        Ok(None) if bearer_ok => {
            return error(StatusCode::NOT_FOUND, format!("webhook not found: {id}"))
        }
        Ok(None) => return error(StatusCode::UNAUTHORIZED, "unauthorized"),
        Err(err) => {
            tracing::error!(webhook = %id, cause = %err, "reading webhook specs failed");
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "could not read webhook specs",
            );
        }
    };
    if spec.auth == HookAuth::Bearer && !bearer_ok {
        return error(StatusCode::UNAUTHORIZED, "unauthorized");
    }
    let limit = match spec.auth {
        HookAuth::Bearer => MAX_BODY_BYTES,
        HookAuth::Standard { .. } | HookAuth::GitHub { .. } => MAX_SIGNED_BODY_BYTES,
    };
    let body = actix_web::rt::time::timeout(BODY_TIMEOUT, payload.to_bytes_limited(limit));
    let body = match body.await {
        Ok(Ok(Ok(body))) => body,
        Ok(Ok(Err(_))) => return error(StatusCode::BAD_REQUEST, "could not read the body"),
        Ok(Err(_)) => {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("payload too large (limit {limit} bytes)"),
            )
        }
        Err(_) => {
            tracing::warn!(webhook = %id, "webhook body did not arrive in time; closing the connection");
            let body = json!({ "error": format!("the body did not arrive within {} seconds", BODY_TIMEOUT.as_secs()) });
            return HttpResponse::build(StatusCode::REQUEST_TIMEOUT)
                .force_close()
                .json(body);
        }
    };
    let delivery = match authenticate(
        &req,
        &spec.auth,
        &config.secret,
        &body,
        config.clock.now().timestamp(),
    ) {
        Ok(delivery) => delivery,
        Err(Refusal::NoSecret(why)) => {
            tracing::error!(webhook = %id, reason = %why, "webhook secret unavailable");
            return error(StatusCode::INTERNAL_SERVER_ERROR, why);
        }
        Err(refusal) => {
            tracing::warn!(webhook = %id, reason = %refusal, "webhook request refused");
            return error(StatusCode::UNAUTHORIZED, refusal.to_string());
        }
    };
    if let Some(delivery) = &delivery {
        if delivery.is_empty() || delivery.len() > MAX_ID_BYTES {
            return error(StatusCode::BAD_REQUEST, "delivery id is empty or too long");
        }
    }
    let counted = admission
        .send(CountRequest {
            hook: id.clone(),
            limit: spec.rate_limit,
        })
        .await;
    match counted {
        Ok(Ok(())) => {}
        Ok(Err(wait)) => {
            tracing::warn!(webhook = %id, limit = spec.rate_limit, "webhook rate limit reached");
            return HttpResponse::build(StatusCode::TOO_MANY_REQUESTS)
                .insert_header((actix_web::http::header::RETRY_AFTER, wait.to_string()))
                .json(json!({ "error": format!("rate limit: {} requests a minute", spec.rate_limit) }));
        }
        Err(e) => {
            tracing::error!(webhook = %id, cause = %e, "the admission actor has stopped");
            return error(StatusCode::INTERNAL_SERVER_ERROR, "webhook server stopping");
        }
    }
    if matches!(spec.auth, HookAuth::GitHub { .. }) && github_event(&req) == Some("ping") {
        tracing::info!(webhook = %id, "GitHub's ping delivery answered; nothing started");
        return answer(StatusCode::OK, json!({"status": "pong"}));
    }
    let data: Map<String, Value> = match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return error(StatusCode::BAD_REQUEST, "payload must be a JSON object"),
        Err(_) => return error(StatusCode::BAD_REQUEST, "invalid json"),
    };
    let data = match spec.auth {
        HookAuth::Bearer => data,
        HookAuth::Standard { .. } | HookAuth::GitHub { .. } => keep_declared(&spec.fields, data),
    };
    if let Err(rejection) = check_payload(&spec, &data) {
        return refuse(&id, rejection);
    }
    if let Some(delivery) = delivery {
        let claim = ClaimDelivery {
            hook: id.clone(),
            id: delivery,
        };
        match admission.send(claim).await {
            Ok(true) => {}
            Ok(false) => {
                tracing::info!(webhook = %id, "duplicate delivery; nothing started");
                return answer(StatusCode::OK, json!({"status": "duplicate"}));
            }
            Err(e) => {
                tracing::error!(webhook = %id, cause = %e, "the admission actor has stopped");
                return error(StatusCode::INTERNAL_SERVER_ERROR, "webhook server stopping");
            }
        }
    }
    let rel_path = path
        .strip_prefix(config.data_dir.root())
        .unwrap_or(&path)
        .to_string_lossy()
        .into_owned();
    tracing::info!(webhook = %id, "webhook accepted");
    actix_web::rt::spawn(dispatch(config.into_inner(), spec, data, rel_path));
    answer(StatusCode::ACCEPTED, json!({"status": "accepted"}))
}

/// GitHub's `X-GitHub-Event` header (`ping`, `workflow_run`, …).
fn github_event(req: &HttpRequest) -> Option<&str> {
    req.headers()
        .get("x-github-event")
        .and_then(|v| v.to_str().ok())
}

fn refuse(id: &str, rejection: Rejection) -> HttpResponse {
    match rejection {
        Rejection::TooManyProperties { .. }
        | Rejection::BadSchema { .. }
        | Rejection::UndeclaredPlaceholders { .. } => {
            tracing::error!(webhook = %id, reason = %rejection, "webhook spec unusable");
            error(StatusCode::INTERNAL_SERVER_ERROR, rejection.to_string())
        }
        Rejection::UndeclaredFields { ref details } => {
            tracing::warn!(webhook = %id, count = details.len(), "payload refused: fields the spec does not declare");
            answer(
                StatusCode::BAD_REQUEST,
                json!({"error": rejection.to_string(), "details": details}),
            )
        }
        Rejection::Invalid { ref details } => answer(
            StatusCode::BAD_REQUEST,
            json!({"error": rejection.to_string(), "details": details}),
        ),
        Rejection::MissingFields { .. } => error(StatusCode::BAD_REQUEST, rejection.to_string()),
    }
}

/// The spec with YAML id `id` and its file, read now so edits apply without a restart.
fn find(dir: &Path, id: &str) -> Result<Option<(PathBuf, WebhookSpec)>, crate::jobs::store::Error> {
    Ok(load_specs(dir)?
        .items
        .into_iter()
        .find(|(_, spec)| spec.id == id))
}
