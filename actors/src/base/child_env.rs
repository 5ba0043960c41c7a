//! The environment every `claude` child gets (SPEC §20): built from an allow-list, never the
//! bot's whole environment.
//!
//! The bot's environment holds `DISCORD_TOKEN`, `WEBHOOK_SECRET`, per-hook secrets and whatever
//! else `.env` set; the agent can run `env` or read `/proc/self/environ`. So a child starts from
//! an empty environment ([`apply`]) and gets back only what the CLI and the commands it runs
//! need ([`passes`]): `PATH`, `HOME` and the user's names, locale and time zone, the terminal,
//! proxies and CA bundles, the CLI's own credentials and settings (`ANTHROPIC_*`, `CLAUDE_*`,
//! `DISABLE_*`, `ENABLE_*`, `MCP_*`, the Bedrock and Vertex variables, Google's
//! application-default credentials among them) and the `OLLIM_*`
//! variables our own command line reads when the agent runs `ollim-bot …`. A name that ends in
//! `_SECRET`, is one of the bot's own secrets ([`WITHHELD`]) or a webhook spec's `secret-env`
//! ([`crate::base::redaction::is_secret_name`]) never passes, whatever its prefix.
//!
//! The session's own variables ([`AGENT_SESSION`], the data directory, the caller's extras) are
//! added on top.

use std::collections::BTreeMap;
use std::ffi::OsString;

use crate::base::redaction::WITHHELD;

/// Variables passed by exact name.
const EXACT: [&str; 43] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "COLORTERM",
    "TZ",
    "LANG",
    "LANGUAGE",
    "TMPDIR",
    "TMP",
    "TEMP",
    "EDITOR",
    "VISUAL",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    // Vertex: the region, and Google's application-default credentials the CLI signs in with
    // (a service-account key file's path, or gcloud's configuration directory) and the
    // project they name. (`CLAUDE_CODE_USE_VERTEX` and `ANTHROPIC_VERTEX_PROJECT_ID` pass by
    // prefix.) A path is not a secret: the key is in the file, where the CLI reads it.
    "CLOUD_ML_REGION",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GCLOUD_PROJECT",
    "CLOUDSDK_CONFIG",
    // The CLI reads these itself: running as root in a sandbox (`--dangerously-skip-permissions`
    // is refused to root without it) and Node's TLS and proxy settings.
    "IS_SANDBOX",
    "NODE_OPTIONS",
    "NODE_USE_SYSTEM_CA",
    "NODE_USE_ENV_PROXY",
    "NODE_TLS_REJECT_UNAUTHORIZED",
];

/// Variables passed by prefix: locale, the CLI's own credentials and settings (Bedrock's among
/// them).
const PREFIXES: [&str; 12] = [
    "LC_",
    "ANTHROPIC_",
    "CLAUDE_",
    "DISABLE_",
    "ENABLE_",
    "MCP_",
    "MAX_THINKING_TOKENS",
    "BASH_DEFAULT_TIMEOUT_MS",
    "BASH_MAX_",
    "AWS_",
    "OTEL_",
    // Vertex: a model's own region (`VERTEX_REGION_CLAUDE_3_5_HAIKU`).
    "VERTEX_REGION_",
];

/// Our own variables that `ollim-bot …` reads when the agent runs it.
const OURS: [&str; 6] = [
    "OLLIM_DATA_DIR",
    "OLLIM_TIMEZONE",
    "OLLIM_USER_NAME",
    "OLLIM_BOT_NAME",
    "OLLIM_GOOGLE_API_BASE",
    "OLLIM_LOG_FORMAT",
];

/// Tells `ollim-bot …` which kind of session runs it: `conversation`, `fork` (an interactive
/// fork) or `background`. Deleting a task or an event reads it (SPEC §20).
pub const AGENT_SESSION: &str = "OLLIM_AGENT_SESSION";

/// Which kind of agent session a child runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentSession {
    /// The main conversation.
    Conversation,
    /// An interactive fork of it.
    Fork,
    /// A background fork (or a job-bound subagent run inside one).
    Background,
}

impl AgentSession {
    /// The value of [`AGENT_SESSION`].
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Conversation => "conversation",
            Self::Fork => "fork",
            Self::Background => "background",
        }
    }

    /// Reads [`AGENT_SESSION`]'s value; `None` for anything else (the owner's own shell).
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "conversation" => Some(Self::Conversation),
            "fork" => Some(Self::Fork),
            "background" => Some(Self::Background),
            _ => None,
        }
    }
}

/// The variables every agent session sets on top: which kind it is, and the data directory
/// (so that `ollim-bot …` run by the agent works on the bot's own, whatever `.env` said).
pub fn agent_vars(data_dir: &std::path::Path, session: AgentSession) -> [(String, String); 2] {
    [
        (AGENT_SESSION.to_owned(), session.as_str().to_owned()),
        ("OLLIM_DATA_DIR".to_owned(), data_dir.display().to_string()),
    ]
}

/// True when a variable of this name may reach a `claude` child.
pub fn passes(name: &str) -> bool {
    if WITHHELD.contains(&name)
        || name.ends_with("_SECRET")
        || crate::base::redaction::is_secret_name(name)
    {
        return false;
    }
    EXACT.contains(&name) || OURS.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The allowed part of `vars` (non-Unicode names and values are left out).
pub fn allowed(vars: impl IntoIterator<Item = (OsString, OsString)>) -> BTreeMap<String, String> {
    vars.into_iter()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| passes(k))
        .collect()
}

/// Clears `command`'s environment and gives it the allowed part of this process's, then
/// `extra` (which may name anything: it is the caller's own choice). `CLAUDECODE` never passes:
/// the CLI refuses to start inside another session.
pub fn apply<'a>(
    command: &mut std::process::Command,
    extra: impl IntoIterator<Item = (&'a String, &'a String)>,
) {
    command
        .env_clear()
        .envs(allowed(std::env::vars_os()))
        .envs(extra)
        .env_remove("CLAUDECODE");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_and_unknown_variables_stay_behind() {
        for kept in [
            "DISCORD_TOKEN",
            "WEBHOOK_SECRET",
            "GITHUB_HOOK_SECRET",
            "CLAUDE_HOOK_SECRET",
            "OLLIM_HOOK_SECRET",
            "OLLIM_DISCORD_PROXY",
            "OPENAI_API_KEY",
            "SSH_AUTH_SOCK",
            "MY_NOTE",
            "CLAUDECODE_X",
        ] {
            assert!(!passes(kept), "{kept}");
        }
        for passed in [
            "PATH",
            "HOME",
            "LC_ALL",
            "TZ",
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            "CLAUDE_CONFIG_DIR",
            "CLAUDE_CODE_USE_BEDROCK",
            "AWS_SECRET_ACCESS_KEY",
            "DISABLE_TELEMETRY",
            "HTTPS_PROXY",
            "NODE_EXTRA_CA_CERTS",
            "OLLIM_DATA_DIR",
            "OLLIM_TIMEZONE",
        ] {
            assert!(passes(passed), "{passed}");
        }
    }

    #[test]
    fn vertex_users_credentials_project_and_regions_pass() {
        for passed in [
            "CLAUDE_CODE_USE_VERTEX",
            "ANTHROPIC_VERTEX_PROJECT_ID",
            "CLOUD_ML_REGION",
            "VERTEX_REGION_CLAUDE_3_5_HAIKU",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "GOOGLE_CLOUD_PROJECT",
            "GCLOUD_PROJECT",
            "CLOUDSDK_CONFIG",
        ] {
            assert!(passes(passed), "{passed}");
        }
        let key = "/home/me/.config/gcloud/claude-sa.json";
        let vars = [
            ("GOOGLE_APPLICATION_CREDENTIALS", key),
            ("GOOGLE_OTHER", "x"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        assert_eq!(
            allowed(vars),
            BTreeMap::from([("GOOGLE_APPLICATION_CREDENTIALS".to_owned(), key.to_owned())])
        );
    }

    #[test]
    fn a_child_sees_only_the_allowed_part_and_the_extras() {
        let vars = [
            ("PATH", "/bin"),
            ("DISCORD_TOKEN", "tok"),
            ("UNRELATED", "x"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let got = allowed(vars);
        assert_eq!(got.keys().collect::<Vec<_>>(), ["PATH"]);

        let mut command = std::process::Command::new("env");
        let extra = BTreeMap::from([(AGENT_SESSION.to_owned(), "background".to_owned())]);
        apply(&mut command, &extra);
        let envs: BTreeMap<_, _> = command
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_str()?.to_owned(), v.map(|v| v.to_owned()))))
            .collect();
        assert_eq!(
            envs.get(AGENT_SESSION).cloned().flatten(),
            Some(OsString::from("background"))
        );
        assert!(envs
            .keys()
            .all(|k| k == "CLAUDECODE" || passes(k) || k == AGENT_SESSION));
    }

    #[test]
    fn session_kinds_read_back() {
        for kind in [
            AgentSession::Conversation,
            AgentSession::Fork,
            AgentSession::Background,
        ] {
            assert_eq!(AgentSession::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(AgentSession::parse(""), None);
    }
}
