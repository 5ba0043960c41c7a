//! What happens to an accepted webhook after the 202 has gone out (SPEC §13): the spec becomes a
//! background job with its settings, and goes with its payload, the free-form fields to screen
//! and the forward schedule to the job runner — the one fire path, which screens, builds the
//! prompt (preamble with the budget and busy flag as they are then) and starts the fork.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::HookConfig;
use crate::agent::webhook_screen::free_form_fields;
use crate::jobs::webhook_spec::WebhookSpec;
use crate::jobs::Job;
use crate::scheduling::job_runner::{RunJob, RunOutcome};
use crate::scheduling::scheduler::ForwardItems;

/// A spec as a background job: its settings, always in the background.
pub fn job_for(spec: &WebhookSpec) -> Job {
    spec.job()
}

/// Hands the accepted hook to the job runner with the forward schedule as the scheduler has it
/// now; the runner screens the free-form fields, builds the prompt and starts the fork.
/// `rel_path` is the spec's file relative to the data directory (`webhooks/<file>.md`).
pub async fn dispatch(
    config: Arc<HookConfig>,
    spec: WebhookSpec,
    data: Map<String, Value>,
    rel_path: String,
) {
    let schedule = match &config.schedule {
        Some(scheduler) => match scheduler.send(ForwardItems).await {
            Ok(items) => items,
            Err(e) => {
                tracing::error!(webhook = %spec.id, cause = %e, "the scheduler has stopped; webhook not run");
                return;
            }
        },
        None => Vec::new(),
    };
    // The checks refused undeclared fields already; keeping only declared ones here as well
    // means nothing else can ever reach the prompt.
    let data: Map<String, Value> = data
        .into_iter()
        .filter(|(key, _)| spec.declares(key))
        .collect();
    let now = config.clock.now();
    let run = RunJob {
        schedule,
        screen: free_form_fields(&spec, &data),
        payload: data,
        ..RunJob::new(job_for(&spec), rel_path, now, now)
    };
    tracing::info!(webhook = %spec.id, file = %run.rel_path, "webhook dispatched");
    match config.runner.send(run).await {
        Ok(RunOutcome::Failed(e)) => {
            tracing::error!(webhook = %spec.id, cause = %e, "webhook job did not run");
        }
        Ok(outcome) => tracing::debug!(webhook = %spec.id, ?outcome, "webhook job handed on"),
        Err(e) => {
            tracing::error!(webhook = %spec.id, cause = %e, "the job runner has stopped; webhook not run");
        }
    }
}
