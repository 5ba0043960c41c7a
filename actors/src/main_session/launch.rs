//! Starting the main session's CLI process: resume the saved session, or start a new one with
//! an id we choose; fall back to a fresh session when the saved one cannot be resumed.

use crate::brain::{Error, Handlers, Launched, PermissionMode, SessionStart, SpawnOptions};
use crate::permissions::conversation_tools;
use crate::runtime_config::RuntimeConfig;
use crate::tools::SessionKind;

use super::host;
use super::MainSessionConfig;

/// A started process and what the actor should know about it.
pub struct Started {
    /// The process.
    pub launched: Launched,
    /// The session it works in.
    pub session_id: String,
    /// A new session was created (no saved one, or it could not be resumed).
    pub fresh_session: bool,
    /// Something to tell the user.
    pub note: Option<String>,
}

fn options(
    config: &MainSessionConfig,
    runtime: &RuntimeConfig,
    mode: PermissionMode,
    session: SessionStart,
    kind: &SessionKind,
) -> SpawnOptions {
    let mut o = SpawnOptions::new(config.binary.clone(), config.data_dir.root().to_path_buf());
    o.append_system_prompt = Some(config.system_prompt.clone());
    o.model = config
        .model_override
        .clone()
        .or_else(|| runtime.model_main.map(|m| m.as_str().to_owned()));
    o.thinking = Some(runtime.thinking_main);
    o.permission_mode = Some(host::cli_mode(mode));
    // The CLI's built-ins stay (its scheduling aside); only this kind's `discord` tools.
    o.allowed_tools = conversation_tools(kind);
    o.disallowed_tools = kind.disallowed_tools();
    o.session = session;
    o.setting_sources = Some(vec!["project".to_owned()]);
    o.hooks = crate::permissions::file_hooks::hooks();
    o.label = "main".to_owned();
    o.env = config.cli_env.clone();
    if let Some(url) = &config.docs_mcp {
        // The original's documentation, searchable by the conversation (SPEC §17).
        o.http_mcp.push((DOCS_SERVER.to_owned(), url.clone()));
        o.allowed_tools.push(format!("mcp__{DOCS_SERVER}"));
    }
    o
}

/// The docs MCP server's name: its tools are `mcp__docs__<tool>`.
pub const DOCS_SERVER: &str = "docs";

/// Starts the process on `saved` (or a new session).
pub async fn start(
    config: MainSessionConfig,
    runtime: RuntimeConfig,
    mode: PermissionMode,
    saved: Option<String>,
    fork_start: Option<SessionStart>,
    handlers: Handlers,
) -> Result<Started, Error> {
    if let Some(start) = fork_start {
        // An interactive fork: a new session branched from (or resuming) the given one; its id
        // arrives with the first turn.
        let launched = config
            .launcher
            .launch(
                options(
                    &config,
                    &runtime,
                    mode,
                    start,
                    &SessionKind::InteractiveFork,
                ),
                handlers,
            )
            .await?;
        return Ok(Started {
            launched,
            session_id: String::new(),
            fresh_session: false,
            note: None,
        });
    }
    if let Some(id) = saved {
        match config
            .launcher
            .launch(
                options(
                    &config,
                    &runtime,
                    mode,
                    SessionStart::Resume(id.clone()),
                    &SessionKind::Main,
                ),
                handlers.clone(),
            )
            .await
        {
            Ok(launched) => {
                tracing::info!(session_id = %id, "resumed the main session");
                return Ok(Started {
                    launched,
                    session_id: id,
                    fresh_session: false,
                    note: None,
                });
            }
            Err(e @ Error::StartFailed { .. }) => {
                tracing::warn!(session_id = %id, cause = %e, "could not resume the main session; starting a new one");
                let mut started = start_new(&config, &runtime, mode, handlers).await?;
                started.note =
                    Some("-# couldn't resume the previous conversation — starting fresh.".into());
                return Ok(started);
            }
            Err(e) => return Err(e),
        }
    }
    start_new(&config, &runtime, mode, handlers).await
}

async fn start_new(
    config: &MainSessionConfig,
    runtime: &RuntimeConfig,
    mode: PermissionMode,
    handlers: Handlers,
) -> Result<Started, Error> {
    let id = uuid::Uuid::new_v4().to_string();
    let launched = config
        .launcher
        .launch(
            options(
                config,
                runtime,
                mode,
                SessionStart::NewWithId(id.clone()),
                &SessionKind::Main,
            ),
            handlers,
        )
        .await?;
    // Saved after the first turn: the CLI writes the session only once it has a message.
    tracing::info!(session_id = %id, "started a new main session");
    Ok(Started {
        launched,
        session_id: id,
        fresh_session: true,
        note: None,
    })
}
