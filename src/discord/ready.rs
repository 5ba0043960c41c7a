//! The one-time initialisation when the gateway first says READY (SPEC §12): open the owner's DM
//! channel, start the outbox and the supervisor (whose main session greets the owner), and the
//! webhook server. poise runs its setup once and the run loop refuses a second request, so a
//! gateway reconnect (READY again) re-runs none of it.

use std::sync::Arc;

use actix::prelude::*;
use anyhow::Context as _;
use ollim_actors::base::settings::Settings;
use ollim_actors::bot::supervisor::{Supervisor, WatchShutdown};
use ollim_actors::conversation::main_session::MainSessionConfig;
use serenity::all::{Http, UserId};
use tokio::sync::{mpsc, oneshot, watch};

use super::data::{Data, Leave};
use super::outbox::{Outbox, OutboxConfig};

/// Asks the run loop (which can start actors) to initialise; answered with poise's user data.
pub struct InitRequest {
    /// Where the data goes.
    pub reply: oneshot::Sender<anyhow::Result<Data>>,
}

/// What the run loop keeps of a started bot.
pub struct Running {
    /// The supervisor.
    pub supervisor: Addr<Supervisor>,
    /// The outbox (for the goodbye).
    pub outbox: Addr<Outbox>,
    /// The conversation (waited for before the goodbye).
    pub main: Addr<ollim_actors::conversation::main_session::MainSession>,
    /// The shutdown reason once a shutdown starts anywhere.
    pub shutdown: watch::Receiver<Option<String>>,
    /// The webhook server, when configured.
    pub hooks: Option<actix_web::dev::ServerHandle>,
    /// The control socket (removed when dropped).
    pub control: Option<ollim_actors::bot::control_socket::ControlServer>,
    /// The dashboard, when it runs.
    pub dashboard: Option<crate::dashboard::Running>,
}

/// Everything initialisation needs.
pub struct Parts {
    /// The settings.
    pub settings: Settings,
    /// The conversation's configuration (its approvals go to the outbox).
    pub main: MainSessionConfig,
    /// The REST client.
    pub http: Arc<Http>,
    /// The owner.
    pub owner: UserId,
    /// Where commands ask to leave.
    pub leave: mpsc::UnboundedSender<Leave>,
    /// The owner's messages, when Claude Code must be signed in first.
    pub sign_in: Option<mpsc::Receiver<super::sign_in::OwnerLine>>,
}

/// Starts the bot's actors; must run where actix can spawn (the run loop).
pub async fn initialise(parts: Parts) -> anyhow::Result<(Data, Running)> {
    let Parts {
        settings,
        main,
        http,
        owner,
        leave,
        sign_in,
    } = parts;
    let dm = owner
        .create_dm_channel(&*http)
        .await
        .context("opening the DM channel with the owner")?
        .id;
    tracing::info!(owner = %owner, channel = %dm, "dm channel open");
    let sign_in_messages = match sign_in {
        Some(mut lines) => {
            let dm = super::sign_in::Dm {
                http: &http,
                channel: dm,
            };
            super::sign_in::sign_in(&main.binary, &dm, &mut lines, "signed in — starting up.")
                .await?
        }
        None => Default::default(),
    };
    let reauth = super::reauth::Reauth::new(main.binary.clone(), http.clone(), dm).start();
    let outbox = Outbox::start(OutboxConfig {
        http: http.clone(),
        channel: dm,
        data_dir: settings.data_dir.clone(),
        reauth: reauth.clone().recipient(),
    });
    let started = crate::startup::start_actors(
        &settings,
        main,
        outbox.clone().recipient(),
        outbox.clone().recipient(),
    )
    .await?;
    let shutdown = started
        .supervisor
        .send(WatchShutdown)
        .await
        .context("the supervisor did not answer")?;
    let (supervisor, handles, main_session, hooks, control, dashboard) = (
        started.supervisor,
        started.handles,
        started.main,
        started.hooks,
        started.control,
        started.dashboard,
    );
    start_auto_update(
        &settings,
        &main_session,
        &handles.job_runner,
        &outbox,
        leave.clone(),
    );
    let data = Data {
        owner,
        handles,
        main: main_session,
        outbox: outbox.clone(),
        leave,
        sign_in_messages,
        reauth,
        data_dir: settings.data_dir.clone(),
        tz: settings.tz,
        names: ollim_actors::agent::system_prompt::Names {
            user: settings.user_name.clone(),
            bot: settings.bot_name.clone(),
        },
        dashboard: dashboard.as_ref().map(|d| d.logins.clone()),
    };
    let running = Running {
        supervisor,
        main: data.main.clone(),
        outbox,
        shutdown,
        hooks,
        control,
        dashboard,
    };
    Ok((data, running))
}

/// Starts the auto-update timer; what it says goes to the DM, its restart to the run loop.
fn start_auto_update(
    settings: &Settings,
    main: &Addr<ollim_actors::conversation::main_session::MainSession>,
    job_runner: &Addr<ollim_actors::scheduling::job_runner::JobRunner>,
    outbox: &Addr<Outbox>,
    leave: mpsc::UnboundedSender<Leave>,
) {
    let (tx, mut notes) = mpsc::unbounded_channel();
    crate::update::timer::spawn(crate::update::timer::Timer {
        clock: ollim_actors::base::clock::SystemClock::shared(),
        tz: settings.tz,
        checkout: crate::update::checkout_from_env(),
        quiet: crate::update::quiet::Quiet {
            conversation: main.clone().recipient(),
            runs: job_runner.clone().recipient(),
        },
        settings: main.clone().recipient(),
        out: tx,
    });
    let outbox = outbox.clone();
    tokio::spawn(async move {
        while let Some(note) = notes.recv().await {
            match note {
                crate::update::Note::Say(text) => {
                    // Posted in order before the restart's goodbye.
                    let _ = outbox.send(super::outbox::Post(text)).await;
                }
                crate::update::Note::Restart(reason) => {
                    let _ = leave.send(Leave::Restart(reason));
                }
            }
        }
    });
}
