//! The skills a job refers to, read when it starts (SPEC §3, §17): the ones its `skills:` list
//! names, which must all load or the job is blocked, and the one its body may invoke as
//! `/name` ([`crate::agent::prompts::slash`]).
//!
//! A blocked job wakes no model: its run is recorded as skipped, naming each missing or broken
//! skill, and for a routine or reminder a pending update tells the agent which job did not run
//! and why, so it can fix the job or create the skill (a webhook's sender is told nothing; the
//! log and the run history have it). Skills are read at every start, so an edit takes effect
//! at the next fire.

use std::fmt;

use crate::base::data_dir::DataDir;
use crate::jobs::skills::{self, Skill};
use crate::jobs::Job;

/// A skill a job names that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSkill {
    /// The name as the job wrote it.
    pub name: String,
    /// Why: `None` when there is no such skill, else why its file does not load.
    pub broken: Option<String>,
}

impl fmt::Display for BadSkill {
    /// `skill `x` not found (skills/x/SKILL.md)` or `skill `x` does not load: <why>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.name;
        match &self.broken {
            None => write!(f, "skill `{name}` not found (skills/{name}/SKILL.md)"),
            Some(why) => write!(f, "skill `{name}` does not load: {why}"),
        }
    }
}

/// A job blocked by the skills it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedBySkills {
    /// Each skill that cannot be used, in the job's order.
    pub skills: Vec<BadSkill>,
    /// What the agent is told, for a routine or reminder.
    pub update: Option<String>,
}

impl fmt::Display for BlockedBySkills {
    /// What the run history says: `blocked: skill `x` not found (…); skill `y` …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "blocked: {}", list(&self.skills))
    }
}

fn list(skills: &[BadSkill]) -> String {
    skills
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Every skill `job` names, read now; `Err` when any is missing or does not load. `rel_path`
/// is the job's file, for the pending update.
pub(super) fn load(
    data: &DataDir,
    job: &Job,
    rel_path: &str,
) -> Result<Vec<Skill>, BlockedBySkills> {
    let dir = data.skills();
    let names = job.settings().skills.as_deref().unwrap_or(&[]);
    let mut found = Vec::with_capacity(names.len());
    let mut bad = Vec::new();
    for name in names {
        match skills::read_skill(&dir, name) {
            Ok(Some(skill)) => found.push(skill),
            Ok(None) => bad.push(BadSkill {
                name: name.clone(),
                broken: None,
            }),
            Err(e) => bad.push(BadSkill {
                name: name.clone(),
                broken: Some(e.to_string()),
            }),
        }
    }
    if bad.is_empty() {
        return Ok(found);
    }
    tracing::warn!(job = %job.id(), file = rel_path, skills = %list(&bad), "job blocked: a skill it names cannot be used");
    let update = pending_update(job, rel_path, &bad);
    Err(BlockedBySkills {
        skills: bad,
        update,
    })
}

/// The pending update for a blocked routine or reminder (`None` for a webhook).
fn pending_update(job: &Job, rel_path: &str, bad: &[BadSkill]) -> Option<String> {
    let kind = match job {
        Job::Routine(_) => "Routine",
        Job::Reminder(_) => "Reminder",
        Job::Webhook(_) => return None,
    };
    Some(format!(
        "{kind} {} ({rel_path}) was blocked and did not run: {}. Create the skill or fix the \
         job's `skills:` list.",
        job.id(),
        list(bad)
    ))
}

/// Whether `job`'s body opens with `/name` of a skill in `skills/` that loads, so the CLI can
/// expand it. Another leading `/word` (a built-in CLI command, a path) stays plain text.
pub(super) fn invokes_skill(data: &DataDir, job: &Job) -> bool {
    let Some(name) = crate::agent::prompts::slash::leading_command(job.message()) else {
        return false;
    };
    match skills::read_skill(&data.skills(), name) {
        Ok(Some(_)) => true,
        Ok(None) => {
            tracing::debug!(job = %job.id(), command = name, "body opens with /name of no skill; sent as text");
            false
        }
        Err(e) => {
            tracing::warn!(job = %job.id(), command = name, cause = %e, "body invokes a skill that does not load; sent as text");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::prompts::test_jobs::{reminder, routine, settings};

    fn data_with(skills: &[(&str, &str)]) -> (tempfile::TempDir, DataDir) {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path().join("data"));
        for (name, text) in skills {
            let dir = data.skills().join(name);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("SKILL.md"), text).unwrap();
        }
        (tmp, data)
    }

    fn naming(names: &[&str]) -> crate::jobs::JobSettings {
        crate::jobs::JobSettings {
            skills: Some(names.iter().map(|n| (*n).to_owned()).collect()),
            ..settings(true)
        }
    }

    #[test]
    fn every_named_skill_loads_in_order() {
        let (_tmp, data) = data_with(&[
            ("a", "---\ndescription: \"A\"\n---\nDo A.\n"),
            ("b", "---\nname: b\n---\nDo B.\n"),
        ]);
        let job = Job::Routine(routine("r1", naming(&["b", "a"])));
        let names: Vec<_> = load(&data, &job, "routines/r1.md")
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["b", "a"]);
    }

    #[test]
    fn a_missing_or_broken_skill_blocks_the_job_naming_each() {
        let (_tmp, data) = data_with(&[
            ("ok", "---\ndescription: \"fine\"\n---\nFine.\n"),
            ("bad", "---\nname: other\n---\nWrong directory.\n"),
        ]);
        let job = Job::Reminder(reminder(
            "m1",
            0,
            0,
            naming(&["ghost", "ok", "bad", "../x"]),
        ));
        let blocked = load(&data, &job, "reminders/stretch.md").unwrap_err();
        let names: Vec<_> = blocked.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ghost", "bad", "../x"]);
        let text = blocked.to_string();
        assert!(
            text.starts_with("blocked: skill `ghost` not found (skills/ghost/SKILL.md); skill `bad` does not load: "),
            "{text}"
        );
        assert!(text.contains("does not match its directory"), "{text}");
        assert_eq!(
            blocked.update.as_deref(),
            Some(format!(
                "Reminder m1 (reminders/stretch.md) was blocked and did not run: {}. Create the \
                 skill or fix the job's `skills:` list.",
                text.trim_start_matches("blocked: ")
            ))
            .as_deref()
        );
    }

    #[test]
    fn a_blocked_webhook_gets_no_pending_update() {
        let (_tmp, data) = data_with(&[]);
        let job = Job::Webhook(crate::jobs::WebhookJob {
            id: crate::jobs::JobId("ci".into()),
            message: "Look.".into(),
            settings: naming(&["ghost"]),
        });
        let blocked = load(&data, &job, "webhooks/ci.md").unwrap_err();
        assert_eq!(blocked.update, None);
        assert_eq!(
            blocked.to_string(),
            "blocked: skill `ghost` not found (skills/ghost/SKILL.md)"
        );
    }

    #[test]
    fn only_a_skill_that_loads_is_invoked_by_a_leading_slash() {
        let (_tmp, data) = data_with(&[
            (
                "weekly-review",
                "---\ndescription: \"Review.\"\n---\nReview.\n",
            ),
            ("broken", "---\nname: nope\n---\nx\n"),
        ]);
        let with_body = |body: &str| {
            let mut r = routine("r1", settings(true));
            r.message = body.to_owned();
            Job::Routine(r)
        };
        assert!(invokes_skill(&data, &with_body("/weekly-review extra")));
        for body in ["/cost", "/broken now", "weekly-review", "/tmp is full"] {
            assert!(!invokes_skill(&data, &with_body(body)), "{body}");
        }
    }
}
