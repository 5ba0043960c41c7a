//! The OS sandbox's rules for one CLI child, generated from the trust rules of SPEC §20 and
//! the session's kind — never copied by hand into a settings file. Handed to the CLI as
//! `--settings` ([`crate::claude::sandbox`] decides whether they are):
//!
//! - unreadable: every secret [`secret_files`] names (`.env` in the bot's working directory
//!   and in the data directory, `state/token.json`, `state/credentials.json`, each `state/`
//!   file named for a secret or a token). Other processes' environments are out of sight
//!   already: the CLI runs each command in its own process namespace, with its own `/proc`;
//! - writable: the data directory for the conversation (not in `plan`), and for a background
//!   job only when its tools may write files, and never the memory or profile
//!   (`context.md`, `USER.md`, `IDENTITY.md`); never `state/`, a secret, the CLI's project
//!   settings, `tool-policy.yaml`, nor git's hooks and config (the bot commits unsandboxed);
//!   the CLI adds its own temporary directory;
//!
//! Only paths that exist are named: CLI 2.1.197 fails every command when bubblewrap cannot
//! mount over a missing one inside a read-only directory. So a secret written after a CLI
//! started (the grant, at a Google sign-in) is covered from that CLI's next start on: a
//! background job starts a CLI for each run, and the conversation starts its CLI again at the
//! next message when a secret appeared ([`unreadable`] tells). Denying
//! `state/` as a whole would cover it at once, but 2.1.332 then mounts an empty, writable
//! directory there, where a write seems to succeed.
//! - network: only `allowed_domains` of `tool-policy.yaml` for the session's kind, plus, for a
//!   background job, the domains its tools name (`WebFetch(domain:x)`); nothing else;
//! - unsandboxed: only our own `ollim-bot` commands ([`unsandboxed`]), the model may not ask
//!   for more (`allowUnsandboxedCommands: false`), and being sandboxed never allows a Bash
//!   command by itself (`autoAllowBashIfSandboxed: false`): the permission rules still decide.
//!
//! What the CLI does with each key was checked against 2.1.197, 2.1.330 and 2.1.332 (see
//! docs/sandbox.md). One difference matters: under `bypassPermissions` the CLI lets commands
//! reach a domain that is not allowed without asking anyone.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::permissions::profile_writes::CONVERSATION_ONLY;
use super::permissions::secret_reads::secret_files;
use super::permissions::tool_policy::ToolPolicy;
use super::permissions::{is_file_write_tool, unsandboxed};
use crate::base::data_dir::DataDir;
use crate::claude::brain::PermissionMode;
use crate::claude::sandbox::{SandboxSetting, Sandboxing};

/// Which session the rules are for.
#[derive(Debug, Clone, Copy)]
pub enum Session<'a> {
    /// The conversation or an interactive fork, in this permission mode.
    Conversation(PermissionMode),
    /// A background job with this allow list (its effective tools).
    Background(&'a [String]),
}

/// The setting and the rules for a child of `session` working in `data`.
pub fn sandboxing(setting: SandboxSetting, data: &DataDir, session: Session<'_>) -> Sandboxing {
    let policy = match ToolPolicy::read(data) {
        Ok(policy) => policy.unwrap_or_default(),
        Err(e) => {
            tracing::warn!(cause = %e, "the tool policy could not be read; commands get no network");
            ToolPolicy::default()
        }
    };
    let project = std::env::current_dir().ok();
    Sandboxing {
        setting,
        rules: rules(data.root(), project.as_deref(), &policy, session, setting),
    }
}

/// The secret files a child started now would have unreadable (they exist, so they are named):
/// what a running conversation compares against to tell that a secret appeared since its CLI
/// started (a Google sign-in writes the grant) and the CLI must start again to cover it.
pub fn unreadable(root: &Path) -> Vec<PathBuf> {
    let project = std::env::current_dir().ok();
    let dirs: Vec<&Path> = std::iter::once(root).chain(project.as_deref()).collect();
    secret_files(root, &dirs)
        .into_iter()
        .filter(|p| p.exists())
        .collect()
}

/// The `--settings` object.
pub fn rules(
    root: &Path,
    project: Option<&Path>,
    policy: &ToolPolicy,
    session: Session<'_>,
    setting: SandboxSetting,
) -> Value {
    let dirs: Vec<&Path> = std::iter::once(root).chain(project).collect();
    let secrets = secret_files(root, &dirs);
    let writes = match session {
        Session::Conversation(mode) => mode != PermissionMode::Plan,
        Session::Background(allowed) => allowed.iter().any(|t| {
            let name = t.split('(').next().unwrap_or(t);
            is_file_write_tool(name)
        }),
    };
    let deny_read: Vec<PathBuf> = secrets.into_iter().filter(|p| p.exists()).collect();
    let mut deny_write: Vec<PathBuf> = [
        "state",
        "tool-policy.yaml",
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".git/hooks",
        ".git/config",
    ]
    .iter()
    .map(|p| root.join(p))
    .chain(deny_read.iter().cloned())
    .chain(
        // A background job never writes the memory or the profile (SPEC §18).
        matches!(session, Session::Background(_))
            .then_some(CONVERSATION_ONLY.iter().map(|name| root.join(name)))
            .into_iter()
            .flatten(),
    )
    .filter(|p| p.exists())
    .collect();
    let allow_write: Vec<PathBuf> = if writes {
        vec![root.to_path_buf()]
    } else {
        // The working directory is writable unless denied, but not as a whole: 2.1.197 mounts
        // its own denials (`.gitconfig`, `.claude/commands`) into it and fails where it cannot
        // create them. So everything in it is denied, `.git` and `.claude` below the top.
        let mut entries: Vec<PathBuf> = std::fs::read_dir(root)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| !p.ends_with(".git") && !p.ends_with(".claude"))
            .collect();
        entries.sort();
        deny_write.splice(0..0, entries);
        Vec::new()
    };
    deny_write.sort();
    deny_write.dedup();
    let domains = match session {
        Session::Conversation(_) => policy.main_domains.clone(),
        Session::Background(allowed) => {
            let mut domains = policy.bg_domains.clone();
            domains.extend(allowed.iter().filter_map(|t| named_domain(t)));
            domains
        }
    };
    let mut domains: Vec<String> = domains.into_iter().map(|d| d.trim().to_owned()).collect();
    domains.retain(|d| !d.is_empty());
    domains.sort();
    domains.dedup();
    let text = |paths: &[PathBuf]| -> Vec<String> {
        paths.iter().map(|p| p.display().to_string()).collect()
    };
    json!({
        "sandbox": {
            "enabled": true,
            "failIfUnavailable": setting == SandboxSetting::On,
            "allowUnsandboxedCommands": false,
            "autoAllowBashIfSandboxed": false,
            "excludedCommands": unsandboxed::excluded_commands(),
            "filesystem": {
                "denyRead": text(&deny_read),
                "allowWrite": text(&allow_write),
                "denyWrite": text(&deny_write),
            },
            "network": {
                "allowedDomains": domains,
            },
        }
    })
}

/// The domain of a `WebFetch(domain:x)` pattern.
fn named_domain(pattern: &str) -> Option<String> {
    let inner = pattern
        .strip_prefix("WebFetch(domain:")?
        .strip_suffix(')')?;
    Some(inner.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    fn list(v: &Value, key: &str) -> Vec<String> {
        let (group, name) = key.split_once('.').unwrap();
        v["sandbox"][group][name]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn secrets_are_unreadable_and_unwritable_in_every_session() {
        let data = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(data.path().join("state")).unwrap();
        std::fs::write(data.path().join("state/slack_token"), "x").unwrap();
        std::fs::write(data.path().join("state/runs.jsonl"), "x").unwrap();
        std::fs::write(project.path().join(".env.local"), "x").unwrap();
        std::fs::write(project.path().join(".env"), "x").unwrap();
        std::fs::write(data.path().join(".env"), "x").unwrap();
        std::fs::write(data.path().join("state/token.json"), "x").unwrap();
        let allowed = strings(&["Bash(python3 *)"]);
        for session in [
            Session::Conversation(PermissionMode::BypassPermissions),
            Session::Background(&allowed),
        ] {
            let v = rules(
                data.path(),
                Some(project.path()),
                &ToolPolicy::default(),
                session,
                SandboxSetting::Auto,
            );
            let deny_read = list(&v, "filesystem.denyRead");
            for secret in [
                data.path().join(".env"),
                project.path().join(".env"),
                project.path().join(".env.local"),
                data.path().join("state/token.json"),
                data.path().join("state/slack_token"),
            ] {
                let secret = secret.display().to_string();
                assert!(deny_read.contains(&secret), "{secret} in {deny_read:?}");
                assert!(list(&v, "filesystem.denyWrite").contains(&secret));
            }
            assert_eq!(deny_read.len(), 5, "only what exists: {deny_read:?}");
            let state = data.path().join("state").display().to_string();
            assert!(list(&v, "filesystem.denyWrite").contains(&state));
            assert_eq!(v["sandbox"]["allowUnsandboxedCommands"], false);
            assert_eq!(v["sandbox"]["autoAllowBashIfSandboxed"], false);
            assert_eq!(v["sandbox"]["failIfUnavailable"], false);
        }
    }

    #[test]
    fn a_background_job_writes_only_when_its_tools_do() {
        let data = tempfile::tempdir().unwrap();
        let root = data.path().display().to_string();
        std::fs::create_dir_all(data.path().join("state")).unwrap();
        std::fs::create_dir_all(data.path().join(".git/hooks")).unwrap();
        let policy = ToolPolicy::default();
        let reads = strings(&["Bash(python3 *)", "Read(./**.md)"]);
        let v = rules(
            data.path(),
            None,
            &policy,
            Session::Background(&reads),
            SandboxSetting::On,
        );
        assert!(list(&v, "filesystem.allowWrite").is_empty());
        let notes = data.path().join("notes.md").display().to_string();
        assert!(!list(&v, "filesystem.denyWrite").contains(&notes));
        std::fs::write(data.path().join("notes.md"), "x").unwrap();
        let v = rules(
            data.path(),
            None,
            &policy,
            Session::Background(&reads),
            SandboxSetting::On,
        );
        assert!(list(&v, "filesystem.denyWrite").contains(&notes));
        assert_eq!(v["sandbox"]["failIfUnavailable"], true);
        let writes = strings(&["Write(notes/**)"]);
        std::fs::write(data.path().join("context.md"), "x").unwrap();
        let v = rules(
            data.path(),
            None,
            &policy,
            Session::Background(&writes),
            SandboxSetting::On,
        );
        assert_eq!(list(&v, "filesystem.allowWrite"), vec![root.clone()]);
        let memory = data.path().join("context.md").display().to_string();
        assert!(list(&v, "filesystem.denyWrite").contains(&memory));
        let plan = rules(
            data.path(),
            None,
            &policy,
            Session::Conversation(PermissionMode::Plan),
            SandboxSetting::On,
        );
        assert!(list(&plan, "filesystem.allowWrite").is_empty());
        let talk = rules(
            data.path(),
            None,
            &policy,
            Session::Conversation(PermissionMode::DontAsk),
            SandboxSetting::On,
        );
        assert!(!list(&talk, "filesystem.denyWrite").contains(&memory));
    }

    #[test]
    fn network_is_the_policy_and_the_jobs_own_domains_only() {
        let data = tempfile::tempdir().unwrap();
        let policy = ToolPolicy {
            main_domains: strings(&["example.org"]),
            bg_domains: strings(&["api.weather.gov"]),
            ..ToolPolicy::default()
        };
        let none = rules(
            data.path(),
            None,
            &ToolPolicy::default(),
            Session::Background(&[]),
            SandboxSetting::Auto,
        );
        assert!(list(&none, "network.allowedDomains").is_empty());
        let job = strings(&["WebFetch(domain:127.0.0.1)", "Bash(curl *)"]);
        let bg = rules(
            data.path(),
            None,
            &policy,
            Session::Background(&job),
            SandboxSetting::Auto,
        );
        assert_eq!(
            list(&bg, "network.allowedDomains"),
            strings(&["127.0.0.1", "api.weather.gov"])
        );
        let main = rules(
            data.path(),
            None,
            &policy,
            Session::Conversation(PermissionMode::DontAsk),
            SandboxSetting::Auto,
        );
        assert_eq!(
            list(&main, "network.allowedDomains"),
            strings(&["example.org"])
        );
    }
}
