//! The slash commands (SPEC §12), registered once as DM commands of a user-installable app. Every
//! command runs only for the owner in the bot's DMs; anyone else is told "not authorized".
//!
//! | module | commands |
//! | --- | --- |
//! | [`conversation`] | `/clear /compact /cost /fork /model /thinking /interrupt /permissions /config` |
//! | [`budget`] | `/ping-budget` |
//! | [`routines`] | `/routines` |
//! | [`memory`] | `/memory` (and its Undo button) |
//! | [`lifecycle`] | `/restart /update /google-auth` |
//! | [`version`] | `/version` |
//! | [`usage`] | `/usage` |
//! | [`setup`] | `/setup` |
//! | [`dashboard`] | `/dashboard` |

mod budget;
mod conversation;
mod dashboard;
mod lifecycle;
pub mod memory;
mod routines;
pub mod setup;
mod usage;
mod version;

pub use routines::redraw as redraw_routines;

use poise::serenity_prelude as serenity;
use poise::{CreateReply, FrameworkError};

use super::data::{Ctx, Data, Error};

/// The refusal for anyone but the owner, or outside DMs.
pub const NOT_AUTHORIZED: &str = "not authorized";

/// Every command, marked as a DM command of a user-installable app.
pub fn all() -> Vec<poise::Command<Data, Error>> {
    let mut commands = vec![
        setup::setup(),
        conversation::clear(),
        conversation::compact(),
        conversation::cost(),
        conversation::fork(),
        conversation::model(),
        conversation::thinking(),
        conversation::interrupt(),
        conversation::permissions(),
        conversation::config_command(),
        budget::ping_budget(),
        routines::routines(),
        memory::memory(),
        lifecycle::restart(),
        lifecycle::update(),
        lifecycle::google_auth(),
        version::version(),
        usage::usage(),
        dashboard::dashboard(),
    ];
    for c in &mut commands {
        c.install_context = Some(vec![
            serenity::InstallationContext::User,
            serenity::InstallationContext::Guild,
        ]);
        c.interaction_context = Some(vec![
            serenity::InteractionContext::BotDm,
            serenity::InteractionContext::PrivateChannel,
        ]);
    }
    commands
}

/// The owner, in a DM.
pub async fn authorized(ctx: Ctx<'_>) -> Result<bool, Error> {
    let ok = ctx.author().id == ctx.data().owner && ctx.guild_id().is_none();
    if !ok {
        tracing::info!(user = %ctx.author().id, command = %ctx.command().name, "refused a command");
    }
    Ok(ok)
}

/// Replies to a command: deferred commands get a follow-up, others a response.
pub async fn answer(ctx: Ctx<'_>, text: impl Into<String>) -> Result<(), Error> {
    let text = text.into();
    let text = if text.trim().is_empty() {
        "done.".to_owned()
    } else {
        text
    };
    ctx.say(text).await?;
    Ok(())
}

/// What goes wrong around commands: refusals answered, failures logged with their cause.
pub async fn on_error(error: FrameworkError<'_, Data, Error>) {
    match error {
        FrameworkError::CommandCheckFailed { ctx, .. } => {
            let reply = CreateReply::default()
                .content(NOT_AUTHORIZED)
                .ephemeral(true);
            if let Err(e) = ctx.send(reply).await {
                tracing::warn!(cause = %e, "could not refuse a command");
            }
        }
        FrameworkError::Command { error, ctx, .. } => {
            tracing::error!(command = %ctx.command().name, cause = %format!("{error:#}"), "command failed");
            let _ = ctx
                .say("-# that command failed — details are in the log.")
                .await;
        }
        FrameworkError::ArgumentParse {
            error, input, ctx, ..
        } => {
            tracing::warn!(command = %ctx.command().name, cause = %error, ?input, "bad command argument");
            let _ = ctx.say(format!("-# {error}")).await;
        }
        FrameworkError::Setup { error, .. } => {
            tracing::error!(cause = %format!("{error:#}"), "initialisation failed");
        }
        FrameworkError::EventHandler { error, event, .. } => {
            tracing::warn!(cause = %format!("{error:#}"), event = %event.snake_case_name(), "event handler failed");
        }
        other => {
            if let Err(e) = poise::builtins::on_error(other).await {
                tracing::warn!(cause = %e, "could not report a framework error");
            }
        }
    }
}
