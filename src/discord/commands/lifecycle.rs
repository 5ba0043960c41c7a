//! `/restart`, `/update` and `/google-auth` (SPEC §12, §15). `/restart` runs the binary again;
//! `/update` runs the update steps the auto-update timer runs (`crate::update`: fetch, compare,
//! pull fast-forward only, build) and restarts, refusing while an answer is being written or a
//! fork is open; Google is not built yet, which `/google-auth` says.

use ollim_actors::main_session::quiet::IsQuiet;

use super::super::data::Leave;
use super::{answer, Ctx, Error};
use crate::update::{self, Outcome};

/// The answer to `/google-auth` until Google lands.
pub const GOOGLE_NOT_CONFIGURED: &str =
    "Google is not configured: this version does not connect to Google yet.";

/// Restart the bot.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn restart(ctx: Ctx<'_>) -> Result<(), Error> {
    answer(ctx, "restarting...").await?;
    let _ = ctx
        .data()
        .leave
        .send(Leave::Restart("restart requested".into()));
    Ok(())
}

/// Connect Google (not available yet).
#[poise::command(slash_command, rename = "google-auth", check = "super::authorized")]
pub async fn google_auth(ctx: Ctx<'_>) -> Result<(), Error> {
    answer(ctx, GOOGLE_NOT_CONFIGURED).await
}

/// Pull the latest version, rebuild, and restart.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn update(ctx: Ctx<'_>) -> Result<(), Error> {
    ctx.defer().await?;
    if !ctx.data().main.send(IsQuiet).await.unwrap_or(false) {
        return answer(
            ctx,
            "busy answering (or a fork is open) — try /update again once it's done.",
        )
        .await;
    }
    let Some(checkout) = update::checkout_from_env() else {
        return answer(ctx, update::NO_CHECKOUT).await;
    };
    match checkout.update().await {
        Outcome::UpToDate => answer(ctx, "already up to date.").await,
        Outcome::Failed(e) => {
            tracing::warn!(step = %e, output = %e.output, "update failed");
            answer(ctx, update::failure_text("update failed", &e)).await
        }
        Outcome::Built(built) => {
            answer(ctx, built.announcement()).await?;
            let _ = ctx
                .data()
                .leave
                .send(Leave::Restart("update installed".into()));
            Ok(())
        }
    }
}
