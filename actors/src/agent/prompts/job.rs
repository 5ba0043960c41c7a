//! Whole job prompts: chain context and assembly (SPEC §9, §3); the tags and markers are in
//! [`crate::agent::prompts::tag`].
//!
//! Foreground: tag, skills section, body. Background: tag, preamble, skills section, body.
//! Reminders put each part on its own line: the tag, the late marker when overdue, the
//! preamble, then skills, chain context and body after a blank line. Routines follow the tag
//! with a space and run the parts together, each of which ends with its own blank line.
//! Webhooks: tag, preamble, skills section, then the fenced data and task
//! ([`crate::agent::prompts::webhook`]). A body that invokes a skill as `/name` comes first instead,
//! the rest after it ([`crate::agent::prompts::slash`]).

use std::path::Path;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::agent::prompts::forward::{build_forward_schedule, ScheduledItem};
use crate::agent::prompts::preamble::{build_preamble, BudgetFacts, GoogleStatus, PreambleInput};
use crate::agent::prompts::skill_section::{build_skills_section, CommandLimits};
use crate::agent::prompts::slash;
use crate::agent::prompts::tag::after_tag;
pub use crate::agent::prompts::tag::{interrupted_marker, late_marker, tag_for, Tag, TagKind};
use crate::jobs::skills::Skill;
use crate::jobs::{Job, Reminder, Routine, UpdateMode};

/// Chain context for a reminder with `max-chain > 0`: which check this is and whether
/// `follow_up_chain` can schedule another. `None` for plain reminders.
pub fn chain_context(reminder: &Reminder) -> Option<String> {
    if reminder.max_chain == 0 {
        return None;
    }
    let check = reminder.chain_depth + 1;
    let total = reminder.max_chain + 1;
    let settings = &reminder.settings;
    let reporting_blocked =
        settings.background && settings.update_main_session == UpdateMode::Blocked;
    let text = if !reminder.can_follow_up() {
        format!(
            "CHAIN CONTEXT: This is the FINAL check of a follow-up chain (check {check} of \
             {total}). `follow_up_chain` is NOT available: no further check will come, so this \
             is the last chance to act on this reminder. If it is still unresolved and the user \
             would regret missing it, reach out now; otherwise leave a note with \
             `report_updates`."
        )
    } else if reporting_blocked {
        format!(
            "CHAIN CONTEXT: This is a follow-up chain reminder (check {check} of {total}). \
             `follow_up_chain` is NOT available here because reporting is blocked for this \
             task, so the chain ends with this check."
        )
    } else {
        format!(
            "CHAIN CONTEXT: This is a follow-up chain reminder (check {check} of {total}). \
             `follow_up_chain` is available: call follow_up_chain(minutes_from_now=N) to \
             schedule another check. If the task is done or needs no more follow-up, don't \
             call it and the chain ends. When you reach out, say briefly that this is a \
             follow-up (\"checking in again\") so the user knows it is on purpose."
        )
    };
    Some(text)
}

/// A routine's prompt: `[routine:ID] ` then the preamble (background only), skills and body.
pub fn routine_prompt(routine: &Routine, preamble: Option<&str>, skills_section: &str) -> String {
    let job_tag = Tag {
        kind: if routine.settings.background {
            TagKind::RoutineBg
        } else {
            TagKind::Routine
        },
        id: routine.id.as_str(),
    };
    let preamble = preamble
        .filter(|_| routine.settings.background)
        .unwrap_or("");
    format!("{job_tag} {preamble}{skills_section}{}", routine.message)
}

/// A reminder's prompt, one part per line: tag, late marker, preamble (background only), then
/// skills, chain context and body, each after a blank line.
pub fn reminder_prompt(
    reminder: &Reminder,
    preamble: Option<&str>,
    skills_section: &str,
    late_marker: Option<&str>,
) -> String {
    let background = reminder.settings.background;
    let job_tag = Tag {
        kind: if background {
            TagKind::ReminderBg
        } else {
            TagKind::Reminder
        },
        id: reminder.id.as_str(),
    };
    let mut parts = vec![job_tag.to_string()];
    parts.extend(late_marker.map(str::to_owned));
    if let Some(preamble) = preamble.filter(|_| background) {
        parts.push(preamble.trim_end().to_owned());
    }
    let skills_section = skills_section.trim_end();
    if !skills_section.is_empty() {
        parts.push(format!("\n{skills_section}"));
    }
    parts.extend(chain_context(reminder).map(|c| format!("\n{c}")));
    parts.push(format!("\n{}", reminder.message));
    parts.join("\n")
}

/// What every background prompt's preamble is built from, besides the job itself.
#[derive(Debug, Clone, Copy)]
pub struct BackgroundContext<'a> {
    /// When the job fires.
    pub now: DateTime<Utc>,
    /// The configured zone.
    pub tz: Tz,
    /// The user is mid-conversation.
    pub busy: bool,
    /// Quiet hours are in effect until this time (`8:00 AM`); `None` outside them.
    pub quiet_until: Option<&'a str>,
    /// The ping budget now.
    pub budget: BudgetFacts,
    /// *(ours)* `spend today: $1.20 of $10.00` (`None`: no daily cap).
    pub spend: Option<&'a str>,
    /// Fire times of all jobs around now (see [`ScheduledItem`]).
    pub schedule_items: &'a [ScheduledItem],
    /// The job's effective tool list; `None` when tools are not restricted.
    pub allowed_tools: Option<&'a [String]>,
    /// Whether Google is connected.
    pub google: GoogleStatus,
}

impl BackgroundContext<'_> {
    /// The preamble for the job `current` (its entries are marked `[this task]`).
    pub fn preamble(&self, current: Option<&str>, allow_ping: bool, mode: UpdateMode) -> String {
        let schedule = build_forward_schedule(self.schedule_items, current, self.now);
        build_preamble(&PreambleInput {
            allow_ping,
            update_mode: mode,
            busy: self.busy,
            quiet_until: self.quiet_until,
            allowed_tools: self.allowed_tools,
            budget: self.budget,
            spend: self.spend,
            schedule: &schedule,
            tz: self.tz,
            google: self.google,
        })
    }
}

/// Everything [`assemble_job_prompt`] needs besides the job.
#[derive(Debug, Clone, Copy)]
pub struct JobPromptContext<'a> {
    /// Inputs of the preamble (used for background jobs only).
    pub background: BackgroundContext<'a>,
    /// All loaded skills; the job's `skills` are looked up here.
    pub skills: &'a [Skill],
    /// The data directory: where `` !`command` `` markers run.
    pub data_dir: &'a Path,
    /// The owner's home ([`crate::base::home_path::home`]): what a leading `~` in a
    /// `` !`command` `` stands for (`None`: it stays `~`).
    pub home: Option<&'a Path>,
    /// Bounds on command expansion.
    pub limits: CommandLimits,
    /// For an overdue reminder (or a routine run late for a missed time), when it was due.
    pub late_since: Option<DateTime<Utc>>,
    /// For a run again after a restart cut it off, when the first run started.
    pub interrupted_since: Option<DateTime<Utc>>,
    /// A webhook job's payload, fenced off as data in its prompt (`None`: no data).
    pub payload: Option<&'a serde_json::Map<String, serde_json::Value>>,
    /// *(ours)* What the job's `gate` command printed, added under `GATE OUTPUT:`.
    pub gate_output: Option<&'a str>,
    /// The body opens with `/name` of a skill in `skills/` (the runner checked): it goes
    /// first, where the CLI expands it ([`crate::agent::prompts::slash`]).
    pub invokes_skill: bool,
}

/// The first section of a `session: persistent` routine's preamble (SPEC §18).
pub const PERSISTENT_SESSION: &str = concat!(
    "This routine keeps a session of its own: what comes before this message is its earlier ",
    "runs, not the conversation with the user. Build on what you found and did then. When the ",
    "session grows large the bot compacts it before a run.\n\n",
);

/// The label the gate's output goes under.
pub const GATE_OUTPUT: &str = "GATE OUTPUT:";

/// `prompt` with the gate's output after it, under [`GATE_OUTPUT`]; unchanged when the gate
/// printed nothing.
pub fn with_gate_output(prompt: String, output: Option<&str>) -> String {
    match output.map(str::trim_end).filter(|o| !o.trim().is_empty()) {
        Some(output) => format!("{prompt}\n\n{GATE_OUTPUT}\n{output}"),
        None => prompt,
    }
}

/// Builds the full prompt for a firing job: runs the skills' commands, then assembles.
pub async fn assemble_job_prompt(job: &Job, ctx: &JobPromptContext<'_>) -> String {
    let settings = job.settings();
    let requested = settings.skills.as_deref().unwrap_or(&[]);
    let skills =
        build_skills_section(requested, ctx.skills, ctx.data_dir, ctx.home, &ctx.limits).await;
    // A job bound to a subagent is told to hand its work over, before its skills (SPEC §17).
    let skills = match settings.subagent.as_deref() {
        Some(name) => format!(
            "{}\n\n{skills}",
            crate::jobs::subagent_binding::instruction(name)
        ),
        None => skills,
    };
    let preamble = settings.background.then(|| {
        ctx.background.preamble(
            Some(job.id().as_str()),
            settings.allow_ping,
            settings.update_main_session,
        )
    });
    // A persistent routine is told where it is: its earlier runs, not the conversation.
    let preamble = preamble.map(|p| match job {
        Job::Routine(r) if r.session == crate::jobs::session_mode::SessionMode::Persistent => {
            format!("{PERSISTENT_SESSION}{p}")
        }
        _ => p,
    });
    let tz = ctx.background.tz;
    let markers: Vec<String> = [
        ctx.late_since.map(|due| late_marker(due, tz)),
        ctx.interrupted_since.map(|at| interrupted_marker(at, tz)),
    ]
    .into_iter()
    .flatten()
    .collect();
    let marker = (!markers.is_empty()).then(|| markers.join(" "));
    // A body invoking a skill goes first: the prompt is built without it, then follows it.
    let command = ctx
        .invokes_skill
        .then(|| slash::split_command(job.message()))
        .flatten();
    let (lead, rest_of_body) = match (command, job) {
        (None, _) => (None, job.message()),
        (Some((command, rest)), Job::Webhook(_)) => (Some(command), rest),
        (Some(_), _) => (Some(job.message()), ""),
    };
    let prompt = match job {
        Job::Routine(routine) => after_tag(
            routine_prompt(
                &Routine {
                    message: rest_of_body.to_owned(),
                    ..routine.clone()
                },
                preamble.as_deref(),
                &skills,
            ),
            marker.as_deref(),
        ),
        Job::Reminder(reminder) => reminder_prompt(
            &Reminder {
                message: rest_of_body.to_owned(),
                ..reminder.clone()
            },
            preamble.as_deref(),
            &skills,
            marker.as_deref(),
        ),
        Job::Webhook(hook) => after_tag(
            crate::agent::prompts::webhook::webhook_prompt(
                hook.id.as_str(),
                preamble.as_deref().unwrap_or(""),
                &skills,
                ctx.payload.unwrap_or(&serde_json::Map::new()),
                rest_of_body,
            ),
            marker.as_deref(),
        ),
    };
    let prompt = match lead {
        Some(lead) => slash::command_first(lead, &prompt),
        None => prompt,
    };
    with_gate_output(prompt, ctx.gate_output)
}

#[cfg(test)]
#[path = "job_tests.rs"]
mod tests;
