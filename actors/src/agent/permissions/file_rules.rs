//! What a file rule such as `Write(routines/**)` covers, and where `state/` is (SPEC §6 stripping,
//! §11 "writes into `state/` are always denied").
//!
//! Specifiers are read the way Claude Code reads them, with the data directory as the project:
//! `//abs/path` is absolute, `~/p` is under the home directory, `/p` and `./p` and any `p` with a
//! slash are relative to the data directory, and a bare `p` without a slash matches at any depth
//! below it. As in gitignore, a rule that matches a directory covers everything inside it. `.` and
//! `..` are resolved without touching the disk; a `..` after a wildcard cannot be resolved, so such
//! a rule allows nothing and counts as able to reach `state/`.

use std::path::{Component, Path, PathBuf};

use super::glob::{has_wildcard, Glob};

/// Tools that change files; their rules are the ones that could write into `state/`.
pub const FILE_WRITE_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// Tools whose rules name files to read.
const FILE_READ_TOOLS: [&str; 3] = ["Read", "Glob", "Grep"];

/// True when `tool` writes files.
pub fn is_file_write_tool(tool: &str) -> bool {
    FILE_WRITE_TOOLS.contains(&tool)
}

/// True when a rule for `rule_tool` with a path specifier covers the tool `tool`: `Edit(...)`
/// rules cover every file-editing tool and `Read(...)` rules every file-reading tool, as in
/// Claude Code; any other rule covers its own tool only.
pub(crate) fn rule_covers_tool(rule_tool: &str, tool: &str) -> bool {
    rule_tool == tool
        || (rule_tool == "Edit" && is_file_write_tool(tool))
        || (rule_tool == "Read" && FILE_READ_TOOLS.contains(&tool))
}

/// True when `tool` takes a file path that path rules apply to.
pub(crate) fn is_file_tool(tool: &str) -> bool {
    is_file_write_tool(tool) || FILE_READ_TOOLS.contains(&tool)
}

/// How a leading `/` is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slash {
    /// Only as Claude Code reads it: relative to the data directory.
    Project,
    /// Also as an absolute path, for deciding whether a rule could reach `state/`.
    Either,
}

/// One reading of a specifier: a literal base directory and a glob below it.
#[derive(Debug)]
struct Reading {
    /// The literal directory the glob is relative to.
    base: PathBuf,
    /// The glob below `base` (`None` when the rule names `base` itself), and its text.
    glob: Option<(Glob, String)>,
}

/// The ways `spec` can be read; `Err(())` when a `..` follows a wildcard.
fn readings(
    spec: &str,
    root: &Path,
    home: Option<&Path>,
    slash: Slash,
) -> Result<Vec<Reading>, ()> {
    let spec = spec.trim();
    let spec = if spec.len() > 1 {
        spec.trim_end_matches('/')
    } else {
        spec
    };
    let root = lexical(root);
    let mut raw: Vec<(PathBuf, &str, bool)> = Vec::new();
    if let Some(rest) = spec.strip_prefix("//") {
        raw.push((PathBuf::from("/"), rest, false));
    } else if let Some(rest) = spec.strip_prefix("~/") {
        if let Some(home) = home {
            raw.push((lexical(home), rest, false));
        }
    } else if let Some(rest) = spec.strip_prefix('/') {
        raw.push((root.clone(), rest, false));
        if slash == Slash::Either {
            raw.push((PathBuf::from("/"), rest, false));
        }
    } else if let Some(rest) = spec.strip_prefix("./") {
        raw.push((root.clone(), rest, false));
    } else if spec.contains('/') || spec == "." || spec == ".." {
        raw.push((root.clone(), spec, false));
    } else {
        raw.push((root.clone(), spec, true));
    }
    raw.into_iter()
        .map(|(base, rest, any_depth)| resolve(base, rest, any_depth))
        .collect()
}

/// Folds `.` and `..` of `rest` into `base` and compiles what is left.
fn resolve(mut base: PathBuf, rest: &str, any_depth: bool) -> Result<Reading, ()> {
    let mut kept: Vec<&str> = Vec::new();
    for segment in rest.split('/') {
        match segment {
            "" | "." => {}
            ".." => match kept.last() {
                Some(last) if has_wildcard(last) => return Err(()),
                Some(_) => {
                    kept.pop();
                }
                None => {
                    base.pop();
                }
            },
            s => kept.push(s),
        }
    }
    // Literal leading segments belong to the base, so the glob never sees them.
    let literal = kept.iter().take_while(|s| !has_wildcard(s)).count();
    let literal = if any_depth { 0 } else { literal };
    for s in &kept[..literal] {
        base.push(s);
    }
    let below = kept[literal..].join("/");
    let glob = match (below.is_empty(), any_depth) {
        (true, _) => None,
        (false, true) => Some(format!("**/{below}")),
        (false, false) => Some(below),
    };
    let glob = glob.map(|text| (Glob::path(&text), text));
    Ok(Reading { base, glob })
}

impl Reading {
    /// True when `path` (absolute, lexically clean) or a directory above it matches.
    fn covers(&self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.base) else {
            return false;
        };
        let Some((glob, _)) = &self.glob else {
            return true;
        };
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        (1..=parts.len()).any(|n| glob.matches(&parts[..n].join("/")))
    }
}

/// True when the path specifier `spec` covers `path` (absolute, or relative to `root`).
pub(crate) fn spec_covers(spec: &str, path: &Path, root: &Path, home: Option<&Path>) -> bool {
    let path = lexical(&root.join(path));
    match readings(spec, root, home, Slash::Project) {
        Ok(rs) => rs.iter().any(|r| r.covers(&path)),
        Err(()) => false,
    }
}

/// The readings of the path specifier `spec` as Claude Code reads it: each a literal base
/// directory and the glob text below it (`None`: the base itself); `None` when it can reach
/// nothing sure (a `..` after a wildcard).
pub(crate) fn spec_parts(
    spec: &str,
    root: &Path,
    home: Option<&Path>,
) -> Option<Vec<(PathBuf, Option<String>)>> {
    let readings = readings(spec, root, home, Slash::Project).ok()?;
    Some(
        readings
            .into_iter()
            .map(|r| (r.base, r.glob.map(|(_, text)| text)))
            .collect(),
    )
}

/// True when a write rule with specifier `spec` could let a tool write somewhere in `state/`.
///
/// A rule whose literal part already lies in `state/` reaches it. Otherwise a few representative
/// paths are probed (`state/` itself, files with and without the extensions state files use, a
/// nested file): a rule such as `**/*.txt` slips through; the PreToolUse guard still refuses the
/// write itself.
pub(crate) fn spec_could_reach_state(spec: &str, root: &Path, home: Option<&Path>) -> bool {
    let state = lexical(root).join("state");
    let probes = [
        state.clone(),
        state.join("x"),
        state.join("x.json"),
        state.join("x.jsonl"),
        state.join("sub").join("x"),
        state.join("sub").join("x.json"),
    ];
    match readings(spec, root, home, Slash::Either) {
        Ok(rs) => rs
            .iter()
            .any(|r| r.base.starts_with(&state) || probes.iter().any(|p| r.covers(p))),
        Err(()) => true,
    }
}

/// True when `path` (absolute, or relative to `root`) lies in `root/state`, judged both on the
/// path as written (`..` folded) and on where it really lands once symlinks are followed.
pub fn is_state_path(path: &Path, root: &Path) -> bool {
    let written = lexical(&root.join(path));
    let state = lexical(root).join("state");
    if written.starts_with(&state) {
        return true;
    }
    match (real_location(&written), real_location(&state)) {
        (Some(real), Some(real_state)) => real.starts_with(real_state),
        _ => false,
    }
}

/// `path` with its longest existing ancestor resolved through symlinks and the rest appended.
fn real_location(path: &Path) -> Option<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut tail = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in tail.iter().rev() {
                out.push(part);
            }
            return Some(out);
        }
        tail.push(existing.file_name()?.to_owned());
        if !existing.pop() {
            return None;
        }
    }
}

/// Where `path` really leads: its longest existing ancestor resolved through symlinks (the
/// kernel's reading of `..` included), the rest appended with `..` folded.
pub(crate) fn real_path(path: &Path) -> Option<PathBuf> {
    let parts: Vec<Component> = path.components().collect();
    (0..=parts.len()).rev().find_map(|n| {
        let head: PathBuf = parts[..n].iter().collect();
        let real = if n == 0 {
            None
        } else {
            head.canonicalize().ok()
        }?;
        let tail: PathBuf = parts[n..].iter().collect();
        Some(lexical(&real.join(tail)))
    })
}

/// Removes `.` and `..` components without touching the disk (the file may not exist yet).
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The home directory, for `~/` rules.
pub(crate) fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = "/home/u/.ollim-bot";
    const HOME: &str = "/home/u";

    fn covers(spec: &str, path: &str) -> bool {
        spec_covers(
            spec,
            Path::new(path),
            Path::new(ROOT),
            Some(Path::new(HOME)),
        )
    }

    fn reaches_state(spec: &str) -> bool {
        spec_could_reach_state(spec, Path::new(ROOT), Some(Path::new(HOME)))
    }

    #[test]
    fn relative_rules_are_anchored_at_the_data_dir() {
        assert!(covers("routines/*.md", "routines/walk.md"));
        assert!(covers(
            "routines/*.md",
            "/home/u/.ollim-bot/routines/walk.md"
        ));
        assert!(covers("/routines/**", "routines/a/b.md"));
        assert!(covers("./routines/**", "routines/a/b.md"));
        assert!(!covers("routines/*.md", "reminders/walk.md"));
        assert!(!covers("routines/*.md", "/tmp/routines/walk.md"));
    }

    #[test]
    fn bare_names_match_at_any_depth() {
        assert!(covers("*.md", "notes.md"));
        assert!(covers("*.md", "routines/deep/walk.md"));
        assert!(!covers("*.md", "state/x.json"));
    }

    #[test]
    fn a_rule_on_a_directory_covers_its_contents() {
        assert!(covers("routines", "routines/walk.md"));
        assert!(covers("routines/", "routines/a/walk.md"));
        assert!(!covers("routines", "reminders/walk.md"));
    }

    #[test]
    fn absolute_and_home_rules() {
        assert!(covers("//tmp/**", "/tmp/a/b"));
        assert!(!covers("//tmp/**", "/var/a"));
        assert!(covers("~/.ollim-bot/routines/*", "routines/x.md"));
    }

    #[test]
    fn dot_dot_is_folded_and_cannot_follow_a_wildcard() {
        assert!(covers("reminders/../routines/*", "routines/x.md"));
        assert!(!covers("*/../routines/*", "routines/x.md"));
        assert!(reaches_state("*/../x"));
    }

    #[test]
    fn rules_that_could_reach_state() {
        for spec in [
            "*",
            "**",
            "state/**",
            "state",
            "state/*.json",
            "state/*.txt",
            "state/budget.json",
            "**/*.json",
            "routines/../state/x.json",
            "/home/u/.ollim-bot/state/budget.json",
            "//home/u/.ollim-bot/state/*",
            "~/.ollim-bot/state/**",
            "/state/**",
            ".",
        ] {
            assert!(reaches_state(spec), "{spec} should reach state/");
        }
    }

    #[test]
    fn rules_that_stay_out_of_state() {
        for spec in [
            "**.md",
            "routines/**",
            "reminders/*.md",
            "//tmp/**",
            "**/*.txt",
            "routines/state/*",
        ] {
            assert!(!reaches_state(spec), "{spec} should not reach state/");
        }
    }

    #[test]
    fn state_paths_are_recognised_through_dot_dot() {
        let root = Path::new(ROOT);
        assert!(is_state_path(Path::new("state/ping_budget.json"), root));
        assert!(is_state_path(Path::new("routines/../state/x.json"), root));
        assert!(is_state_path(
            Path::new("/home/u/.ollim-bot/./state/sub/x"),
            root
        ));
        assert!(is_state_path(Path::new("state"), root));
        assert!(!is_state_path(Path::new("routines/state.md"), root));
        assert!(!is_state_path(Path::new("statement.md"), root));
        assert!(!is_state_path(Path::new("/tmp/state/x"), root));
    }

    #[cfg(unix)]
    #[test]
    fn state_paths_are_recognised_through_a_symlink() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("state")).unwrap();
        std::fs::create_dir_all(root.join("routines")).unwrap();
        std::os::unix::fs::symlink(root.join("state"), root.join("routines/link")).unwrap();
        assert!(is_state_path(Path::new("routines/link/new.json"), root));
        assert!(!is_state_path(Path::new("routines/new.md"), root));
    }
}
