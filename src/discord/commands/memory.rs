//! `/memory` (SPEC §18): the size and last change of `context.md`, the assistant's memory, with
//! an Undo button for that change. The button carries the change's hash
//! (`act:memory_undo:<hash>`), so it works after a restart and undoes only the change it was
//! shown with: pressed after a newer change, it says so and changes nothing ([`press`]).

use ollim_actors::agent::memory::status::{status, undo_answer};
use ollim_actors::agent::memory::versions::{self, undo_button_id};
use ollim_actors::base::data_dir::DataDir;
use poise::CreateReply;
use serenity::all::{ButtonStyle, CreateActionRow, CreateButton};

use super::{Ctx, Error};

/// The assistant's memory: its size and last change, with Undo.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn memory(ctx: Ctx<'_>) -> Result<(), Error> {
    ctx.defer().await?;
    let data = ctx.data().data_dir.clone();
    let tz = ctx.data().tz;
    let now = tokio::task::spawn_blocking(move || status(&data)).await?;
    let mut reply = CreateReply::default().content(now.describe(tz));
    if let Some(change) = &now.last {
        reply = reply.components(vec![CreateActionRow::Buttons(vec![CreateButton::new(
            undo_button_id(change),
        )
        .label("Undo")
        .style(ButtonStyle::Secondary)])]);
    }
    ctx.send(reply).await?;
    Ok(())
}

/// The answer to an Undo button naming `change`.
pub async fn press(data: &DataDir, change: &str) -> String {
    let data = data.clone();
    let change = change.to_owned();
    tokio::task::spawn_blocking(move || undo_answer(&versions::undo_if_last(&data, Some(&change))))
        .await
        .unwrap_or_else(|e| format!("nothing undone: {e}"))
}
