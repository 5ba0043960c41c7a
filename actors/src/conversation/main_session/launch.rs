//! Starting the main session's CLI process: resume the saved session, or start a new one with
//! an id we choose; fall back to a fresh session when the saved one cannot be resumed. The
//! process the actor runs, once started, is its [`Process`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;

use crate::agent::permissions::conversation_tools;
use crate::agent::tools::SessionKind;
use crate::base::child_env::{agent_vars, AgentSession};
use crate::claude::brain::releases::memory_in_first_message;
use crate::claude::brain::{
    Driver, Error, Handlers, Launched, PermissionMode, SessionStart, SpawnOptions,
};
use crate::conversation::surface::SurfaceEvent;
use crate::jobs::ModelChoice;
use crate::records::runtime_config::RuntimeConfig;

use super::fork_role::Role;
use super::host::{self, SessionHost};
use super::{tools_backend, MainSession, MainSessionConfig, ProcessEvent};

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
    /// It resumed or forked a session: its first message carries the memory
    /// ([`crate::agent::memory::first_message`]).
    pub memory_due: bool,
}

fn options(
    config: &MainSessionConfig,
    runtime: &RuntimeConfig,
    mode: PermissionMode,
    session: SessionStart,
    kind: &SessionKind,
    granted: &[String],
) -> SpawnOptions {
    let mut o = SpawnOptions::new(config.binary.clone(), config.data_dir.root().to_path_buf());
    // The memory is read at each start (after /clear, a restart, for each fork); a resumed or
    // forked process gets it in its first message instead (see `Process::memory_due`).
    o.append_system_prompt = Some(crate::agent::memory::system_prompt_for(
        &config.system_prompt,
        &config.data_dir,
        &session,
    ));
    o.model = config
        .model_override
        .clone()
        .or_else(|| runtime.model_main.map(|m| m.as_str().to_owned()));
    o.thinking = Some(runtime.thinking_main);
    o.permission_mode = Some(host::cli_mode(mode));
    // The OS sandbox's rules for this conversation's commands (SPEC §20).
    o.sandbox = Some(crate::agent::sandbox_rules::sandboxing(
        runtime.sandbox,
        &config.data_dir,
        crate::agent::sandbox_rules::Session::Conversation(host::cli_mode(mode)),
    ));
    // The assistant's built-ins (and those the tool policy grants), this kind's `discord` tools.
    o.tools = Some(kind.built_in_tools(granted));
    o.allowed_tools = conversation_tools(kind);
    o.disallowed_tools = kind.disallowed_tools();
    o.session = session;
    o.setting_sources = Some(vec!["project".to_owned()]);
    o.hooks = crate::agent::permissions::file_hooks::hooks();
    o.label = "main".to_owned();
    o.env = config.cli_env.clone();
    let session = match kind {
        SessionKind::InteractiveFork => AgentSession::Fork,
        _ => AgentSession::Conversation,
    };
    o.env.extend(agent_vars(config.data_dir.root(), session));
    if let Some(url) = &config.docs_mcp {
        // The original's documentation, searchable by the conversation (SPEC §17).
        o.http_mcp.push((DOCS_SERVER.to_owned(), url.clone()));
        o.allowed_tools.push(format!("mcp__{DOCS_SERVER}"));
    }
    o
}

/// The docs MCP server's name: its tools are `mcp__docs__<tool>`.
pub const DOCS_SERVER: &str = "docs";

/// Haiku's context window: a fork of a larger context cannot run on it.
const HAIKU_WINDOW: u64 = 200_000;

/// The warning shown when a haiku fork runs on sonnet instead (SPEC §17).
pub const HAIKU_TOO_SMALL: &str = "-# context exceeds haiku limit — using sonnet";

/// Sonnet with its 1M-token window, for a context past haiku's. 2.1.197 gives plain `sonnet` a
/// 200k window (so it would compact the fork's whole context away, or fail to); later releases
/// give it 1M and take this spelling too (the releases table, `claude::brain::releases`).
const SONNET_LARGE_WINDOW: &str = "sonnet[1m]";

/// An interactive fork's model (the CLI's spelling): `model.fork`, else `model.main`. A haiku
/// fork of a context larger than haiku's window (`parent_context`, the tokens of the
/// conversation's last model call) runs on sonnet with its large window, with
/// [`HAIKU_TOO_SMALL`].
pub fn fork_model(
    runtime: &RuntimeConfig,
    parent_context: Option<u64>,
) -> (Option<String>, Option<&'static str>) {
    let chosen = runtime.model_fork.or(runtime.model_main);
    match chosen {
        Some(ModelChoice::Haiku) if parent_context.is_some_and(|t| t > HAIKU_WINDOW) => {
            (Some(SONNET_LARGE_WINDOW.to_owned()), Some(HAIKU_TOO_SMALL))
        }
        other => (other.map(|m| m.as_str().to_owned()), None),
    }
}

/// How an interactive fork's process starts: its session, and the size of the context it
/// branches from (`None`: not known, e.g. a resumed background fork).
#[derive(Debug, Clone)]
pub struct ForkStart {
    /// Branched from (or resuming) this session.
    pub session: SessionStart,
    /// The tokens of the parent conversation's last model call.
    pub parent_context: Option<u64>,
}

/// How a conversation's process is to start.
pub struct Launch {
    /// The permission mode.
    pub mode: PermissionMode,
    /// The main session to resume, when there is one.
    pub saved: Option<String>,
    /// Set for an interactive fork.
    pub fork_start: Option<ForkStart>,
    /// `tool-policy.yaml`'s `main_session.additional_allowed` (validated): the built-ins it
    /// names are offered too.
    pub granted: Vec<String>,
    /// `saved` was just cleared (`/clear`) and has no transcript yet: start it as a new
    /// session with that id (reloading the memory, see `memory_reload`).
    pub cleared: bool,
}

/// Starts the process on `saved` (or a new session).
pub async fn start(
    config: MainSessionConfig,
    runtime: RuntimeConfig,
    launch: Launch,
    handlers: Handlers,
) -> Result<Started, Error> {
    let Launch {
        mode,
        saved,
        fork_start,
        granted,
        cleared,
    } = launch;
    if let Some(fork) = fork_start {
        // An interactive fork: a new session branched from (or resuming) the given one; its id
        // arrives with the first turn. It runs on the fork's model and thinking.
        let memory_due = memory_in_first_message(&fork.session);
        let mut o = options(
            &config,
            &runtime,
            mode,
            fork.session,
            &SessionKind::InteractiveFork,
            &granted,
        );
        let (model, note) = fork_model(&runtime, fork.parent_context);
        if config.model_override.is_none() {
            o.model = model;
        }
        o.thinking = Some(runtime.thinking_fork);
        o.label = "fork".to_owned();
        let launched = config.launcher.launch(o, handlers).await?;
        return Ok(Started {
            launched,
            session_id: String::new(),
            fresh_session: false,
            note: note.map(str::to_owned),
            memory_due,
        });
    }
    if let Some(id) = saved.as_ref().filter(|_| cleared && fork_start.is_none()) {
        let o = options(
            &config,
            &runtime,
            mode,
            SessionStart::NewWithId(id.clone()),
            &SessionKind::Main,
            &granted,
        );
        match config.launcher.launch(o, handlers.clone()).await {
            Ok(launched) => {
                tracing::info!(session_id = %id, "started the cleared session afresh");
                return Ok(Started {
                    launched,
                    session_id: id.clone(),
                    fresh_session: false,
                    note: None,
                    memory_due: false,
                });
            }
            // The CLI wrote the cleared session after all: resume it below.
            Err(e @ Error::StartFailed { .. }) => {
                tracing::warn!(session_id = %id, cause = %e, "could not start the cleared session afresh; resuming it");
            }
            Err(e) => return Err(e),
        }
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
                    &granted,
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
                    memory_due: true,
                });
            }
            Err(e @ Error::StartFailed { .. }) => {
                tracing::warn!(session_id = %id, cause = %e, "could not resume the main session; starting a new one");
                let mut started = start_new(&config, &runtime, mode, &granted, handlers).await?;
                started.note =
                    Some("-# couldn't resume the previous conversation — starting fresh.".into());
                return Ok(started);
            }
            Err(e) => return Err(e),
        }
    }
    start_new(&config, &runtime, mode, &granted, handlers).await
}

async fn start_new(
    config: &MainSessionConfig,
    runtime: &RuntimeConfig,
    mode: PermissionMode,
    granted: &[String],
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
                granted,
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
        memory_due: false,
    })
}

/// The conversation's CLI process: the one running, whether one is starting, and the counts
/// that tell its events and timers from stale ones.
pub(super) struct Process {
    /// The running process, if any.
    pub(super) live: Option<Live>,
    /// A process is being started.
    pub(super) launching: bool,
    /// Counts the processes started; events of an earlier one are ignored.
    pub(super) generation: u64,
    /// When the process last showed a sign of life (an event, or a line sent to it).
    pub(super) last_sign_of_life: Instant,
    /// Counts activity; an idle-release timer armed at another count is stale.
    pub(super) idle_epoch: u64,
    /// The process resumed or forked a session and has not had a message yet: the first one
    /// carries the memory as it is then.
    pub(super) memory_due: bool,
    /// The state the process last reported (`idle`, `running`, …; `None` until it says). A
    /// release that never reports it (2.1.197) is taken to be idle after a result and running
    /// once a turn shows (its `init`, its stream, a replayed line).
    pub(super) reported_state: Option<String>,
    /// The process reports its state itself (`session_state_changed`).
    pub(super) reports_state: bool,
    /// Counts what the process said of its turns (states, lines taken, results): a wait for
    /// lost lines started at another count is over (`lost_lines`).
    pub(super) state_epoch: u64,
}

/// A running process.
pub(super) struct Live {
    /// Its driver, shared with the calls still running on it.
    pub(super) driver: Arc<Box<dyn Driver>>,
    /// Which process it is ([`Process::generation`] when it started).
    pub(super) generation: u64,
    /// The secret files its OS sandbox keeps unreadable; `None` when it runs unsandboxed.
    pub(super) unreadable: Option<Vec<PathBuf>>,
}

impl Process {
    /// No process yet.
    pub(super) fn new() -> Self {
        Self {
            live: None,
            launching: false,
            generation: 0,
            last_sign_of_life: Instant::now(),
            idle_epoch: 0,
            memory_due: false,
            reported_state: None,
            reports_state: false,
            state_epoch: 0,
        }
    }

    /// True when the running process is sandboxed and the secret files are not those it started
    /// with (`root` is the data directory): one written since is not covered by its sandbox,
    /// and one gone since leaves a rule over a missing path (which 2.1.197's bubblewrap cannot
    /// mount, failing every command).
    pub(super) fn misses_a_secret(&self, root: &std::path::Path) -> bool {
        let Some(known) = self.live.as_ref().and_then(|l| l.unreadable.as_ref()) else {
            return false;
        };
        &crate::agent::sandbox_rules::unreadable(root) != known
    }

    /// A process is running.
    pub(super) fn running(&self) -> bool {
        self.live.is_some()
    }

    /// `generation` is the process running now.
    pub(super) fn is_current(&self, generation: u64) -> bool {
        self.live.as_ref().map(|l| l.generation) == Some(generation)
    }

    /// The running process's driver, for a call on it.
    pub(super) fn driver(&self) -> Option<Arc<Box<dyn Driver>>> {
        self.live.as_ref().map(|l| Arc::clone(&l.driver))
    }

    /// A process has started on `driver`: it is the running one now; `memory_due` when its
    /// first message is to carry the memory. Returns its generation.
    pub(super) fn started(
        &mut self,
        driver: Box<dyn Driver>,
        memory_due: bool,
        unreadable: Option<Vec<PathBuf>>,
    ) -> u64 {
        self.generation += 1;
        self.memory_due = memory_due;
        self.reported_state = None;
        self.reports_state = false;
        self.state_epoch += 1;
        self.live = Some(Live {
            driver: Arc::new(driver),
            generation: self.generation,
            unreadable,
        });
        self.generation
    }

    /// The process reported its state.
    pub(super) fn state_reported(&mut self, state: &str) {
        self.reports_state = true;
        self.reported_state = Some(state.to_owned());
        self.state_epoch += 1;
    }

    /// The process shows a turn under way (it took lines in, started or streams an answer):
    /// with a release that does not report its state, it is running now. 2.1.197 replays a line
    /// only with the turn's first whole message, after its text has streamed, so the replay
    /// alone comes too late to count.
    pub(super) fn turn_running(&mut self) {
        if !self.reports_state {
            self.reported_state = Some("running".to_owned());
        }
        self.state_epoch += 1;
    }

    /// A turn ended: with a release that does not report its state, it is idle until it takes
    /// (replays) another line.
    pub(super) fn turn_ended(&mut self) {
        if !self.reports_state {
            self.reported_state = Some("idle".to_owned());
        }
        self.state_epoch += 1;
    }

    /// The process's last report says it is idle.
    pub(super) fn reported_idle(&self) -> bool {
        self.reported_state.as_deref() == Some("idle")
    }

    /// Something is happening: a pending idle timer no longer counts.
    pub(super) fn note_activity(&mut self) {
        self.idle_epoch += 1;
    }

    /// The process showed a sign of life.
    pub(super) fn sign_of_life(&mut self) {
        self.last_sign_of_life = Instant::now();
    }

    /// No sign of life for `timeout`.
    pub(super) fn silent_for(&self, timeout: Duration) -> bool {
        self.last_sign_of_life.elapsed() >= timeout
    }
}

impl MainSession {
    /// Starts the process unless one runs or is starting; what waits is sent once it runs, and
    /// answered as failed when it cannot start.
    pub(super) fn ensure_launched(&mut self, ctx: &mut Context<Self>) {
        if self.process.launching || self.process.running() {
            return;
        }
        self.process.launching = true;
        let fork_start = match &self.forks.role {
            Role::Fork(state) => Some(ForkStart {
                session: state.start.clone(),
                parent_context: state.parent_context,
            }),
            Role::Main => None,
        };
        // As `options` decides it for this start: the same runtime values.
        let sandboxed = crate::claude::sandbox::in_force(
            self.config.runtime.values().sandbox,
            &crate::claude::sandbox::support(),
        );
        // Taken before the rules are: a secret that appears later starts the CLI again.
        let unreadable =
            sandboxed.then(|| crate::agent::sandbox_rules::unreadable(self.config.data_dir.root()));
        let handlers = crate::claude::brain::Handlers {
            host: Arc::new(SessionHost::conversation(
                self.config.data_dir.clone(),
                sandboxed,
                ctx.address(),
                self.surface.clone(),
                self.config.approvals.clone(),
            )),
            tools: tools_backend::server(self, ctx.address()),
        };
        let configured = self.permissions.policy.mode;
        let refused = crate::agent::permissions::bypass_refused_as_root();
        let (mode, notice) = crate::agent::permissions::root_rule::launch_mode(configured, refused);
        if let Some(notice) = notice {
            tracing::warn!("bypassPermissions refused as root; starting in dontAsk");
            self.permissions.policy.mode = mode;
            self.show(SurfaceEvent::Notice(notice));
        }
        // `tool-policy.yaml` as it is now: the built-ins it grants are offered from this start on.
        let granted = self.permissions.granted(&self.config.data_dir);
        let fut = start(
            self.config.clone(),
            *self.config.runtime.values(),
            Launch {
                mode,
                saved: self.saved.id.clone(),
                fork_start,
                granted,
                cleared: std::mem::take(&mut self.saved.cleared_restart),
            },
            handlers,
        );
        ctx.wait(fut.into_actor(self).map(|res, act, ctx| {
            act.process.launching = false;
            match res {
                Ok(started) => {
                    act.saved.launched(&act.config.data_dir);
                    if started.fresh_session && act.forks.is_main() {
                        act.saved.started_fresh(started.session_id.clone());
                    }
                    if let Some(note) = started.note {
                        act.show(SurfaceEvent::Notice(note));
                    }
                    let generation = act.process.started(
                        started.launched.driver,
                        started.memory_due,
                        unreadable,
                    );
                    let me = ctx.address();
                    let mut events = started.launched.events;
                    tokio::spawn(async move {
                        while let Some(event) = events.recv().await {
                            me.do_send(ProcessEvent { generation, event });
                        }
                    });
                    act.flush(ctx);
                    act.arm_idle_release(ctx);
                }
                Err(e) => {
                    tracing::error!(cause = %e, "could not start the claude cli");
                    act.show(SurfaceEvent::Error(format!(
                        "-# couldn't start the assistant: {e}"
                    )));
                    act.turns
                        .fail_waiting(&format!("could not start the claude cli: {e}"));
                }
            }
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_haiku_fork_of_a_context_past_its_window_runs_on_sonnet() {
        let mut runtime = RuntimeConfig {
            model_main: Some(ModelChoice::Opus),
            ..RuntimeConfig::default()
        };
        let named = |m: &str| Some(m.to_owned());
        assert_eq!(fork_model(&runtime, Some(500_000)), (named("opus"), None));
        runtime.model_fork = Some(ModelChoice::Haiku);
        assert_eq!(fork_model(&runtime, Some(150_000)), (named("haiku"), None));
        assert_eq!(fork_model(&runtime, None), (named("haiku"), None));
        // Sonnet's 1M window, which 2.1.197 gives only to `sonnet[1m]`.
        assert_eq!(
            fork_model(&runtime, Some(250_000)),
            (named("sonnet[1m]"), Some(HAIKU_TOO_SMALL))
        );
    }
}
