//! Secrets the agent may not read, in any mode (SPEC §20): `.env` files, the Google grant
//! (`state/token.json`) and client (`state/credentials.json`), anything in `state/` named for a
//! secret or a token, and any process's environment (`/proc/<pid>/environ`: the bot's own
//! holds `DISCORD_TOKEN`).
//!
//! File tools (Read, Grep, the writers) are judged here on their path, `..` folded and
//! symlinks followed; a Grep of a directory that holds a secret file is refused unless its
//! `glob` keeps the secret's name out. They run inside the CLI, outside any OS sandbox, so this
//! judge is theirs alone. A Bash command is the sandbox's to stop ([`secret_files`] names what
//! it keeps unreadable); without a sandbox in force only `no_sandbox`'s coarse reading of the
//! text stands in ([`named_secret`]). The children's environment holds no secret to begin with
//! ([`crate::base::child_env`]).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::file_rules::{lexical, real_path};
use super::glob::Glob;

/// Names in `state/` that hold secrets.
const STATE_SECRETS: [&str; 2] = ["token.json", "credentials.json"];

/// `.env.<x>` files that hold examples, not secrets.
const ENV_EXAMPLES: [&str; 3] = ["example", "sample", "template"];

/// True for `.env` and `.env.<anything but an example>`.
fn is_env_name(name: &str) -> bool {
    match name.strip_prefix(".env") {
        Some("") => true,
        Some(rest) => rest
            .strip_prefix('.')
            .is_some_and(|x| !x.is_empty() && !ENV_EXAMPLES.contains(&x)),
        None => false,
    }
}

/// True for a name in `state/` that holds a secret.
fn is_state_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    STATE_SECRETS.contains(&lower.as_str())
        || lower.contains("secret")
        || lower.contains("token")
        || lower.contains("credential")
}

/// What secret `path` is, if it is one: judged as written (`..` folded) and where it really
/// leads.
fn secret_kind(path: &Path, state: &Path) -> Option<&'static str> {
    let written = lexical(path);
    let real = real_path(&written);
    let real_state = real_path(state);
    [Some(written), real].into_iter().flatten().find_map(|p| {
        let name = p.file_name()?.to_str()?;
        if is_env_name(name) {
            return Some("a .env file");
        }
        let parent = p.parent()?;
        if (parent == state || real_state.as_deref() == Some(parent)) && is_state_secret_name(name)
        {
            return Some("a secret in state/");
        }
        if name == "environ" && p.starts_with("/proc") {
            return Some("a process's environment");
        }
        None
    })
}

/// Why a PreToolUse call of a file tool must be refused for reaching a secret, or `None` (for
/// Bash too: see [`named_secret`]). `cwd` is the tool's directory; `root` the data directory.
pub fn secret_read(tool: &str, input: &Value, cwd: &Path, root: &Path) -> Option<String> {
    let state = lexical(root).join("state");
    let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::trim);
    let refused = |what: &str| {
        format!(
            "{tool} was not run: it would reach {what}, which holds the bot's secrets; they are \
             never shown to the agent"
        )
    };
    match tool {
        "Grep" => {
            let base = match text("path") {
                Some(p) if !p.is_empty() => lexical(&cwd.join(p)),
                _ => lexical(cwd),
            };
            if let Some(what) = secret_kind(&base, &state) {
                return Some(refused(what));
            }
            let names: Vec<&str> = text("glob")
                .unwrap_or_default()
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|g| !g.is_empty() && !g.starts_with('!'))
                .map(|g| g.rsplit('/').next().unwrap_or(g))
                .collect();
            held_secrets(&base, &state)
                .into_iter()
                .find(|(name, _)| names.is_empty() || names.iter().any(|g| could_match(g, name)))
                .map(|(_, what)| refused(what))
        }
        "Bash" => None,
        _ => {
            let file = text("file_path").or_else(|| text("notebook_path"))?;
            secret_kind(&cwd.join(file), &state).map(refused)
        }
    }
}

/// The secret files the OS sandbox must keep unreadable (SPEC §20), from the same rules as
/// the file tools' judge: `.env` and `.env.<x>` (examples aside) in each of `dirs`, `state/`'s
/// grant and client whether they exist yet or not, and every other `state/` file named for a
/// secret or a token that exists now. Paths are as given (the CLI resolves them).
pub fn secret_files(root: &Path, dirs: &[&Path]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in dirs {
        files.push(dir.join(".env"));
        if let Ok(entries) = std::fs::read_dir(dir) {
            for name in entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
            {
                if name != ".env" && is_env_name(&name) {
                    files.push(dir.join(name));
                }
            }
        }
    }
    let state = root.join("state");
    files.extend(STATE_SECRETS.iter().map(|name| state.join(name)));
    if let Ok(entries) = std::fs::read_dir(&state) {
        for name in entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
        {
            if is_state_secret_name(&name) && !STATE_SECRETS.contains(&name.as_str()) {
                files.push(state.join(name));
            }
        }
    }
    files.sort();
    files.dedup();
    files
}

/// The secret files that exist below `dir` where a search would find them: `dir/.env`,
/// `.env` in `state/`'s parent, and `state/`'s secrets.
fn held_secrets(dir: &Path, state: &Path) -> Vec<(String, &'static str)> {
    let mut found = Vec::new();
    let real_dir = real_path(dir).unwrap_or_else(|| dir.to_path_buf());
    let holds =
        |p: &Path| p.starts_with(dir) || real_path(p).is_some_and(|r| r.starts_with(&real_dir));
    if let Some(root) = state.parent() {
        for base in [dir, root] {
            let env = base.join(".env");
            if env.exists() && holds(&env) {
                found.push((".env".to_owned(), "a .env file"));
            }
        }
    }
    if holds(state) {
        if let Ok(entries) = std::fs::read_dir(state) {
            for name in entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
            {
                if is_state_secret_name(&name) {
                    found.push((name, "a secret in state/"));
                }
            }
        }
    }
    found
}

/// True when the shell wildcard `pattern` could match `name` (`[…]` read as any one character;
/// a leading `.` must be written, as the shell wants).
fn could_match(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let mut simple = String::new();
    let mut in_class = false;
    for c in pattern.chars() {
        match (c, in_class) {
            ('[', false) => {
                in_class = true;
                simple.push('?');
            }
            (']', true) => in_class = false,
            (_, true) => {}
            (c, false) => simple.push(c),
        }
    }
    let simple = simple.replace(['{', '}'], "*");
    Glob::path(&simple).matches(name)
}

/// Characters a path name is made of (for telling `x.env` from `.env`).
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// A secret's name written as a path somewhere in `text`, described.
pub(super) fn named_secret(text: &str) -> Option<&'static str> {
    let chars: Vec<char> = text.chars().collect();
    for i in 0..chars.len() {
        let starts_name = i == 0 || !is_name_char(chars[i - 1]);
        if !starts_name {
            continue;
        }
        let rest: String = chars[i..]
            .iter()
            .take_while(|c| is_name_char(**c))
            .collect();
        if is_env_name(&rest) {
            return Some("a .env file");
        }
        if STATE_SECRETS.contains(&rest.as_str()) {
            return Some("a secret in state/");
        }
        if rest == "environ" && i > 0 && chars[i - 1] == '/' {
            return Some("a process's environment");
        }
    }
    None
}

/// The tools whose calls [`secret_read`] judges, as a hook matcher (Bash and the writers have
/// their own registrations).
pub const SECRET_READERS: &str = "Read|Glob|Grep|NotebookRead";

/// The directory a hook call runs in: its `cwd`, else the data directory.
pub fn call_cwd(input: &Value, root: &Path) -> PathBuf {
    input
        .get("cwd")
        .and_then(Value::as_str)
        .map_or_else(|| root.to_path_buf(), PathBuf::from)
}

#[cfg(test)]
#[path = "secret_reads_tests.rs"]
mod tests;
