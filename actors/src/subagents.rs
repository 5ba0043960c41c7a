//! The five subagents the main agent delegates to (SPEC §14): guide, gmail-reader,
//! history-reviewer, responsiveness-reviewer and user-proxy.
//!
//! Their specs ship in `config/agents/<name>.md` (Claude Code agent format: YAML frontmatter
//! with `name`, `description`, `tools`, `model`, then the agent's prompt) with `{USER_NAME}` and
//! `{BOT_NAME}` filled in, and are installed into `<data>/.claude/agents/` at start, where the
//! CLI finds them.
//!
//! Installing never overwrites a user's edits. `state/agents.json` remembers a fingerprint of
//! the text last installed for each file: a missing file is written; a file equal to what we
//! last installed is brought up to date when the shipped text changes; a file that differs
//! from what we last installed was edited by someone and is left alone (and reported). A file
//! found with no record at all (an install by the original program) counts as edited.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::data_dir::DataDir;
use crate::state_file;
use crate::system_prompt::sections::fill;
use crate::system_prompt::Names;

/// Where the agents go, relative to the data directory.
pub const AGENTS_DIR: &str = ".claude/agents";

/// The manifest of what was last installed, inside `state/`.
pub const MANIFEST_FILE: &str = "agents.json";

/// (file name, template) of each shipped agent.
const SHIPPED: [(&str, &str); 5] = [
    ("guide.md", include_str!("../../config/agents/guide.md")),
    (
        "gmail-reader.md",
        include_str!("../../config/agents/gmail-reader.md"),
    ),
    (
        "history-reviewer.md",
        include_str!("../../config/agents/history-reviewer.md"),
    ),
    (
        "responsiveness-reviewer.md",
        include_str!("../../config/agents/responsiveness-reviewer.md"),
    ),
    (
        "user-proxy.md",
        include_str!("../../config/agents/user-proxy.md"),
    ),
];

/// What went wrong installing the agents.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An installed agent file exists but could not be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The agent file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// Writing an agent file or the manifest failed, or the manifest could not be read.
    #[error(transparent)]
    State(#[from] state_file::Error),
}

/// What one install did, file by file (file names such as `guide.md`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstallReport {
    /// Files that were missing and have been written.
    pub written: Vec<String>,
    /// Files we had installed, untouched since, replaced by the new shipped text.
    pub updated: Vec<String>,
    /// Files someone edited since we installed them: kept as they are.
    pub kept_user_edits: Vec<String>,
    /// Files already equal to the shipped text.
    pub unchanged: Vec<String>,
}

impl InstallReport {
    /// How many files were written or replaced.
    pub fn files_written(&self) -> usize {
        self.written.len() + self.updated.len()
    }
}

/// `state/agents.json`: file name → fingerprint of the text we last installed there.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    #[serde(default)]
    installed: BTreeMap<String, String>,
}

/// The shipped agents with the names filled in: (file name, text).
pub fn shipped(names: &Names) -> Vec<(&'static str, String)> {
    let values = [
        ("USER_NAME", names.user.as_str()),
        ("BOT_NAME", names.bot.as_str()),
    ];
    SHIPPED
        .iter()
        .map(|(file, template)| (*file, fill(template, &values)))
        .collect()
}

/// Installs the shipped agents into `<data>/.claude/agents/` without overwriting edits.
pub fn install(data: &DataDir, names: &Names) -> Result<InstallReport, Error> {
    install_texts(data, &shipped(names))
}

/// The install itself, for any set of texts (tests pass a changed "release").
fn install_texts(data: &DataDir, texts: &[(&str, String)]) -> Result<InstallReport, Error> {
    let manifest_path = data.state_file(MANIFEST_FILE);
    let mut manifest = state_file::load_json(&manifest_path, Manifest::default)?.into_value();
    let mut manifest_changed = false;
    let mut report = InstallReport::default();
    let dir = data.root().join(AGENTS_DIR);
    for (file, text) in texts {
        let path = dir.join(file);
        let on_disk = match std::fs::read_to_string(&path) {
            Ok(current) => Some(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(source) => return Err(Error::Read { path, source }),
        };
        let shipped_print = fingerprint(text);
        let recorded = manifest.installed.get(*file).cloned();
        let outcome = match on_disk {
            None => Outcome::Written,
            Some(current) if current == *text => Outcome::Unchanged,
            Some(current) if recorded.as_deref() == Some(fingerprint(&current).as_str()) => {
                Outcome::Updated
            }
            Some(_) => Outcome::KeptUserEdit,
        };
        let name = (*file).to_owned();
        match outcome {
            Outcome::Written | Outcome::Updated => {
                state_file::write_atomic(&path, text.as_bytes())?;
                data.commit(&path, &format!("auto: install {AGENTS_DIR}/{file}"));
                tracing::info!(agent = %file, updated = matches!(outcome, Outcome::Updated), "installed subagent");
            }
            Outcome::KeptUserEdit => {
                tracing::info!(agent = %file, "subagent edited by the user; kept as it is");
            }
            Outcome::Unchanged => {}
        }
        if outcome != Outcome::KeptUserEdit && recorded.as_deref() != Some(&shipped_print) {
            manifest.installed.insert(name.clone(), shipped_print);
            manifest_changed = true;
        }
        match outcome {
            Outcome::Written => report.written.push(name),
            Outcome::Updated => report.updated.push(name),
            Outcome::KeptUserEdit => report.kept_user_edits.push(name),
            Outcome::Unchanged => report.unchanged.push(name),
        }
    }
    if manifest_changed {
        state_file::save_json(&manifest_path, &manifest)?;
    }
    Ok(report)
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Written,
    Updated,
    KeptUserEdit,
    Unchanged,
}

/// A stable fingerprint of `text`: 64-bit FNV-1a, as `fnv1a64:<16 hex digits>`. Only used to
/// recognise our own earlier output, so a fast non-cryptographic hash is enough.
fn fingerprint(text: &str) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let hash = text
        .bytes()
        .fold(OFFSET, |h, b| (h ^ u64::from(b)).wrapping_mul(PRIME));
    format!("fnv1a64:{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Names {
        Names {
            user: "Robin".to_owned(),
            bot: "Pip".to_owned(),
        }
    }

    fn agent_path(data: &DataDir, file: &str) -> PathBuf {
        data.root().join(AGENTS_DIR).join(file)
    }

    /// A later release in which every shipped text changed.
    fn next_release() -> Vec<(&'static str, String)> {
        shipped(&names())
            .into_iter()
            .map(|(file, text)| (file, format!("{text}\nOne more rule.\n")))
            .collect()
    }

    #[test]
    fn fresh_install_writes_all_five_with_names_filled_in() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let report = install(&data, &names()).unwrap();
        assert_eq!(report.written.len(), 5);
        assert_eq!(report.files_written(), 5);
        for (file, _) in SHIPPED {
            let text = std::fs::read_to_string(agent_path(&data, file)).unwrap();
            assert!(text.contains("Robin"), "{file} lacks the user's name");
            assert!(!text.contains("{USER_NAME}") && !text.contains("{BOT_NAME}"));
        }
        assert!(data.state_file(MANIFEST_FILE).is_file());
    }

    #[test]
    fn reinstall_without_changes_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        install(&data, &names()).unwrap();
        let manifest_before = std::fs::read(data.state_file(MANIFEST_FILE)).unwrap();
        let report = install(&data, &names()).unwrap();
        assert_eq!(report.files_written(), 0);
        assert_eq!(report.unchanged.len(), 5);
        let manifest_after = std::fs::read(data.state_file(MANIFEST_FILE)).unwrap();
        assert_eq!(manifest_before, manifest_after);
    }

    #[test]
    fn user_edit_is_kept_while_untouched_files_follow_the_new_release() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        install(&data, &names()).unwrap();
        let edited = agent_path(&data, "gmail-reader.md");
        std::fs::write(&edited, "---\nname: gmail-reader\n---\nmy own rules\n").unwrap();

        let release = next_release();
        let report = install_texts(&data, &release).unwrap();
        assert_eq!(report.kept_user_edits, ["gmail-reader.md"]);
        assert_eq!(report.updated.len(), 4);
        assert_eq!(
            std::fs::read_to_string(&edited).unwrap(),
            "---\nname: gmail-reader\n---\nmy own rules\n"
        );
        let guide = std::fs::read_to_string(agent_path(&data, "guide.md")).unwrap();
        assert!(guide.ends_with("One more rule.\n"));

        // The edit stays protected in later releases too.
        let report = install_texts(&data, &release).unwrap();
        assert_eq!(report.kept_user_edits, ["gmail-reader.md"]);
        assert_eq!(report.files_written(), 0);
    }

    #[test]
    fn copies_of_the_claude_history_release_move_to_ollim_bot_history_unless_edited() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        // What an earlier release installed: the same specs calling `claude-history`.
        let earlier: Vec<(&str, String)> = shipped(&names())
            .into_iter()
            .map(|(file, text)| (file, text.replace("ollim-bot history", "claude-history")))
            .collect();
        install_texts(&data, &earlier).unwrap();
        let edited = agent_path(&data, "user-proxy.md");
        let mine = std::fs::read_to_string(&edited).unwrap() + "\nMy own note.\n";
        std::fs::write(&edited, &mine).unwrap();
        let report = install(&data, &names()).unwrap();
        assert_eq!(
            report.updated,
            ["history-reviewer.md", "responsiveness-reviewer.md"]
        );
        assert_eq!(report.kept_user_edits, ["user-proxy.md"]);
        for file in ["history-reviewer.md", "responsiveness-reviewer.md"] {
            let text = std::fs::read_to_string(agent_path(&data, file)).unwrap();
            assert!(text.contains("tools: Bash(ollim-bot history *)"), "{file}");
            assert!(!text.contains("claude-history"), "{file}");
        }
        assert_eq!(std::fs::read_to_string(&edited).unwrap(), mine);
    }

    #[test]
    fn deleted_file_is_restored() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        install(&data, &names()).unwrap();
        std::fs::remove_file(agent_path(&data, "user-proxy.md")).unwrap();
        let report = install(&data, &names()).unwrap();
        assert_eq!(report.written, ["user-proxy.md"]);
        let text = std::fs::read_to_string(agent_path(&data, "user-proxy.md")).unwrap();
        assert_eq!(text, shipped(&names())[4].1);
    }

    #[test]
    fn file_without_a_record_counts_as_the_users() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let path = agent_path(&data, "guide.md");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "installed by the original program\n").unwrap();
        let report = install(&data, &names()).unwrap();
        assert_eq!(report.kept_user_edits, ["guide.md"]);
        assert_eq!(report.written.len(), 4);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "installed by the original program\n"
        );
    }

    #[test]
    fn shipped_specs_have_the_agent_frontmatter() {
        #[derive(Deserialize)]
        struct Front {
            name: String,
            description: String,
            tools: String,
            model: Option<String>,
        }
        for (file, text) in shipped(&names()) {
            let rest = text.strip_prefix("---\n").expect("opens with ---");
            let (yaml, body) = rest.split_once("\n---\n").expect("closing ---");
            let front: Front = serde_yaml::from_str(yaml).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(format!("{}.md", front.name), file);
            assert!(!front.description.trim().is_empty(), "{file}");
            assert!(
                front.tools.split(',').all(|t| !t.trim().is_empty()),
                "{file}"
            );
            if let Some(model) = front.model {
                assert!(
                    ["opus", "sonnet", "haiku"].contains(&model.as_str()),
                    "{file}"
                );
            }
            assert!(body.trim().len() > 200, "{file} has no real prompt");
        }
    }

    #[test]
    fn fingerprint_is_stable_and_tells_texts_apart() {
        assert_eq!(fingerprint(""), "fnv1a64:cbf29ce484222325");
        assert_eq!(fingerprint("a"), "fnv1a64:af63dc4c8601ec8c");
        assert_ne!(fingerprint("guide"), fingerprint("guidf"));
    }
}
