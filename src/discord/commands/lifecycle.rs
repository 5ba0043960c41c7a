//! `/restart`, `/update` and `/google-auth` (SPEC §12, §15). `/restart` runs the binary again;
//! `/update` runs the update steps the auto-update timer runs (`crate::update`: fetch, compare,
//! pull fast-forward only, build) and restarts, refusing while an answer is being written or a
//! fork is open; `/google-auth` starts connecting Google (the Google account actor answers; the
//! flow's end arrives in the DM).

use ollim_actors::google::account::StartConsent;

use super::super::data::Leave;
use super::super::outbox::Post;
use super::{answer, Ctx, Error};
use crate::update::{self, Outcome};

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

/// Connect Google (Tasks, Calendar, Gmail).
#[poise::command(slash_command, rename = "google-auth", check = "super::authorized")]
pub async fn google_auth(ctx: Ctx<'_>) -> Result<(), Error> {
    let Some(google) = ctx.data().handles.google.clone() else {
        return answer(ctx, "google is not available in this run.").await;
    };
    let reply = google.send(StartConsent).await?;
    answer(ctx, reply.to_string()).await
}

/// Pull the latest version, rebuild, and restart.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn update(ctx: Ctx<'_>) -> Result<(), Error> {
    ctx.defer().await?;
    let quiet = crate::update::quiet::Quiet {
        conversation: ctx.data().main.clone().recipient(),
        runs: ctx.data().handles.job_runner.clone().recipient(),
    };
    if !quiet.check().await {
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
        Outcome::UpToDate => answer_or_post(ctx, "already up to date.".into()).await,
        Outcome::Failed(e) => {
            tracing::warn!(step = %e, output = %e.output, "update failed");
            answer_or_post(ctx, update::failure_text("update failed", &e)).await;
        }
        Outcome::Built(built) => {
            answer_or_post(ctx, built.announcement()).await;
            let _ = ctx
                .data()
                .leave
                .send(Leave::Restart("update installed".into()));
        }
    }
    Ok(())
}

/// Answers the command, or — when Discord no longer takes the answer (an interaction lasts 15
/// minutes, and a build can take longer) — posts it in the DM.
async fn answer_or_post(ctx: Ctx<'_>, text: String) {
    if let Err(e) = answer(ctx, text.clone()).await {
        tracing::info!(cause = %e, "the /update interaction expired; posting in the DM");
        ctx.data().outbox.do_send(Post(text));
    }
}
