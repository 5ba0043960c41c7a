//! `/routines` *(ours, SPEC §16)*: each routine with its next fire time, last outcome and paused
//! state, and what runs and waits for a background slot — an embed per five routines, each
//! routine with a row of buttons, Run now and Pause (or Resume). The buttons carry persistent
//! `act:routine_…` custom ids, so they work after a restart (`inbound` routes their clicks, and
//! [`redraw`] then shows the clicked message as it is now: Resume after Pause, and so on).

use chrono::Utc;
use ollim_actors::jobs::JobId;
use ollim_actors::scheduling::routines_view::{self, Page};
use poise::CreateReply;
use serenity::all::{
    ButtonStyle, ComponentInteraction, Context, CreateActionRow, CreateButton, CreateEmbed,
    EditInteractionResponse,
};

use super::{answer, Ctx, Data, Error};

/// Discord's blue, the colour of information.
const BLUE: u32 = 0x3498DB;

/// A page's embed.
fn embed(page: &Page) -> CreateEmbed {
    let mut embed = CreateEmbed::new()
        .title(&page.title)
        .description(&page.description)
        .colour(BLUE);
    for (name, value) in &page.fields {
        embed = embed.field(name, value, false);
    }
    embed
}

/// A page's rows of buttons.
fn rows(page: &Page) -> Vec<CreateActionRow> {
    page.rows
        .iter()
        .map(|row| {
            CreateActionRow::Buttons(
                row.iter()
                    .map(|b| {
                        let style = if b.primary {
                            ButtonStyle::Primary
                        } else {
                            ButtonStyle::Secondary
                        };
                        CreateButton::new(&b.custom_id).label(&b.label).style(style)
                    })
                    .collect(),
            )
        })
        .collect()
}

/// Redraws the `/routines` message whose button for `routine` was clicked (the click already
/// acknowledged as a deferred update) with the page that now holds that routine. A routine no
/// longer listed leaves the message as it was; a failure is logged, the click's answer stands.
pub async fn redraw(ctx: &Context, click: &ComponentInteraction, data: &Data, routine: &JobId) {
    let h = &data.handles;
    let board =
        match routines_view::gather(&h.scheduler, &h.run_log, &h.job_runner, Utc::now()).await {
            Ok(board) => board,
            Err(e) => {
                tracing::warn!(cause = %e, "could not redraw /routines after a click");
                return;
            }
        };
    let Some(page) = board
        .pages(data.tz)
        .into_iter()
        .find(|p| p.routines.contains(routine))
    else {
        return;
    };
    let edit = EditInteractionResponse::new()
        .embed(embed(&page))
        .components(rows(&page));
    if let Err(e) = click.edit_response(&ctx.http, edit).await {
        tracing::warn!(cause = %e, "could not redraw /routines after a click");
    }
}

/// Your routines: next fire, last outcome, paused; run one now, pause or resume it.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn routines(ctx: Ctx<'_>) -> Result<(), Error> {
    ctx.defer().await?;
    let h = &ctx.data().handles;
    let board =
        match routines_view::gather(&h.scheduler, &h.run_log, &h.job_runner, Utc::now()).await {
            Ok(board) => board,
            Err(e) => return answer(ctx, format!("/routines failed: {e}")).await,
        };
    for page in board.pages(ctx.data().tz) {
        let reply = CreateReply::default()
            .embed(embed(&page))
            .components(rows(&page));
        ctx.send(reply).await?;
    }
    Ok(())
}
