//! Where Claude Code keeps its transcripts and which of them to read: `projects/<project>/
//! <session>.jsonl` under `CLAUDE_CONFIG_DIR` (else `~/.claude`), one project per working
//! directory. The bot's CLI processes run in the data directory, so the bot's sessions are the
//! project named after it; `--all-projects` reads every project. Subagents' transcripts sit
//! in `<project>/<session>/subagents/agent-<id>.jsonl` (older releases: `<project>/agent-<id>.jsonl`).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Context;

/// Claude Code's own directory.
pub fn config_dir(get: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<PathBuf> {
    let non_empty = |k: &str| get(k).filter(|v| !v.trim().is_empty());
    if let Some(dir) = non_empty("CLAUDE_CONFIG_DIR") {
        return Ok(PathBuf::from(dir));
    }
    non_empty("HOME")
        .map(|home| PathBuf::from(home).join(".claude"))
        .context("neither CLAUDE_CONFIG_DIR nor HOME is set, so the transcripts cannot be found")
}

/// The project directory name Claude Code uses for a working directory: every character that
/// is not a letter or digit becomes `-` (`/home/sam/.ollim-bot` → `-home-sam--ollim-bot`).
pub fn project_name(cwd: &Path) -> String {
    cwd.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// One session's transcript file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    /// The session id (the file's stem).
    pub id: String,
    /// The file.
    pub path: PathBuf,
    /// When it last changed.
    pub modified: Option<SystemTime>,
}

/// The project directories to read: the bot's own (found by name, else by the `cwd` its
/// transcripts record), or all of them.
pub fn projects(config: &Path, data_root: &Path, all: bool) -> anyhow::Result<Vec<PathBuf>> {
    let root = config.join("projects");
    let dirs: Vec<PathBuf> = match std::fs::read_dir(&root) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", root.display())),
    };
    if all {
        return Ok(dirs);
    }
    let mut names = vec![project_name(data_root)];
    if let Ok(real) = data_root.canonicalize() {
        names.push(project_name(&real));
    }
    if let Some(dir) = dirs.iter().find(|d| {
        d.file_name()
            .is_some_and(|n| names.iter().any(|name| n.to_string_lossy() == *name))
    }) {
        return Ok(vec![dir.clone()]);
    }
    // A long path is shortened in the name: find the project whose transcripts ran here.
    Ok(dirs
        .into_iter()
        .filter(|d| records_cwd(d, data_root))
        .take(1)
        .collect())
}

/// Whether a transcript in `dir` records `cwd` as its working directory.
fn records_cwd(dir: &Path, cwd: &Path) -> bool {
    let wanted = cwd.to_string_lossy().into_owned();
    session_files(dir).iter().take(3).any(|f| {
        std::fs::read(&f.path).is_ok_and(|bytes| {
            String::from_utf8_lossy(&bytes)
                .lines()
                .take(50)
                .any(|line| {
                    serde_json::from_str::<serde_json::Value>(line)
                        .is_ok_and(|v| v.get("cwd").and_then(|c| c.as_str()) == Some(&wanted))
                })
        })
    })
}

/// The session transcripts directly in a project directory.
pub fn session_files(project: &Path) -> Vec<SessionFile> {
    let Ok(entries) = std::fs::read_dir(project) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let path = e.path();
            let stem = path.file_stem()?.to_string_lossy().into_owned();
            if path.extension().is_none_or(|x| x != "jsonl") || stem.starts_with("agent-") {
                return None;
            }
            let meta = std::fs::metadata(&path).ok().filter(|m| m.is_file())?;
            Some(SessionFile {
                id: stem,
                modified: meta.modified().ok(),
                path,
            })
        })
        .collect()
}

/// One subagent's transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentFile {
    /// The agent's id (`a2b8c229c2756c943`).
    pub id: String,
    /// The session that started it, when the layout tells.
    pub session: Option<String>,
    /// The transcript.
    pub path: PathBuf,
    /// Its kind and the task it was given (from `agent-<id>.meta.json`), when recorded.
    pub agent_type: Option<String>,
    /// The task's short description.
    pub description: Option<String>,
}

/// Every subagent transcript in a project directory: `agent-<id>.jsonl` anywhere under a
/// session's `subagents/` (workflow runs put theirs in `subagents/workflows/<run>/`), or
/// directly in the project (older releases).
pub fn agent_files(project: &Path) -> Vec<AgentFile> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(project) else {
        return out;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            let session = path.file_name().map(|n| n.to_string_lossy().into_owned());
            agents_under(&path.join("subagents"), &session, SUBAGENT_DEPTH, &mut out);
        } else {
            out.extend(agent_file(path, None));
        }
    }
    out
}

/// How deep under `subagents/` transcripts are looked for.
const SUBAGENT_DEPTH: usize = 4;

fn agents_under(dir: &Path, session: &Option<String>, depth: usize, out: &mut Vec<AgentFile>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            if depth > 0 {
                agents_under(&path, session, depth - 1, out);
            }
        } else {
            out.extend(agent_file(path, session.clone()));
        }
    }
}

fn agent_file(path: PathBuf, session: Option<String>) -> Option<AgentFile> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    let id = name
        .strip_prefix("agent-")?
        .strip_suffix(".jsonl")?
        .to_owned();
    let meta: Option<serde_json::Value> = std::fs::read(path.with_extension("meta.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let field = |k: &str| {
        meta.as_ref()
            .and_then(|m| m.get(k))
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    Some(AgentFile {
        id,
        session,
        agent_type: field("agentType"),
        description: field("description"),
        path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_names_follow_the_clis_rule() {
        assert_eq!(project_name(Path::new("/tmp/cap/work")), "-tmp-cap-work");
        assert_eq!(
            project_name(Path::new("/home/sam/.ollim-bot")),
            "-home-sam--ollim-bot"
        );
    }

    #[test]
    fn the_bots_project_is_found_by_name_or_by_the_cwd_it_records() {
        let tmp = tempfile::tempdir().unwrap();
        let config = tmp.path().join("claude");
        let data = tmp.path().join("data");
        let projects_dir = config.join("projects");
        let other = projects_dir.join("-elsewhere");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("s1.jsonl"), "{\"cwd\":\"/elsewhere\"}\n").unwrap();
        assert!(projects(&config, &data, false).unwrap().is_empty());
        let shortened = projects_dir.join("-shortened-123");
        std::fs::create_dir_all(&shortened).unwrap();
        let line = format!("{{\"cwd\":{:?}}}\n", data.display().to_string());
        std::fs::write(shortened.join("s2.jsonl"), line).unwrap();
        assert_eq!(projects(&config, &data, false).unwrap(), [shortened]);
        let named = projects_dir.join(project_name(&data));
        std::fs::create_dir_all(&named).unwrap();
        assert_eq!(projects(&config, &data, false).unwrap(), [named]);
        assert_eq!(projects(&config, &data, true).unwrap().len(), 3);
    }

    #[test]
    fn subagents_are_found_in_workflow_runs_too() {
        let tmp = tempfile::tempdir().unwrap();
        let session = tmp.path().join("s1");
        let run = session.join("subagents/workflows/run-7");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(session.join("subagents/agent-a1.jsonl"), "").unwrap();
        std::fs::write(run.join("agent-b2.jsonl"), "").unwrap();
        std::fs::write(run.join("agent-b2.meta.json"), r#"{"agentType":"x"}"#).unwrap();
        std::fs::write(tmp.path().join("agent-c3.jsonl"), "").unwrap();
        let mut found: Vec<(String, Option<String>)> = agent_files(tmp.path())
            .into_iter()
            .map(|a| (a.id, a.session))
            .collect();
        found.sort();
        let s1 = Some("s1".to_owned());
        assert_eq!(
            found,
            [
                ("a1".into(), s1.clone()),
                ("b2".into(), s1),
                ("c3".into(), None)
            ]
        );
    }
}
