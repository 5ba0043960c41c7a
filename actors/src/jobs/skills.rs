//! Skills: `skills/<name>/SKILL.md`, reusable instructions that jobs load by name (SPEC §3).
//!
//! A `SKILL.md` is YAML frontmatter and a markdown body, the instructions, in Claude Code's
//! skill format: every key is optional. `name` defaults to the directory's name; one that is
//! given must be lowercase letters, digits and hyphens and equal the directory's name (the
//! original documented this but did not check it; a skill that breaks it is skipped with a
//! warning here, like any other bad file). `description` is recommended (it says when to use
//! the skill) and empty when absent; `allowed-tools` is read; Claude Code's other keys
//! (`argument-hint`, `model`, …) are the CLI's and ignored here. Expanding `` !`command` ``
//! lines belongs to the prompt builder, not to this module.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::base::state_file;
use crate::jobs::frontmatter::{self, ParseError, Writer};
use crate::jobs::store::{self, Loaded};
use crate::jobs::yaml_scalars::{Text, TextList};

/// A validated skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Lowercase letters, digits and hyphens; equal to its directory's name.
    pub name: String,
    /// One line saying when to use it (empty when the file has none).
    pub description: String,
    /// Tool patterns the skill needs in background jobs.
    pub allowed_tools: Option<Vec<String>>,
    /// The markdown body: the instructions (may hold `` !`command` `` lines).
    pub instructions: String,
}

/// The file inside each skill's directory.
pub const FILE_NAME: &str = "SKILL.md";

/// Name prefixes of skills the bot generates for its own jobs, left out of the list of
/// user-authored skills shown in the system prompt.
pub const GENERATED_PREFIXES: [&str; 3] = ["routine-", "reminder-", "webhook-"];

/// A `SKILL.md`'s YAML as written, before validation (unknown keys are ignored).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SkillFile {
    /// `name`.
    pub name: Option<Text>,
    /// `description`.
    pub description: Option<Text>,
    /// `allowed-tools`.
    #[serde(alias = "allowed_tools")]
    pub allowed_tools: Option<TextList>,
}

impl SkillFile {
    /// Checks the fields against the directory the file sits in and builds the skill; without
    /// a `name` the skill is named for its directory.
    pub fn validate(self, instructions: &str, dir_name: &str) -> Result<Skill, ParseError> {
        let name = self.name.map_or_else(|| dir_name.to_owned(), |n| n.0);
        if !is_valid_name(&name) {
            return Err(ParseError::BadSkillName { name });
        }
        if name != dir_name {
            return Err(ParseError::SkillNameMismatch {
                name,
                dir: dir_name.to_owned(),
            });
        }
        let description = self.description.map(|d| d.0).unwrap_or_default();
        Ok(Skill {
            name,
            description,
            allowed_tools: self.allowed_tools.map(|l| l.0),
            instructions: instructions.to_owned(),
        })
    }
}

impl Skill {
    /// Whether the bot generated this skill for one of its jobs (see [`GENERATED_PREFIXES`]).
    pub fn is_generated(&self) -> bool {
        GENERATED_PREFIXES.iter().any(|p| self.name.starts_with(p))
    }
}

/// A skill name: one or more lowercase ASCII letters, digits and hyphens.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Parses a `SKILL.md` found in the directory `dir_name`.
pub fn parse(text: &str, dir_name: &str) -> Result<Skill, ParseError> {
    let parts = frontmatter::split(text)?;
    frontmatter::parse_yaml::<SkillFile>(parts.yaml)?.validate(parts.body, dir_name)
}

/// The file's bytes, in the layout the other kinds use: `name`, `description` (unless empty),
/// then `allowed-tools` if set, each string double-quoted, then the instructions.
pub fn to_markdown(skill: &Skill) -> String {
    let mut w = Writer::new();
    w.text("name", &skill.name);
    if !skill.description.is_empty() {
        w.text("description", &skill.description);
    }
    if let Some(tools) = &skill.allowed_tools {
        w.list("allowed-tools", tools);
    }
    w.finish(&skill.instructions)
}

/// Loads every `skills/<name>/SKILL.md`, in name order. A directory without a `SKILL.md`
/// is passed over quietly; a file that does not parse is logged, listed in
/// [`Loaded::skipped`], and the rest load regardless. A missing `skills/` is empty.
pub fn load_skills(skills_dir: &Path) -> Result<Loaded<Skill>, store::Error> {
    let mut loaded = Loaded::default();
    for (dir_name, path) in skill_files(skills_dir)? {
        match read_one(&path, &dir_name) {
            Ok(Some(skill)) => loaded.items.push((path, skill)),
            Ok(None) => tracing::debug!(dir = %dir_name, "skill directory without SKILL.md"),
            Err(err) => {
                tracing::warn!(kind = "skill", file = %path.display(), reason = %err, "skipping file");
                loaded.skipped.push((path, err));
            }
        }
    }
    Ok(loaded)
}

/// The skills a person wrote (not the bot's generated `routine-`/`reminder-`/`webhook-` ones),
/// for the system prompt's skill list.
pub fn load_user_skills(skills_dir: &Path) -> Result<Vec<Skill>, store::Error> {
    Ok(load_skills(skills_dir)?
        .into_items()
        .into_iter()
        .filter(|skill| !skill.is_generated())
        .collect())
}

/// One skill by name; `None` if it does not exist or the name is not a valid skill name
/// (which also keeps a name like `../x` from reaching outside `skills/`).
pub fn read_skill(skills_dir: &Path, name: &str) -> Result<Option<Skill>, store::Error> {
    if !is_valid_name(name) {
        tracing::warn!(name, "not a valid skill name; not loaded");
        return Ok(None);
    }
    read_one(&skills_dir.join(name).join(FILE_NAME), name)
}

/// Writes `skills/<name>/SKILL.md` atomically and returns its path.
pub fn write_skill(skills_dir: &Path, skill: &Skill) -> Result<PathBuf, store::Error> {
    let path = skills_dir.join(&skill.name).join(FILE_NAME);
    if !is_valid_name(&skill.name) {
        return Err(store::Error::Parse {
            path,
            source: ParseError::BadSkillName {
                name: skill.name.clone(),
            },
        });
    }
    state_file::write_atomic(&path, to_markdown(skill).as_bytes())?;
    Ok(path)
}

/// `(directory name, path of its SKILL.md)` for each visible subdirectory, sorted.
fn skill_files(skills_dir: &Path) -> Result<Vec<(String, PathBuf)>, store::Error> {
    let list_err = |source| store::Error::ListDir {
        path: skills_dir.to_path_buf(),
        source,
    };
    let entries = match fs::read_dir(skills_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(list_err(e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(list_err)?;
        let dir_name = entry.file_name().to_string_lossy().into_owned();
        if dir_name.starts_with('.') || !entry.path().is_dir() {
            continue;
        }
        let path = entry.path().join(FILE_NAME);
        found.push((dir_name, path));
    }
    found.sort();
    Ok(found)
}

/// Reads and parses one `SKILL.md`; a missing file is `None`.
fn read_one(path: &Path, dir_name: &str) -> Result<Option<Skill>, store::Error> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(store::Error::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    parse(&text, dir_name)
        .map(Some)
        .map_err(|source| store::Error::Parse {
            path: path.to_path_buf(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(name: &str) -> Skill {
        Skill {
            name: name.to_owned(),
            description: "Does a thing.".to_owned(),
            allowed_tools: None,
            instructions: "Do it.".to_owned(),
        }
    }

    #[test]
    fn name_rules() {
        assert!(is_valid_name("email-triage-2"));
        for bad in ["", "Email", "email_triage", "../x", "a b"] {
            assert!(!is_valid_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn name_must_match_directory() {
        let text = "---\nname: email-triage\ndescription: x\n---\nbody\n";
        assert!(parse(text, "email-triage").is_ok());
        let err = parse(text, "triage").unwrap_err();
        assert_eq!(
            err.to_string(),
            "`name` \"email-triage\" does not match its directory \"triage\""
        );
    }

    #[test]
    fn name_and_description_are_optional() {
        // Claude Code's format: the directory names the skill.
        let skill = parse(
            "---\nallowed-tools: [\"Read(**)\"]\n---\nbody\n",
            "deploy-check",
        )
        .unwrap();
        assert_eq!(skill.name, "deploy-check");
        assert_eq!(skill.description, "");
        assert_eq!(skill.allowed_tools, Some(vec!["Read(**)".to_owned()]));
        let skill = parse(
            "---\ndescription: \"Check it.\"\n---\nbody\n",
            "deploy-check",
        )
        .unwrap();
        assert_eq!(skill.name, "deploy-check");
        assert_eq!(skill.description, "Check it.");
        let skill = parse("---\nname: a\n---\nbody\n", "a").unwrap();
        assert_eq!(skill.description, "");
        assert_eq!(to_markdown(&skill), "---\nname: \"a\"\n---\nbody\n");
    }

    #[test]
    fn a_directory_that_is_not_a_skill_name_needs_no_name_to_fail() {
        let err = parse("---\ndescription: x\n---\nbody\n", "Deploy_Check").unwrap_err();
        assert!(matches!(err, ParseError::BadSkillName { .. }), "{err}");
    }

    #[test]
    fn generated_skills_are_not_user_authored() {
        let tmp = tempfile::tempdir().unwrap();
        for name in [
            "routine-morning",
            "reminder-x",
            "webhook-ci",
            "email-triage",
        ] {
            write_skill(tmp.path(), &skill(name)).unwrap();
        }
        let names: Vec<_> = load_user_skills(tmp.path())
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["email-triage"]);
    }

    #[test]
    fn read_skill_refuses_path_escapes_and_missing_names() {
        let tmp = tempfile::tempdir().unwrap();
        let skills = tmp.path().join("skills");
        fs::create_dir_all(tmp.path().join("evil")).unwrap();
        fs::write(
            tmp.path().join("evil").join(FILE_NAME),
            "---\nname: evil\ndescription: x\n---\nb\n",
        )
        .unwrap();
        assert_eq!(read_skill(&skills, "../evil").unwrap(), None);
        assert_eq!(read_skill(&skills, "absent").unwrap(), None);
    }

    #[test]
    fn write_skill_refuses_a_bad_name() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(write_skill(tmp.path(), &skill("../up")).is_err());
        assert!(!tmp.path().join("up").exists());
    }
}
