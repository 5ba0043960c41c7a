//! What a job refers to must exist when it fires (SPEC §17): each skill its `skills:` names
//! (`skills/<name>/SKILL.md`, loading) and the subagent its `subagent:` binds it to. A job
//! whose reference is missing is blocked at fire time, so each gets a WARN here first.

use ollim_actors::jobs::JobSettings;
use ollim_actors::{jobs::skills, jobs::subagent_binding};

use super::{Check, Inputs};

/// A WARN for each skill `settings` names that is missing or broken, and for its subagent when
/// there is no such subagent.
pub fn checks(inputs: &Inputs<'_>, source: &str, settings: &JobSettings) -> Vec<Check> {
    let mut checks = Vec::new();
    for name in settings.skills.as_deref().unwrap_or(&[]) {
        let problem = match skills::read_skill(&inputs.data.skills(), name) {
            Ok(Some(_)) => continue,
            Ok(None) => format!("skill `{name}` not found (skills/{name}/SKILL.md)"),
            Err(e) => format!("skill `{name}` does not load: {e}"),
        };
        checks.push(Check::warn(
            source.to_owned(),
            format!("{problem}: the job is blocked when it fires"),
            "create the skill or take it out of the job's `skills:` list",
        ));
    }
    if let Some(name) = settings.subagent.as_deref() {
        let home = (inputs.env)("HOME").map(std::path::PathBuf::from);
        if subagent_binding::find(&inputs.data, home.as_deref(), name).is_none() {
            checks.push(Check::warn(
                source.to_owned(),
                format!("subagent `{name}` not found: the job is blocked when it fires"),
                format!(
                    "install .claude/agents/{name}.md in the data directory, or fix `subagent:`"
                ),
            ));
        }
    }
    checks
}
