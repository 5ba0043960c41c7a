//! Holding a background fork's reads to its allowed set (SPEC §6, §17).
//!
//! The CLI lets Read, Glob and Grep through anywhere inside its working directory — the data
//! directory — whatever its allow rules say, `dontAsk` included; so `Read(./**.md)` alone would
//! let a background fork read `state/` or any other file there. The PreToolUse hook every
//! session registers on those tools ([`super::file_hooks`]) asks, in a background fork, [`ReadScope::refusal`] and denies a call its rules do not cover:
//!
//! - Read: its file must fall under a `Read(...)` rule ([`super::is_allowed`]);
//! - Glob and Grep: a search is covered when everything it could reach is: its directory lies
//!   under a rule for the tool (or for Read, which covers both) that covers all of that
//!   directory, or under a rule such as `Read(./**.md)` (any file ending `.md`) while every file
//!   name it asks for (Glob's pattern, Grep's `glob`) ends in `.md` too. A Grep of one file is
//!   judged as a Read of it. Anything harder to judge is refused: a refusal costs the agent a
//!   narrower call, a wrong allow would leak a file.
//!
//! A bare rule (`Read`, `Grep`) or `X(*)` covers every call of its tools.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::file_rules::{home_dir, lexical, rule_covers_tool, spec_covers, spec_parts};
use super::patterns::ToolPattern;
use crate::base::data_dir::DataDir;
use crate::claude::brain::HookCall;

/// The tools whose calls are held to the allow list, as a hook matcher.
pub const READERS: &str = "Read|Glob|Grep";

/// Characters that make a path segment a pattern rather than a name.
const PATTERN_CHARS: [char; 4] = ['*', '?', '[', '{'];

/// One background fork's allowed set, for judging its reads.
#[derive(Debug, Clone)]
pub struct ReadScope {
    allowed: Vec<String>,
    data: DataDir,
}

/// What a Glob or Grep call could reach: files below `dir` whose names match one of `names`
/// (every name when empty).
struct Search {
    dir: PathBuf,
    names: Vec<String>,
}

impl ReadScope {
    /// The scope of a fork allowed `allowed` (its effective set) in `data`.
    pub fn new(allowed: Vec<String>, data: DataDir) -> Self {
        Self { allowed, data }
    }

    /// Why a PreToolUse `call` must be denied, or `None` (for any tool but the readers too).
    pub fn refusal(&self, call: &HookCall) -> Option<String> {
        let tool = call.tool_name()?;
        if !READERS.split('|').any(|t| t == tool) {
            return None;
        }
        let input = call.input.get("tool_input").cloned().unwrap_or(Value::Null);
        let root = self.data.root();
        let cwd = call
            .input
            .get("cwd")
            .and_then(Value::as_str)
            .map_or_else(|| root.to_path_buf(), PathBuf::from);
        let covered = match tool {
            "Read" => super::is_allowed(tool, &input, &self.allowed, &self.data),
            _ => match search_of(tool, &input, &cwd) {
                Ok(search) => self.covers_search(tool, &search),
                Err(file) => {
                    let read = serde_json::json!({ "file_path": file });
                    super::is_allowed(tool, &read, &self.allowed, &self.data)
                }
            },
        };
        if covered {
            return None;
        }
        let rules: Vec<&str> = self
            .allowed
            .iter()
            .filter(|p| ToolPattern::parse(p).is_ok_and(|p| rule_covers_tool(&p.tool, tool)))
            .map(String::as_str)
            .collect();
        tracing::info!(%tool, input = %input, "read outside a background fork's allowed set denied");
        Some(match rules.is_empty() {
            true => format!("{tool} is not available in this background task"),
            false => format!(
                "{tool} was not run: this background task may read only what its allowed tools \
                 name ({}), and this call could reach other files",
                rules.join(", ")
            ),
        })
    }

    /// True when a rule for `tool` covers everything `search` could reach.
    fn covers_search(&self, tool: &str, search: &Search) -> bool {
        let root = self.data.root();
        let home = home_dir();
        self.allowed.iter().any(|raw| {
            let Ok(pattern) = ToolPattern::parse(raw) else {
                return false;
            };
            if !rule_covers_tool(&pattern.tool, tool) {
                return false;
            }
            let spec = match pattern.specifier.as_deref() {
                None | Some("*") => return true,
                Some(spec) => spec,
            };
            if spec_covers(spec, &search.dir, root, home.as_deref()) {
                return true;
            }
            let Some(parts) = spec_parts(spec, root, home.as_deref()) else {
                return false;
            };
            parts.iter().any(|(base, glob)| {
                search.dir.starts_with(base)
                    && match glob.as_deref() {
                        None | Some("**") => true,
                        Some(glob) => names_all_end_with(&search.names, glob),
                    }
            })
        })
    }
}

/// True when `glob` is "any file whose name ends with S" (`**S` or `**/*S`, S plain text) and
/// every one of `names` ends with that S.
fn names_all_end_with(names: &[String], glob: &str) -> bool {
    let suffix = glob
        .strip_prefix("**/*")
        .or_else(|| glob.strip_prefix("**"))
        .filter(|s| !s.is_empty() && !s.contains(PATTERN_CHARS) && !s.contains('/'));
    match suffix {
        Some(suffix) => !names.is_empty() && names.iter().all(|n| n.ends_with(suffix)),
        None => false,
    }
}

/// The search a Glob or Grep call makes, or `Err` with the one file it reads.
fn search_of(tool: &str, input: &Value, cwd: &Path) -> Result<Search, PathBuf> {
    let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::trim);
    let base = match text("path") {
        Some(p) if !p.is_empty() => lexical(&cwd.join(p)),
        _ => lexical(cwd),
    };
    if tool == "Grep" {
        if base.is_file() {
            return Err(base);
        }
        let names = text("glob")
            .unwrap_or_default()
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|g| !g.is_empty() && !g.starts_with('!'))
            .map(|g| g.rsplit('/').next().unwrap_or(g).to_owned())
            .collect();
        return Ok(Search { dir: base, names });
    }
    // Glob: the pattern's leading plain directories join the base; its last segment is the
    // name. A `..` after a pattern segment could climb anywhere: no name then (nothing sure).
    let pattern = text("pattern").unwrap_or_default();
    let segments: Vec<&str> = pattern.split('/').collect();
    let plain = segments
        .iter()
        .take_while(|s| !s.contains(PATTERN_CHARS))
        .count();
    let mut dir = if pattern.starts_with('/') {
        PathBuf::from("/")
    } else {
        base
    };
    for s in &segments[..plain] {
        dir.push(s);
    }
    let dir = lexical(&dir);
    let rest = &segments[plain..];
    if rest.is_empty() {
        return Err(dir);
    }
    let climbs = rest.contains(&"..");
    let names = match (climbs, rest.last()) {
        (false, Some(name)) => vec![(*name).to_owned()],
        _ => vec![String::new()],
    };
    let dir = if climbs { PathBuf::from("/") } else { dir };
    Ok(Search { dir, names })
}

#[cfg(test)]
#[path = "read_scope_tests.rs"]
mod tests;
