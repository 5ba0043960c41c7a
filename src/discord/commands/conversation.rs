//! Commands that talk to the conversation (SPEC §12): `/clear`, `/compact [instructions]`,
//! `/cost`, `/fork [topic]`, `/model`, `/thinking`, `/interrupt`, `/permissions`, `/config`.
//! Each is deferred first (a conversation busy answering may take a moment) and answered with
//! what the conversation says.

use ollim_actors::main_session::Command;

use super::{answer, Ctx, Error};

async fn run(ctx: Ctx<'_>, command: Command) -> Result<(), Error> {
    ctx.defer().await?;
    let reply = ctx
        .data()
        .main
        .send(command)
        .await
        .unwrap_or_else(|e| format!("the conversation did not answer: {e}"));
    answer(ctx, reply).await
}

/// Drop the conversation and start fresh.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn clear(ctx: Ctx<'_>) -> Result<(), Error> {
    run(ctx, Command::Clear).await
}

/// Compact the conversation.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn compact(
    ctx: Ctx<'_>,
    #[description = "What to keep or focus on"] instructions: Option<String>,
) -> Result<(), Error> {
    run(ctx, Command::Compact(instructions)).await
}

/// What this run has cost so far.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn cost(ctx: Ctx<'_>) -> Result<(), Error> {
    run(ctx, Command::Cost).await
}

/// Branch the conversation into an interactive fork.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn fork(
    ctx: Ctx<'_>,
    #[description = "What the fork is about"] topic: Option<String>,
) -> Result<(), Error> {
    run(ctx, Command::Fork(topic)).await
}

/// Switch the model.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn model(
    ctx: Ctx<'_>,
    #[description = "The model"]
    #[choices("opus", "sonnet", "haiku")]
    name: &'static str,
) -> Result<(), Error> {
    run(ctx, Command::Model(name.to_owned())).await
}

/// Switch extended thinking.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn thinking(
    ctx: Ctx<'_>,
    #[description = "off, adaptive, or a token budget"]
    #[choices("off", "adaptive", "8000", "32000", "64000")]
    mode: &'static str,
) -> Result<(), Error> {
    run(ctx, Command::Thinking(mode.to_owned())).await
}

/// Stop the answer in progress.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn interrupt(ctx: Ctx<'_>) -> Result<(), Error> {
    run(ctx, Command::Interrupt).await
}

/// Switch the permission mode (inside a fork: that fork only).
#[poise::command(slash_command, check = "super::authorized")]
pub async fn permissions(
    ctx: Ctx<'_>,
    #[description = "The mode"]
    #[choices("dontAsk", "default", "acceptEdits", "bypassPermissions")]
    mode: &'static str,
) -> Result<(), Error> {
    run(ctx, Command::Permissions(mode.to_owned())).await
}

/// Show every setting, one setting, or change one.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn config(
    ctx: Ctx<'_>,
    #[description = "model.main, model.fork, thinking.main, bg_fork_timeout, ..."] key: Option<
        String,
    >,
    #[description = "The new value"] value: Option<String>,
) -> Result<(), Error> {
    run(ctx, Command::Config { key, value }).await
}
