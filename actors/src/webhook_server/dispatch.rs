//! What happens to an accepted webhook after the 202 has gone out (SPEC §13): screening of
//! the free-form fields, then the prompt (preamble with the budget, busy flag and forward
//! schedule as they are now) and a [`FireJob`] for the main session, which runs it as a
//! background fork with the spec's settings.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::HookConfig;
use crate::jobs::{Job, JobId, JobSettings, WebhookJob};
use crate::ping_budget::Snapshot;
use crate::prompts::job::BackgroundContext;
use crate::prompts::preamble::BudgetFacts;
use crate::prompts::webhook::webhook_prompt_for;
use crate::scheduler::{FireJob, ForwardItems, IsBusy};
use crate::webhook_screen::free_form_fields;
use crate::webhook_spec::WebhookSpec;

/// A spec as a background job: its settings, always in the background.
pub fn job_for(spec: &WebhookSpec) -> Job {
    Job::Webhook(WebhookJob {
        id: JobId(spec.id.clone()),
        message: spec.template.clone(),
        settings: JobSettings {
            background: true,
            model: spec.model,
            thinking: spec.thinking,
            isolated: spec.isolated,
            description: String::new(),
            update_main_session: spec.update_main_session,
            allow_ping: spec.allow_ping,
            allowed_tools: spec.allowed_tools.clone(),
            skills: None,
        },
    })
}

/// Screens the payload and, unless it is flagged, sends the job. `rel_path` is the spec's
/// file relative to the data directory (`webhooks/<file>.md`).
pub async fn dispatch(
    config: Arc<HookConfig>,
    spec: WebhookSpec,
    data: Map<String, Value>,
    rel_path: String,
) {
    let fields = free_form_fields(&spec, &data);
    if !fields.is_empty() {
        match config.screener.screen(&fields).await {
            Ok(flagged) if !flagged.is_empty() => {
                tracing::warn!(webhook = %spec.id, flagged = ?flagged, "webhook payload flagged as prompt injection; dropped");
                return;
            }
            Ok(_) => {}
            Err(err) => {
                tracing::warn!(webhook = %spec.id, cause = %err, "webhook screening failed; letting the payload through");
            }
        }
    }
    let budget = match &config.budget {
        Some(budget) => match budget.send(Snapshot).await {
            Ok(s) => BudgetFacts::from(&s),
            Err(e) => {
                tracing::warn!(cause = %e, "ping budget did not answer; assuming it is empty");
                BudgetFacts::empty()
            }
        },
        None => BudgetFacts::empty(),
    };
    let busy = match &config.busy {
        Some(r) => r.send(IsBusy).await.unwrap_or(false),
        None => false,
    };
    let now = config.clock.now();
    let items = match &config.schedule {
        Some(scheduler) => scheduler.send(ForwardItems).await.unwrap_or_else(|e| {
            tracing::warn!(cause = %e, "scheduler did not answer; no forward schedule");
            Vec::new()
        }),
        None => Vec::new(),
    };
    let ctx = BackgroundContext {
        now,
        tz: config.tz,
        busy,
        budget,
        schedule_items: &items,
        allowed_tools: spec.allowed_tools.as_deref(),
    };
    let prompt = webhook_prompt_for(&spec, &data, &ctx);
    tracing::info!(webhook = %spec.id, file = %rel_path, "webhook dispatched");
    config.jobs.do_send(FireJob {
        job: job_for(&spec),
        prompt,
        due_at: now,
        fired_at: now,
        late: false,
        rel_path,
    });
}
