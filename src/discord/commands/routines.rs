//! `/routines` *(ours, SPEC §16)*: each routine with its next fire time, last outcome and paused
//! state, and what runs and waits for a background slot — an embed per five routines, each
//! routine with a row of buttons, Run now and Pause (or Resume). The buttons carry persistent
//! `act:routine_…` custom ids, so they work after a restart (`inbound` routes their clicks).

use chrono::Utc;
use ollim_actors::routines_view::{self, Page};
use poise::CreateReply;
use serenity::all::{ButtonStyle, CreateActionRow, CreateButton, CreateEmbed};

use super::{answer, Ctx, Error};

/// Discord's blue, the colour of information.
const BLUE: u32 = 0x3498DB;

/// A page as Discord's builders.
fn reply(page: &Page) -> CreateReply {
    let mut embed = CreateEmbed::new()
        .title(&page.title)
        .description(&page.description)
        .colour(BLUE);
    for (name, value) in &page.fields {
        embed = embed.field(name, value, false);
    }
    let rows = page
        .rows
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
        .collect();
    CreateReply::default().embed(embed).components(rows)
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
        ctx.send(reply(&page)).await?;
    }
    Ok(())
}
