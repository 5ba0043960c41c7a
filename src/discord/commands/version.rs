//! `/version` (SPEC §16): the bot's version and commit, and the claude CLI's version.

use super::{answer, Ctx, Error};

/// What is running: ollim-bot's version and commit, the claude CLI's version.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn version(ctx: Ctx<'_>) -> Result<(), Error> {
    ctx.defer().await?;
    answer(ctx, crate::version::report_async().await).await
}
