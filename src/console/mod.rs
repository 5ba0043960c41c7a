//! The console surface: the terminal as the DM channel (SPEC §1, ours).
//!
//! Runs the same actors as the Discord surface. Lines typed (or piped) on stdin are read one
//! at a time: `/command` lines run commands, anything else goes to the conversation; answers
//! stream to stdout as they arrive, with status lines (`-# *Thinking...*`, tool labels) on
//! lines of their own. A pasted Google redirect URL finishes `/google-auth` and never reaches
//! the conversation. End of input and SIGTERM wait (bounded) for the lines already sent to be
//! answered, then shut down with a line naming any left unanswered (see [`drain`]); Ctrl-C and
//! `/quit` shut down at once, naming the same.

mod commands;
mod memory;
mod render;
mod routines;

use std::time::Duration;

use actix::prelude::*;
use anyhow::Context as _;
use ollim_actors::base::settings::Settings;
use ollim_actors::bot::onboarding::{setup_prompt, SetupNames, SETUP_STARTED};
use ollim_actors::bot::supervisor::Shutdown;
use ollim_actors::conversation::main_session::{MainSessionConfig, Say};
use ollim_actors::google::account::PasteRedirect;
use ollim_actors::google::consent::looks_like_redirect;
use tokio::signal::unix::{signal, SignalKind};

use crate::drain;
use render::ConsoleOut;

/// How the console shows the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `ollim-bot console`: status lines, embeds in full, buttons to press.
    Console,
    /// `ollim-bot chat`: `you> `, `[tool] <label>`, `[embed] <title>`.
    Chat,
}

/// Runs the bot on the console until end of input or a signal.
pub fn run(settings: Settings, main: MainSessionConfig, style: Style) -> anyhow::Result<()> {
    let system = actix::System::new();
    system.block_on(async move {
        let out = match style {
            Style::Console => ConsoleOut::default(),
            Style::Chat => ConsoleOut::chat(),
        }
        .start();
        let started = crate::startup::start_actors(
            &settings,
            main,
            out.clone().recipient(),
            out.clone().recipient(),
        )
        .await?;
        let (supervisor, handles, main, hooks, control, dashboard) = (
            started.supervisor,
            started.handles,
            started.main,
            started.hooks,
            started.control,
            started.dashboard,
        );
        let tz = settings.tz;
        out.do_send(render::Prompt);
        let mut lines = stdin_lines();
        let mut sigterm = signal(SignalKind::terminate()).context("listening for SIGTERM")?;
        let mut sent = drain::Sent::default();
        // Why the loop ended, and how long to wait for the lines already sent to be answered.
        let (reason, bound) = loop {
            tokio::select! {
                line = lines.recv() => match line.transpose() {
                    Ok(Some(line)) => {
                        let line = line.trim();
                        if let Some(answer) = render::approval_answer(line) {
                            match out.send(render::AnswerApproval(answer)).await {
                                Ok(true) => continue,
                                Ok(false) => {}
                                Err(e) => break (format!("the console output stopped: {e}"), Duration::ZERO),
                            }
                        }
                        if line == "/quit" {
                            break ("quit".to_owned(), Duration::ZERO);
                        }
                        if line == "/setup" {
                            let names = SetupNames { user: &settings.user_name, bot: &settings.bot_name };
                            let text = setup_prompt(&settings.data_dir, names, chrono::Utc::now());
                            out.do_send(render::Line(SETUP_STARTED.to_owned()));
                            main.do_send(Say { text, images: Vec::new() });
                            continue;
                        }
                        if line == "/dashboard" {
                            let logins = dashboard.as_ref().map(|d| &d.logins);
                            out.do_send(render::Line(crate::dashboard::link_reply(logins).await));
                            continue;
                        }
                        if let Some(reply) = memory::answer(line, &settings.data_dir, tz).await {
                            out.do_send(render::Line(reply));
                            continue;
                        }
                        if looks_like_redirect(line) {
                            // A pasted Google redirect carries a one-time code: never the agent's.
                            if let Some(reply) = paste_redirect(&handles, line).await {
                                out.do_send(render::Line(reply));
                            }
                        } else if line.starts_with('/') {
                            let shown = match out.send(render::LastButtons).await {
                                Ok(shown) => shown,
                                Err(e) => break (format!("the console output stopped: {e}"), Duration::ZERO),
                            };
                            let snooze = match out.send(render::LastSnooze).await {
                                Ok(snooze) => snooze,
                                Err(e) => break (format!("the console output stopped: {e}"), Duration::ZERO),
                            };
                            let pressable = commands::Pressable { buttons: &shown, snooze: snooze.as_deref() };
                            if let Some(reply) = commands::handle(line, &handles, pressable, tz).await {
                                out.do_send(render::Line(reply));
                            }
                        } else if !line.is_empty() {
                            match out.send(render::Replies).await {
                                Ok(replies) => sent.note(line, replies),
                                Err(e) => break (format!("the console output stopped: {e}"), Duration::ZERO),
                            }
                            main.do_send(Say { text: line.to_owned(), images: Vec::new() });
                        }
                    }
                    Ok(None) => break ("input ended".to_owned(), drain::BOUND),
                    Err(e) => break (format!("reading input failed: {e}"), drain::BOUND),
                },
                _ = tokio::signal::ctrl_c() => break ("interrupted".to_owned(), Duration::ZERO),
                _ = sigterm.recv() => break ("terminated (SIGTERM)".to_owned(), drain::BOUND),
            }
        };
        tracing::info!(%reason, "the console is shutting down");
        drain::wait_idle(&main, bound).await;
        let replies = out.send(render::Replies).await.unwrap_or_else(|e| {
            tracing::error!(cause = %e, "the console output has stopped");
            0
        });
        let unanswered: Vec<String> =
            sent.unanswered(replies).into_iter().map(str::to_owned).collect();
        let farewell = format!("-# {reason} — shutting down{}", drain::not_answered(&unanswered));
        // Sent (not posted) so the renderer prints what is queued before the farewell line.
        let _ = out
            .send(render::Line(farewell))
            .await;
        if let Some(dashboard) = dashboard {
            dashboard.stop().await;
        }
        if let Some(hooks) = hooks {
            hooks.stop(true).await;
        }
        drop(control);
        supervisor.do_send(Shutdown { reason });
        anyhow::Ok(())
    })?;
    system.run().context("running the actor system")?;
    Ok(())
}

/// The lines of stdin, read on a thread of their own: a read that never ends (a terminal left
/// open at SIGTERM) must not hold up the exit, and a detached thread ends with the process
/// where the runtime's blocking pool would be waited for.
fn stdin_lines() -> tokio::sync::mpsc::UnboundedReceiver<std::io::Result<String>> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let spawned = std::thread::Builder::new()
        .name("stdin".to_owned())
        .spawn(move || {
            use std::io::BufRead as _;
            for line in std::io::stdin().lock().lines() {
                let failed = line.is_err();
                if tx.send(line).is_err() || failed {
                    break;
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!(cause = %e, "could not start reading stdin; treating it as ended");
    }
    rx
}

/// Hands a pasted redirect URL to the Google account; what to tell the user.
async fn paste_redirect(
    handles: &ollim_actors::bot::supervisor::Handles,
    line: &str,
) -> Option<String> {
    let Some(google) = handles.google.as_ref() else {
        return Some("google is not available in this run.".to_owned());
    };
    let outcome = google
        .send(PasteRedirect {
            text: line.to_owned(),
        })
        .await;
    Some(match outcome {
        Ok(o) => o.to_string(),
        Err(e) => format!("the google account did not answer: {e}"),
    })
    .filter(|t| !t.is_empty())
}
