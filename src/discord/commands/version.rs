//! `/version` (SPEC §16, §17): the bot's release, `ollim-bot v0.2.0` or
//! `ollim-bot v0.1.0+dev (abc1234)`.

use super::{answer, Ctx, Error};

/// What is running: ollim-bot's release.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn version(ctx: Ctx<'_>) -> Result<(), Error> {
    ctx.defer().await?;
    answer(ctx, crate::version::release().to_owned()).await
}
