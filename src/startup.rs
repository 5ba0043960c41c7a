//! Starting the bot: read the environment, prepare the data directory, claim the single-instance
//! lock, then hand over to the supervisor with the chosen surface.

use std::sync::Arc;
use std::time::Duration;

use actix::Actor as _;

use anyhow::{bail, Context};
use ollim_actors::agent::permissions::ApprovalRequest;
use ollim_actors::agent::subagents;
use ollim_actors::agent::system_prompt::{self, Names};
use ollim_actors::base::clock::SystemClock;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::base::settings::{Settings, SurfaceKind};
use ollim_actors::bot::supervisor::{GetHandles, Handles, JobSink, Supervisor, SupervisorConfig};
use ollim_actors::bot::webhook_server::{self, BotParts};
use ollim_actors::claude::brain::auth::{self, AuthState};
use ollim_actors::claude::brain::ClaudeLauncher;
use ollim_actors::claude::sandbox::{self, SandboxSetting};
use ollim_actors::conversation::main_session::{MainSession, MainSessionConfig};
use ollim_actors::conversation::surface::SurfaceEvent;
use ollim_actors::jobs::{store, Reminder, Routine};
use ollim_actors::records::runtime_config::ConfigStore;

/// Which surface to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceChoice {
    /// Discord when `DISCORD_TOKEN` is set, else the console.
    FromEnvironment,
    /// The console, whatever the environment says.
    Console,
}

/// How long a turn may show no sign of life before the CLI counts as hung
/// (`OLLIM_HANG_TIMEOUT_SECS`, default 10 minutes: long tool runs are normal).
fn hang_timeout() -> anyhow::Result<Duration> {
    match std::env::var("OLLIM_HANG_TIMEOUT_SECS") {
        Err(_) => Ok(Duration::from_secs(600)),
        Ok(v) => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|s| *s > 0)
            .map(Duration::from_secs)
            .with_context(|| format!("OLLIM_HANG_TIMEOUT_SECS: {v:?} is not a number of seconds")),
    }
}

/// The original's documentation server, the docs MCP server's default URL.
pub const DEFAULT_DOCS_MCP: &str = "https://docs.ollim.ai/mcp";

/// The docs MCP server's URL: `OLLIM_DOCS_MCP_URL`, else the original's; `off` (or empty)
/// for none.
fn docs_mcp(get: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<Option<String>> {
    match get("OLLIM_DOCS_MCP_URL").map(|v| v.trim().to_owned()) {
        None => Ok(Some(DEFAULT_DOCS_MCP.to_owned())),
        Some(v) if v.is_empty() || v.eq_ignore_ascii_case("off") => Ok(None),
        Some(v) if v.starts_with("http://") || v.starts_with("https://") => Ok(Some(v)),
        Some(v) => bail!("OLLIM_DOCS_MCP_URL: {v:?} is not an http(s) URL (or off)"),
    }
}

/// Logs the CLI's version (`claude --version`: 2.1.332's initialize answer no longer names it)
/// and warns once when it is outside the releases the bot is tested with.
fn log_claude_version(binary: &std::path::Path) {
    use ollim_actors::claude::brain::releases::{tested_range, Release, Standing};
    let line = match ollim_actors::claude::brain::cli_info::version(binary) {
        Ok(line) => line,
        Err(why) => {
            tracing::warn!(binary = %binary.display(), %why, "using the claude cli; its version is unknown");
            return;
        }
    };
    match Release::parse(&line).map(Release::standing) {
        Some(Standing::Tested) => {
            tracing::info!(binary = %binary.display(), version = %line, "using the claude cli")
        }
        standing => tracing::warn!(
            binary = %binary.display(),
            version = %line,
            tested = %tested_range(),
            newer = matches!(standing, Some(Standing::Newer)),
            "using a claude cli outside the tested releases; `ollim-bot doctor` says what to do"
        ),
    }
}

/// The conversation's settings: the CLI binary (a clear error when missing), the profile and subagents in place, the system prompt, the runtime
/// config.
fn main_session_config(settings: &Settings) -> anyhow::Result<MainSessionConfig> {
    let binary = ollim_actors::claude::brain::locate::find_claude()?;
    log_claude_version(&binary);
    let data = &settings.data_dir;
    let names = Names {
        user: settings.user_name.clone(),
        bot: settings.bot_name.clone(),
    };
    // An edit of the memory made while the bot was off becomes a change of its own, so
    // `/memory` can show and undo it.
    ollim_actors::agent::memory::versions::commit(data, "as found at start");
    if system_prompt::ensure_identity(data, &names).context("creating IDENTITY.md")? {
        tracing::info!("created IDENTITY.md from the template");
    }
    let report = subagents::install(data, &names).context("installing the subagent specs")?;
    for kept in &report.kept_user_edits {
        tracing::info!(agent = %kept, "kept your edited subagent spec");
    }
    let skills = ollim_actors::agent::bundled_skills::install(data)
        .context("installing the bundled skills")?;
    for kept in &skills.kept_user_edits {
        tracing::info!(skill = %kept, "kept your edited bundled skill");
    }
    // A file the bot cannot edit safely is logged and left; only an I/O failure is an error.
    ollim_actors::claude::claude_settings::turn_auto_memory_off(data)
        .context("writing .claude/settings.json")?;
    check_tool_patterns(data);
    let runtime = ConfigStore::load(data).context("reading state/config.json")?;
    tell_sandbox(runtime.values().sandbox);
    Ok(MainSessionConfig {
        data_dir: data.clone(),
        tz: settings.tz,
        clock: SystemClock::shared(),
        launcher: Arc::new(ClaudeLauncher),
        binary,
        system_prompt: system_prompt::build_from_disk(data, &names, settings.tz),
        runtime,
        hang_timeout: hang_timeout()?,
        cli_env: Default::default(),
        user_name: settings.user_name.clone(),
        // The surface fills this in: it is where questions can be asked.
        approvals: None,
        release: crate::version::release().to_owned(),
        model_override: None,
        docs_mcp: docs_mcp(&|k| std::env::var(k).ok())?,
        usage: None,
    })
}

/// Says at start, once, when the agent's commands will not be sandboxed (SPEC §20): under
/// `auto` where this machine lacks what it takes (each launch then stays quiet), under `on` why
/// no CLI will start.
fn tell_sandbox(setting: SandboxSetting) {
    let support = sandbox::support();
    match setting {
        SandboxSetting::Auto if !support.available() => sandbox::warn_once(&support),
        SandboxSetting::On if !support.available() => tracing::error!(
            "sandbox: on, but {support}: the assistant's CLI will not be started until it is \
             installed or /config sandbox is changed"
        ),
        SandboxSetting::Off => {
            tracing::warn!("sandbox: off: the assistant's commands run without the OS sandbox")
        }
        _ => tracing::info!(%setting, %support, "the assistant's commands run in the OS sandbox"),
    }
}

/// Validates every job's and skill's `allowed-tools` and `tool-policy.yaml` once at start,
/// logging what is wrong (`Bash(*)` and chained bash patterns are unsafe: a background job
/// holding one is skipped; `X(*)` warns, writes that could reach `state/` are stripped). Fire
/// time applies the same rules.
fn check_tool_patterns(data: &DataDir) {
    let mut sources: Vec<(String, Vec<String>)> = Vec::new();
    if let Ok(routines) = store::load_dir_unlogged::<Routine>(&data.routines()) {
        for (_, r) in routines.items {
            if let Some(t) = r.settings.allowed_tools {
                sources.push((format!("routine:{}", r.id), t));
            }
        }
    }
    if let Ok(reminders) = store::load_dir_unlogged::<Reminder>(&data.reminders()) {
        for (_, r) in reminders.items {
            if let Some(t) = r.settings.allowed_tools {
                sources.push((format!("reminder:{}", r.id), t));
            }
        }
    }
    if let Ok(skills) = ollim_actors::jobs::skills::load_skills(&data.skills()) {
        for (_, s) in skills.items {
            if let Some(t) = s.allowed_tools {
                sources.push((format!("skill:{}", s.name), t));
            }
        }
    }
    use ollim_actors::agent::permissions::tool_policy::{ToolPolicy, FILE_NAME};
    match ToolPolicy::read(data) {
        Ok(Some(policy)) => {
            sources.push((
                format!("{FILE_NAME} main_session.additional_allowed"),
                policy.main_additional,
            ));
            match policy.bg_override {
                Some(set) => sources.push((format!("{FILE_NAME} bg_forks.override"), set)),
                None => sources.push((
                    format!("{FILE_NAME} bg_forks.additional_allowed"),
                    policy.bg_additional,
                )),
            }
        }
        Ok(None) => {}
        Err(e) => {
            tracing::warn!(cause = %e, "the tool policy cannot be used; the built-in tool sets apply until it is fixed")
        }
    }
    for (source, patterns) in sources {
        ollim_actors::agent::permissions::validate(&patterns, data).log(&source);
    }
}

/// The surface `choice` means with this environment.
pub fn surface_for(choice: SurfaceChoice, get: &dyn Fn(&str) -> Option<String>) -> SurfaceKind {
    let token_set = get("DISCORD_TOKEN").is_some_and(|t| !t.trim().is_empty());
    match choice {
        SurfaceChoice::Console => SurfaceKind::Console,
        SurfaceChoice::FromEnvironment if token_set => SurfaceKind::Discord,
        SurfaceChoice::FromEnvironment => SurfaceKind::Console,
    }
}

/// Runs the bot until it is told to stop.
pub fn run_bot(choice: SurfaceChoice) -> anyhow::Result<()> {
    run(choice, None)
}

/// `ollim-bot chat` with no bot running: the console's bot, shown the way `chat` shows a
/// conversation, with `model` (when given) as the conversation's model for this run.
pub fn run_chat_alone(model: Option<String>) -> anyhow::Result<()> {
    run(SurfaceChoice::Console, Some(model))
}

/// Runs the bot; `chat` is `Some(model)` for `ollim-bot chat`.
fn run(choice: SurfaceChoice, chat: Option<Option<String>>) -> anyhow::Result<()> {
    let get = |k: &str| std::env::var(k).ok();
    let surface = surface_for(choice, &get);
    let settings = Settings::from_lookup(&get, surface)?;
    if let Some(note) = crate::own_path::other_on_path_note(&crate::own_path::invocation()) {
        eprintln!("note: {note}");
    }
    // Before anything is written: the original does not know our lock.
    if let Some(original) = crate::original_bot::running(&settings.data_dir.state()) {
        anyhow::bail!("{}", original.refusal(settings.data_dir.root()));
    }
    settings
        .data_dir
        .ensure()
        .with_context(|| format!("preparing {}", settings.data_dir.root().display()))?;
    let _instance = crate::single_instance::claim(&settings.data_dir)?;
    if let Err(e) = ollim_actors::jobs::migrate::reminders_background_default(&settings.data_dir) {
        // The reminders stay as they are; the next start tries again.
        tracing::error!(cause = %e, "could not mark the foreground reminders of earlier releases");
    }
    ollim_actors::agent::spec_docs::install(&settings.data_dir).context("placing the spec docs")?;
    let mut main = main_session_config(&settings)?;
    let style = match chat {
        Some(model) => {
            main.model_override = model;
            crate::console::Style::Chat
        }
        None => crate::console::Style::Console,
    };
    let signed_out = matches!(auth::check(&main.binary), AuthState::NotLoggedIn(_));
    match surface {
        // Discord DMs the owner a sign-in link before anything else starts.
        SurfaceKind::Discord => crate::discord::run(settings, main, signed_out),
        SurfaceKind::Console => {
            if signed_out {
                // Commands, schedule and budget still work; turns say how to sign in.
                eprintln!(
                    "{}",
                    ollim_actors::base::own_command::in_text(auth::LOGIN_HINT)
                );
            }
            crate::console::run(settings, main, style)
        }
    }
}

/// The actors a surface runs on, once started.
pub struct StartedActors {
    /// The supervisor.
    pub supervisor: actix::Addr<Supervisor>,
    /// The children's addresses.
    pub handles: Handles,
    /// The conversation.
    pub main: actix::Addr<MainSession>,
    /// The webhook server, when configured and it could bind.
    pub hooks: Option<actix_web::dev::ServerHandle>,
    /// The control socket `ollim-bot routine run` talks to (removed when dropped).
    pub control: Option<ollim_actors::bot::control_socket::ControlServer>,
    /// The dashboard, unless it is off or could not start.
    pub dashboard: Option<crate::dashboard::Running>,
}

/// Starts the supervisor (and so the conversation, which greets the user through `surface`),
/// the webhook server, the dashboard and the control socket beside it. Must run inside the
/// actix system.
pub async fn start_actors(
    settings: &Settings,
    mut main: MainSessionConfig,
    surface: actix::Recipient<SurfaceEvent>,
    approvals: actix::Recipient<ApprovalRequest>,
) -> anyhow::Result<StartedActors> {
    main.approvals = Some(approvals);
    // `ollim-bot chat` lines over the control socket see what the conversation shows here.
    let tap = ollim_actors::bot::control_socket::SurfaceTap::new(surface).start();
    let surface = tap.clone().recipient();
    let supervisor = Supervisor::start(
        SupervisorConfig {
            data_dir: settings.data_dir.clone(),
            tz: settings.tz,
            clock: SystemClock::shared(),
            watch_jobs: true,
            google: Some(settings.google_api.clone()),
        },
        JobSink::Conversation {
            main: Box::new(main),
            surface,
        },
    );
    let handles = supervisor
        .send(GetHandles)
        .await
        .context("the supervisor did not answer")?;
    let Some(main) = handles.main_session.clone() else {
        bail!("the supervisor started no main session");
    };
    let hook_server = match &settings.webhook {
        Some(hook) => {
            let parts = BotParts {
                data_dir: &settings.data_dir,
                clock: SystemClock::shared(),
                handles: &handles,
            };
            webhook_server::start_for_bot(hook, parts).unwrap_or_else(|e| {
                tracing::error!(port = hook.port, cause = %e, "webhook server failed to start");
                None
            })
        }
        None => None,
    };
    let hooks = hook_server.as_ref().map(|s| s.handle.clone());
    let hook_admission = hook_server.map(|s| s.admission);
    let dashboard =
        crate::dashboard::start_for_bot(&handles, settings.tz, &settings.data_dir, hook_admission);
    let socket = settings
        .data_dir
        .state_file(ollim_actors::bot::control_socket::FILE_NAME);
    let chat = ollim_actors::bot::control_socket::ChatRoute {
        main: main.clone(),
        tap,
    };
    let control = ollim_actors::bot::control_socket::serve(
        &socket,
        handles.scheduler.clone(),
        Some(chat),
        handles.google.clone(),
        dashboard.as_ref().map(|d| d.logins.clone().recipient()),
    )
        .inspect_err(|e| {
            tracing::error!(socket = %socket.display(), cause = %e, "control socket failed to start; `routine run` cannot reach this bot");
        })
        .ok();
    Ok(StartedActors {
        supervisor,
        handles,
        main,
        hooks,
        control,
        dashboard,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_docs_server_is_the_originals_unless_set_or_off() {
        let none = |_: &str| None;
        assert_eq!(docs_mcp(&none).unwrap().as_deref(), Some(DEFAULT_DOCS_MCP));
        let off = |_: &str| Some("off".to_owned());
        assert_eq!(docs_mcp(&off).unwrap(), None);
        let local = |_: &str| Some("http://127.0.0.1:7000/mcp".to_owned());
        assert_eq!(
            docs_mcp(&local).unwrap().as_deref(),
            Some("http://127.0.0.1:7000/mcp")
        );
        let bad = |_: &str| Some("docs.example".to_owned());
        assert!(docs_mcp(&bad).is_err());
    }
}
