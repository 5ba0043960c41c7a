//! Preparing one job to run: the skills it names (all must load, [`super::skill_refs`]) and the
//! subagent it is bound to (it must exist), a background job's tool set (an unsafe pattern
//! blocks the run, SPEC §17), *(ours)* its condition gate, the screening gate, the facts its
//! prompt needs (asked of their owners: the budget, busy, *(ours)* quiet hours), and the prompt
//! itself (with the condition gate's output, when the job has one). First of all, *(ours)* the
//! spend caps: over one, nothing runs (SPEC §19). Nothing here keeps state;
//! the runner hands the result on.

use std::sync::Arc;

use actix::prelude::*;
use chrono_tz::Tz;

use super::{Blocked, RunError, RunJob, RunOutcome};
use crate::agent::permissions::tool_policy::ToolPolicy;
use crate::agent::prompts::job::{assemble_job_prompt, BackgroundContext, JobPromptContext};
use crate::agent::prompts::preamble::{BudgetFacts, GoogleStatus};
use crate::agent::prompts::skill_section::CommandLimits;
use crate::agent::tools::{BackgroundRules, SessionKind};
use crate::agent::webhook_screen::Screener;
use crate::base::data_dir::DataDir;
use crate::conversation::main_session::{FireJob, IsBusy, QuietHoursNow};
use crate::jobs::Job;
use crate::records::ping_budget::{PingBudget, Snapshot};
use crate::records::runs::{RunLog, Trigger};
use crate::records::runtime_config::RuntimeConfig;
use crate::records::spend::{run_budget_usd, Caps, SpendSoFar, Standing};
use crate::scheduling::fork::background::job_name;
use crate::scheduling::fork::background::RunBounds;

/// What preparing a job reads from the runner.
pub(super) struct Inputs {
    pub data_dir: DataDir,
    pub tz: Tz,
    pub limits: CommandLimits,
    pub budget: Addr<PingBudget>,
    pub busy: Option<Recipient<IsBusy>>,
    pub quiet: Option<Recipient<QuietHoursNow>>,
    pub screener: Option<Arc<dyn Screener>>,
    /// `tool-policy.yaml` as the runner last read it.
    pub tool_policy: ToolPolicy,
    /// The run log, asked what jobs have spent (SPEC §19).
    pub runs: Addr<RunLog>,
    /// The runtime settings as the runner last asked them (the spend caps, the run bounds).
    pub settings: RuntimeConfig,
}

/// A job ready to go: its turn or its fork's prompt, and for a background job the rules its
/// fork's tools follow.
pub(super) struct Prepared {
    /// The job and its prompt.
    pub fired: FireJob,
    /// A background job's tool rules (`None` for a foreground job).
    pub rules: Option<BackgroundRules>,
    /// A background job's bounds on this run (the CLI's `--max-budget-usd`, `--max-turns`).
    pub bounds: RunBounds,
}

/// What the spend caps allow `run` *(ours, SPEC §19)*: `Err` when a cap is reached and the job
/// must not wake a model (a run the owner started, or one started again after a restart, is
/// let through); else the bounds of its run and the preamble's spend line.
async fn spend_check(
    inputs: &Inputs,
    run: &RunJob,
) -> Result<(RunBounds, Option<String>), RunOutcome> {
    let caps = Caps::of(&inputs.settings);
    let spent = inputs.runs.send(SpendSoFar).await.map_err(|_| {
        RunOutcome::Failed(RunError::ActorGone {
            actor: "run_log",
            job: run.job.id().to_string(),
        })
    })?;
    let standing = spent.standing(caps);
    let exempt = run.trigger == Trigger::Manual || run.reopened.is_some();
    if standing.is_over() && !exempt {
        let plain = match &run.job {
            Job::Reminder(r) => Some(super::plain_reminder::plain_reminder_text(r)),
            _ => None,
        };
        return Err(RunOutcome::Skipped(super::Skip {
            job: run.job.id().to_string(),
            why: super::SkipReason::SpendLimit {
                notice: standing.notice().unwrap_or_default(),
                plain,
                background: run.job.settings().background,
            },
        }));
    }
    let left = match standing {
        Standing::Within { left_usd } if !exempt => left_usd,
        _ => None,
    };
    let limits = run.job.settings().limits;
    let job_cents = limits
        .max_cost_cents
        .unwrap_or(inputs.settings.job_max_cost_cents);
    let turns = limits
        .max_turns
        .unwrap_or_else(|| u32::try_from(inputs.settings.job_max_turns).unwrap_or(u32::MAX));
    let bounds = RunBounds {
        max_budget_usd: Some(run_budget_usd(job_cents, left)),
        max_turns: Some(turns),
    };
    Ok((bounds, spent.preamble_line(caps)))
}

/// Reads the job's skills, checks its subagent, puts a background job's tool set together, runs
/// the job's gate, screens, gathers the facts and builds the prompt; `Err` is the run's outcome
/// when it stops here (blocked by its skills, its subagent or an unsafe tool pattern, skipped
/// by its gate, dropped by screening, a gate that failed, or an owner that has stopped).
pub(super) async fn prepare(inputs: Inputs, run: RunJob) -> Result<Prepared, RunOutcome> {
    // Over a spend cap, nothing of the job runs (SPEC §19).
    let (bounds, spend_line) = spend_check(&inputs, &run).await?;
    // A job naming a skill that cannot be used does not run at all (SPEC §17).
    let skills =
        super::skill_refs::load(&inputs.data_dir, &run.job, &run.rel_path).map_err(|blocked| {
            RunOutcome::Skipped(super::Skip {
                job: run.job.id().to_string(),
                why: super::SkipReason::Skills(blocked),
            })
        })?;
    // So does a job bound to a subagent that does not exist.
    if let Some(name) = run.job.settings().subagent.as_deref() {
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        if crate::jobs::subagent_binding::find(&inputs.data_dir, home.as_deref(), name).is_none() {
            let update = matches!(run.job, Job::Routine(_) | Job::Reminder(_))
                .then(|| crate::jobs::subagent_binding::missing(&run.job, &run.rel_path, name));
            return Err(RunOutcome::Skipped(super::Skip {
                job: run.job.id().to_string(),
                why: super::SkipReason::Subagent {
                    name: name.to_owned(),
                    update,
                },
            }));
        }
    }
    let background = run.job.settings().background;
    // The tool set first: a job that must not run as written runs nothing, its gate included.
    let rules = if background {
        let made = crate::scheduling::fork::background::tools::rules(
            &run.job,
            &inputs.data_dir,
            &inputs.tool_policy,
            true,
        );
        match made {
            Ok(rules) => Some(rules),
            Err(unsafe_tools) => {
                return Err(RunOutcome::Blocked(Box::new(Blocked {
                    job: run.job.clone(),
                    name: job_name(&run.job, &run.rel_path),
                    file: run.rel_path.clone(),
                    reason: unsafe_tools.to_string(),
                })))
            }
        }
    } else {
        None
    };
    // The gate runs next, when the job starts (after any wait for a slot): it is cheaper than
    // screening, and its answer is about now.
    let gate_output = super::gate::open(&inputs.data_dir, &run).await?;
    if let Some(flagged) = screen(inputs.screener.as_deref(), &run).await {
        return Err(RunOutcome::Dropped { flagged });
    }
    let gone = |actor| {
        RunOutcome::Failed(RunError::ActorGone {
            actor,
            job: run.job.id().to_string(),
        })
    };
    let budget = if background {
        match inputs.budget.send(Snapshot).await {
            Ok(snapshot) => BudgetFacts::from(&snapshot),
            Err(_) => return Err(gone("ping_budget")),
        }
    } else {
        BudgetFacts::empty()
    };
    let busy = match (&inputs.busy, background) {
        (Some(main), true) => match main.send(IsBusy).await {
            Ok(busy) => busy,
            Err(_) => return Err(gone("main_session")),
        },
        _ => false,
    };
    let quiet_until = match (&inputs.quiet, background) {
        (Some(main), true) => match main.send(QuietHoursNow).await {
            Ok(quiet) => quiet.until_text(),
            Err(_) => return Err(gone("main_session")),
        },
        _ => None,
    };
    // A background job is always restricted (the default set counts): its preamble lists the
    // set its fork is offered.
    let tools = rules
        .as_ref()
        .map(|rules| SessionKind::Background(rules.clone()).effective_allowed());
    let home = crate::base::home_path::home();
    let ctx = JobPromptContext {
        background: BackgroundContext {
            now: run.fired_at,
            tz: inputs.tz,
            busy,
            quiet_until: quiet_until.as_deref(),
            budget,
            spend: spend_line.as_deref(),
            schedule_items: &run.schedule,
            allowed_tools: tools.as_deref(),
            google: if background {
                google_status(&inputs.data_dir, run.fired_at)
            } else {
                GoogleStatus::NotConnected
            },
        },
        skills: &skills,
        data_dir: inputs.data_dir.root(),
        home: home.as_deref(),
        limits: inputs.limits,
        late_since: run.late_since,
        interrupted_since: run.reopened.as_ref().and_then(|r| r.interrupted_since),
        payload: Some(&run.payload),
        gate_output: gate_output.as_deref(),
        invokes_skill: super::skill_refs::invokes_skill(&inputs.data_dir, &run.job),
    };
    let prompt = assemble_job_prompt(&run.job, &ctx).await;
    let late = run.late_since.is_some();
    let again = run.reopened.is_some();
    let retry = run.retry;
    tracing::info!(job = %run.job.id(), file = %run.rel_path, late, again, retry, "job fired");
    let fired = FireJob {
        job: run.job,
        prompt,
        due_at: run.due_at,
        fired_at: run.fired_at,
        late,
        rel_path: run.rel_path,
    };
    Ok(Prepared {
        fired,
        rules,
        bounds,
    })
}

/// The screening gate: the names of flagged fields when the payload must be dropped. A
/// screening that fails lets the payload through (SPEC §13: fail open).
async fn screen(screener: Option<&dyn Screener>, run: &RunJob) -> Option<Vec<String>> {
    if run.screen.is_empty() {
        return None;
    }
    let Some(screener) = screener else {
        tracing::warn!(job = %run.job.id(), "no screener here: payload not screened");
        return None;
    };
    match screener.screen(&run.screen).await {
        Ok(flagged) if !flagged.is_empty() => {
            tracing::warn!(job = %run.job.id(), flagged = ?flagged, "payload flagged as prompt injection; dropped");
            Some(flagged)
        }
        Ok(_) => None,
        Err(err) => {
            tracing::warn!(job = %run.job.id(), cause = %err, "screening failed; letting the payload through");
            None
        }
    }
}

/// Whether Google is connected, from the files alone: a grant whose access token is valid or
/// can be refreshed.
fn google_status(data: &DataDir, now: chrono::DateTime<chrono::Utc>) -> GoogleStatus {
    match crate::google::connection(data, now) {
        crate::google::Connection::Connected {
            expired,
            refreshable,
        } if !expired || refreshable => GoogleStatus::Connected,
        _ => GoogleStatus::NotConnected,
    }
}
