//! The five subagents the main agent delegates to (SPEC §14): ollim-bot-guide, gmail-reader,
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
//!
//! A shipped agent that was renamed (the guide became `ollim-bot-guide`, as in the original
//! since 2026-03-17) leaves its old file behind: removed when it is still what we installed,
//! kept with a warning when someone edited it (two guides then exist until the owner merges
//! them).

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::agent::system_prompt::sections::fill;
use crate::agent::system_prompt::Names;
use crate::base::data_dir::DataDir;
use crate::base::state_file;

/// Where the agents go, relative to the data directory.
pub const AGENTS_DIR: &str = ".claude/agents";

/// The manifest of what was last installed, inside `state/`.
pub const MANIFEST_FILE: &str = "agents.json";

/// (file name, template) of each shipped agent.
const SHIPPED: [(&str, &str); 5] = [
    (
        "ollim-bot-guide.md",
        include_str!("../../../config/agents/ollim-bot-guide.md"),
    ),
    (
        "gmail-reader.md",
        include_str!("../../../config/agents/gmail-reader.md"),
    ),
    (
        "history-reviewer.md",
        include_str!("../../../config/agents/history-reviewer.md"),
    ),
    (
        "responsiveness-reviewer.md",
        include_str!("../../../config/agents/responsiveness-reviewer.md"),
    ),
    (
        "user-proxy.md",
        include_str!("../../../config/agents/user-proxy.md"),
    ),
];

/// Files of agents we shipped under an earlier name: (old file, the file it became).
const RENAMED: [(&str, &str); 1] = [("guide.md", "ollim-bot-guide.md")];

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

/// What one install did, file by file (file names such as `gmail-reader.md`).
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
    /// Old files of renamed agents, still as we installed them: removed.
    pub retired: Vec<String>,
    /// Old files of renamed agents that someone edited: kept (with a warning).
    pub kept_renamed: Vec<String>,
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

/// Where a set of shipped files is installed, and the manifest that remembers them.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The directory, relative to the data directory (file names may add subdirectories).
    pub dir: &'static str,
    /// The manifest's name inside `state/`.
    pub manifest: &'static str,
}

const AGENTS: Target = Target {
    dir: AGENTS_DIR,
    manifest: MANIFEST_FILE,
};

/// The install itself, for any set of texts (tests pass a changed "release").
fn install_texts(data: &DataDir, texts: &[(&str, String)]) -> Result<InstallReport, Error> {
    let (mut report, mut manifest, mut manifest_changed) = install_into(data, AGENTS, texts)?;
    let shipped_now: Vec<&str> = texts.iter().map(|(file, _)| *file).collect();
    manifest_changed |= retire_renamed(data, &shipped_now, &mut manifest, &mut report)?;
    if manifest_changed {
        state_file::save_json(&data.state_file(MANIFEST_FILE), &manifest)?;
    }
    Ok(report)
}

/// Installs `texts` (file name → text) into `target` without overwriting edits, and saves its
/// manifest (the bundled skills use this too).
pub fn install_files(
    data: &DataDir,
    target: Target,
    texts: &[(&str, String)],
) -> Result<InstallReport, Error> {
    let (report, manifest, changed) = install_into(data, target, texts)?;
    if changed {
        state_file::save_json(&data.state_file(target.manifest), &manifest)?;
    }
    Ok(report)
}

/// Writes what is missing or still ours; returns the report, the manifest and whether it
/// changed (not saved yet).
fn install_into(
    data: &DataDir,
    target: Target,
    texts: &[(&str, String)],
) -> Result<(InstallReport, Manifest, bool), Error> {
    let manifest_path = data.state_file(target.manifest);
    let mut manifest = state_file::load_json(&manifest_path, Manifest::default)?.into_value();
    let mut manifest_changed = false;
    let mut report = InstallReport::default();
    let dir = data.root().join(target.dir);
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
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|source| Error::Read {
                        path: parent.to_path_buf(),
                        source,
                    })?;
                }
                state_file::write_atomic(&path, text.as_bytes())?;
                data.commit(&path, &format!("auto: install {}/{file}", target.dir));
                tracing::info!(file = %file, dir = target.dir, updated = matches!(outcome, Outcome::Updated), "installed a shipped file");
            }
            Outcome::KeptUserEdit => {
                tracing::info!(file = %file, dir = target.dir, "shipped file edited by the user; kept as it is");
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
    Ok((report, manifest, manifest_changed))
}

/// Removes the old file of each renamed agent (not shipped under that name now) when it is
/// still what we installed; keeps and reports one someone edited (or that we have no record
/// of). True when the manifest changed.
fn retire_renamed(
    data: &DataDir,
    shipped_now: &[&str],
    manifest: &mut Manifest,
    report: &mut InstallReport,
) -> Result<bool, Error> {
    let mut changed = false;
    for (old, new) in RENAMED {
        if shipped_now.contains(&old) {
            continue;
        }
        let path = data.root().join(AGENTS_DIR).join(old);
        let on_disk = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                changed |= manifest.installed.remove(old).is_some();
                continue;
            }
            Err(source) => return Err(Error::Read { path, source }),
        };
        let ours = manifest.installed.get(old) == Some(&fingerprint(&on_disk));
        if !ours {
            tracing::warn!(
                agent = %old,
                renamed = %new,
                "an edited copy of a renamed subagent was kept: two specs now exist; merge your \
                 edits into the new file and delete the old one"
            );
            report.kept_renamed.push(old.to_owned());
            continue;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(agent = %old, cause = %e, "could not remove the old file of a renamed subagent; two specs exist");
                report.kept_renamed.push(old.to_owned());
                continue;
            }
        }
        data.commit(
            &path,
            &format!("auto: remove {AGENTS_DIR}/{old} (now {new})"),
        );
        tracing::info!(agent = %old, renamed = %new, "removed the old file of a renamed subagent");
        manifest.installed.remove(old);
        report.retired.push(old.to_owned());
        changed = true;
    }
    Ok(changed)
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
#[path = "subagents_tests.rs"]
mod tests;
