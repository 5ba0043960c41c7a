//! The Discord surface (SPEC §5, §10–12): the owner's DMs as the conversation's channel, through
//! serenity and poise.
//!
//! | module | owns |
//! | --- | --- |
//! | [`connect`] | the REST client (optionally through `OLLIM_DISCORD_PROXY`), the owner and gateway lookups, startup errors |
//! | [`ready`] | the one-time initialisation on the first READY |
//! | [`inbound`] | DMs, approval reactions and button clicks from Discord |
//! | [`outbox`] / [`delivery`] | everything posted in the DM channel, in order; streaming with throttled edits |
//! | [`answer`] | one answer in progress: text, status line, tool labels, the edit throttle |
//! | [`stream`] | an answer's text split into 2,000-character messages |
//! | [`render`] | embeds, buttons, the fork embeds |
//! | [`approvals`] | approval prompts waiting for a reaction |
//! | [`commands`] | the slash commands |
//! | [`sign_in`] | signing Claude Code in through the DM when it is not signed in at start |
//! | [`reauth`] | the same sign-in when a turn finds the sign-in lost while running |
//!
//! The run loop below owns the process's life: it starts the gateway, initialises once when asked
//! by poise's setup (actors can only be started from here), and leaves on SIGINT/SIGTERM, an actor
//! failure, `/restart` or `/update`, telling the owner "shutting down: <reason>" first — after
//! waiting (at most a minute, not after a failure) for the owner's lines already sent to be
//! answered, naming in it any that were not (`crate::drain`).

mod answer;
mod approvals;
mod attachments;
mod button_expiry;
mod commands;
mod connect;
mod data;
mod delivery;
mod inbound;
mod outbox;
mod quote;
mod ready;
mod reauth;
mod render;
mod sign_in;
mod stream;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use ollim_actors::base::settings::Settings;
use ollim_actors::bot::supervisor::Shutdown;
use ollim_actors::conversation::main_session::MainSessionConfig;
use serenity::all::{ClientBuilder, FullEvent};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{mpsc, oneshot, watch};

use data::{Data, Error, Leave};
use outbox::Post;
use ready::{InitRequest, Parts, Running};

/// How the run loop ended.
enum Exit {
    /// Stop for this reason.
    Stop(String),
    /// Stop, then run the binary again.
    Restart(String),
    /// A failure to report (after telling the owner, when the bot got that far).
    Fatal(anyhow::Error),
}

/// Runs the bot on Discord until it is told to stop; `sign_in` when Claude Code is not signed in
/// (the owner gets the sign-in link before anything else starts).
pub fn run(settings: Settings, main: MainSessionConfig, sign_in: bool) -> anyhow::Result<()> {
    let (data_dir, tz) = (settings.data_dir.clone(), settings.tz);
    let system = actix::System::new();
    let (exit, started) = system.block_on(serve(settings, main, sign_in))?;
    if started {
        // The supervisor closes the conversation's CLI, then stops the system.
        system.run().context("stopping the actors")?;
    }
    match exit {
        Exit::Stop(reason) => {
            tracing::info!(%reason, "stopped");
            Ok(())
        }
        Exit::Restart(reason) => {
            crate::update::record_restarting(&data_dir, tz);
            Err(reexec(&reason))
        }
        Exit::Fatal(e) => Err(e),
    }
}

/// Replaces this process with a fresh run of the same binary and arguments.
fn reexec(reason: &str) -> anyhow::Error {
    use std::os::unix::process::CommandExt as _;
    tracing::info!(%reason, "running the binary again");
    let Some(exe) = crate::own_path::own_exe() else {
        return anyhow::anyhow!("could not find the running binary to restart it");
    };
    let err = std::process::Command::new(&exe)
        .args(std::env::args_os().skip(1))
        .exec();
    anyhow::Error::new(err).context(format!("restarting {}", exe.display()))
}

/// Initialisation under way, and where its result goes.
type Initialising = (
    Pin<Box<dyn Future<Output = anyhow::Result<(Data, Running)>>>>,
    oneshot::Sender<anyhow::Result<Data>>,
);

async fn serve(
    settings: Settings,
    main: MainSessionConfig,
    sign_in: bool,
) -> anyhow::Result<(Exit, bool)> {
    let token = settings
        .discord_token
        .clone()
        .context("DISCORD_TOKEN is not set")?;
    let proxy = std::env::var("OLLIM_DISCORD_PROXY")
        .ok()
        .filter(|p| !p.trim().is_empty());
    let http = connect::http(&token, proxy.as_deref())?;
    if let Some(p) = &proxy {
        tracing::info!(proxy = %p, "discord calls go through the proxy");
    }
    let owner = connect::owner(&http).await?;
    tracing::info!(owner = %owner, "serving the application's owner");
    let gateway_url = connect::gateway_url(&http).await?;

    let (init_tx, mut init_rx) = mpsc::channel::<InitRequest>(1);
    let (leave_tx, mut leave_rx) = mpsc::unbounded_channel::<Leave>();
    let framework = poise::Framework::<Data, Error>::builder()
        .options(poise::FrameworkOptions {
            commands: commands::all(),
            on_error: |e| Box::pin(commands::on_error(e)),
            event_handler: |ctx, event, _framework, data| {
                Box::pin(async move {
                    if let FullEvent::Ready { data_about_bot } = event {
                        tracing::info!(session = %data_about_bot.session_id, "gateway ready");
                    }
                    inbound::on_event(ctx, event, data).await
                })
            },
            initialize_owners: false,
            ..Default::default()
        })
        .setup(move |ctx, _ready, framework| {
            Box::pin(async move {
                let (reply, answer) = oneshot::channel();
                init_tx
                    .send(InitRequest { reply })
                    .await
                    .map_err(|_| anyhow::anyhow!("the run loop has gone"))?;
                let data = answer
                    .await
                    .map_err(|_| anyhow::anyhow!("the run loop has gone"))??;
                poise::builtins::register_globally(ctx, &framework.options().commands)
                    .await
                    .context("registering the slash commands")?;
                tracing::info!(
                    count = framework.options().commands.len(),
                    "slash commands registered"
                );
                Ok(data)
            })
        })
        .build();
    let (relay, owner_lines) = sign_in::CodeRelay::new(owner);
    let mut client = ClientBuilder::new_with_http(http, connect::intents())
        // The original's presence: "Watching your DMs".
        .activity(serenity::all::ActivityData::watching("your DMs"))
        .event_handler(relay)
        .framework(framework)
        .await
        .map_err(connect::StartupError::from)?;
    // The client asked for the address again and may have fallen back to Discord's public one:
    // it connects to the one we waited for.
    *client.ws_url.lock().await = gateway_url;
    let http = Arc::clone(&client.http);
    let shards = Arc::clone(&client.shard_manager);
    let mut gateway = tokio::spawn(async move { client.start().await });
    let mut sigterm = signal(SignalKind::terminate()).context("listening for SIGTERM")?;
    let mut parts = Some(Parts {
        settings,
        main,
        http,
        owner,
        leave: leave_tx,
        sign_in: sign_in.then_some(owner_lines),
    });
    let mut running: Option<Running> = None;
    // Initialisation may wait for the owner to sign in: it runs beside the signals.
    let mut initialising: Option<Initialising> = None;
    let exit = loop {
        tokio::select! {
            Some(req) = init_rx.recv() => {
                let Some(p) = parts.take() else {
                    tracing::warn!("initialisation asked for twice; ignoring");
                    let _ = req.reply.send(Err(anyhow::anyhow!("already initialised")));
                    continue;
                };
                initialising = Some((Box::pin(ready::initialise(p)), req.reply));
            }
            done = until_done(initialising.as_mut().map(|(f, _)| f)) => {
                let Some((_, reply)) = initialising.take() else { continue };
                match done {
                    Ok((data, r)) => {
                        tracing::info!("initialised");
                        running = Some(r);
                        let _ = reply.send(Ok(data));
                    }
                    Err(e) => {
                        let _ = reply.send(Err(anyhow::anyhow!("{e:#}")));
                        break Exit::Fatal(e.context("initialising the bot"));
                    }
                }
            }
            ended = &mut gateway => break match ended {
                Ok(Ok(())) => Exit::Fatal(anyhow::anyhow!("the Discord connection ended")),
                Ok(Err(e)) => Exit::Fatal(connect::StartupError::from(e).into()),
                Err(e) => Exit::Fatal(anyhow::Error::new(e).context("the Discord client failed")),
            },
            _ = tokio::signal::ctrl_c() => break Exit::Stop("interrupted (SIGINT)".into()),
            _ = sigterm.recv() => break Exit::Stop("terminated (SIGTERM)".into()),
            Some(Leave::Restart(reason)) = leave_rx.recv() => break Exit::Restart(reason),
            reason = shutdown_started(running.as_ref().map(|r| r.shutdown.clone())) => {
                break Exit::Fatal(anyhow::anyhow!("{reason}"));
            }
        }
    };
    let started = running.is_some();
    if let Some(r) = running {
        let reason = match &exit {
            Exit::Stop(reason) | Exit::Restart(reason) => reason.clone(),
            Exit::Fatal(e) => format!("{e:#}"),
        };
        // Lines already sent are answered first (a stop or restart waits for them; a failure
        // does not), and any left unanswered are named in the goodbye.
        let bound = match &exit {
            Exit::Stop(_) | Exit::Restart(_) => crate::drain::BOUND,
            Exit::Fatal(_) => Duration::ZERO,
        };
        crate::drain::wait_idle(&r.main, bound).await;
        let unanswered = r.outbox.send(outbox::Unanswered).await.unwrap_or_else(|e| {
            tracing::error!(cause = %e, "the outbox has stopped");
            Vec::new()
        });
        let named = crate::drain::not_answered(&unanswered);
        let goodbye = r
            .outbox
            .send(Post(format!("shutting down: {reason}{named}")));
        if tokio::time::timeout(Duration::from_secs(5), goodbye)
            .await
            .is_err()
        {
            tracing::warn!("could not say goodbye in time");
        }
        if let Some(dashboard) = r.dashboard {
            dashboard.stop().await;
        }
        if let Some(hooks) = r.hooks {
            hooks.stop(true).await;
        }
        drop(r.control);
        r.supervisor.do_send(Shutdown { reason });
    }
    shards.shutdown_all().await;
    Ok((exit, started))
}

/// The future's output once it is done; never without one.
async fn until_done<T>(future: Option<&mut Pin<Box<dyn Future<Output = T>>>>) -> T {
    match future {
        Some(f) => f.await,
        None => std::future::pending().await,
    }
}

/// Resolves with the reason once a shutdown has begun inside the actors; never without them.
async fn shutdown_started(rx: Option<watch::Receiver<Option<String>>>) -> String {
    let Some(mut rx) = rx else {
        return std::future::pending().await;
    };
    let reason = match rx.wait_for(Option::is_some).await {
        Ok(reason) => reason.clone().unwrap_or_default(),
        Err(_) => return std::future::pending().await,
    };
    reason
}
