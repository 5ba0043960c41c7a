//! The skills shipped with the bot (SPEC §17): `job-config` (how to choose a background job's
//! tools and flags) and `improve-routine` (diagnosing and fixing a routine). Their text ships
//! in `config/skills/<name>/SKILL.md` and is installed into `<data>/skills/<name>/SKILL.md` at
//! start, like the subagents: a missing file is written, one still as we installed it is
//! brought up to date, one the owner edited is left alone (`state/skills.json` remembers what
//! we installed).

use crate::agent::subagents::{install_files, Error, InstallReport, Target};
use crate::base::data_dir::DataDir;

/// (path under `skills/`, text) of each bundled skill.
const BUNDLED: [(&str, &str); 2] = [
    (
        "job-config/SKILL.md",
        include_str!("../../../config/skills/job-config/SKILL.md"),
    ),
    (
        "improve-routine/SKILL.md",
        include_str!("../../../config/skills/improve-routine/SKILL.md"),
    ),
];

/// Where they go and the manifest of what was installed.
const TARGET: Target = Target {
    dir: "skills",
    manifest: "skills.json",
};

/// Installs the bundled skills into `skills/` without overwriting the owner's edits.
pub fn install(data: &DataDir) -> Result<InstallReport, Error> {
    let texts: Vec<(&str, String)> = BUNDLED
        .iter()
        .map(|(file, text)| (*file, (*text).to_owned()))
        .collect();
    install_files(data, TARGET, &texts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_skills_are_installed_parse_and_an_edit_is_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        data.ensure().unwrap();
        let first = install(&data).unwrap();
        assert_eq!(first.written.len(), 2, "{first:?}");
        let loaded = crate::jobs::skills::load_skills(&data.skills()).unwrap();
        let names: Vec<String> = loaded.items.iter().map(|(_, s)| s.name.clone()).collect();
        assert!(names.contains(&"job-config".to_owned()), "{names:?}");
        assert!(names.contains(&"improve-routine".to_owned()), "{names:?}");

        let edited = tmp.path().join("skills/job-config/SKILL.md");
        let mine = "---\nname: \"job-config\"\ndescription: \"mine\"\n---\nmy own rules\n";
        std::fs::write(&edited, mine).unwrap();
        let again = install(&data).unwrap();
        assert_eq!(again.kept_user_edits, ["job-config/SKILL.md"]);
        assert_eq!(std::fs::read_to_string(&edited).unwrap(), mine);
        assert_eq!(again.unchanged, ["improve-routine/SKILL.md"]);
    }
}
