//! Commands that talk to the conversation (SPEC §12): `/clear`, `/compact [instructions]`,
//! `/cost`, `/fork [topic]`, `/model`, `/thinking`, `/interrupt`, `/permissions`, `/config`.
//! Each is deferred first (a conversation busy answering may take a moment) and answered with
//! what the conversation says.

use ollim_actors::main_session::Command;
use poise::ChoiceParameter;

use super::{answer, Ctx, Error};

/// `/model`'s choices.
#[derive(Debug, Clone, Copy, ChoiceParameter)]
pub enum ModelName {
    /// Opus.
    #[name = "opus"]
    Opus,
    /// Sonnet.
    #[name = "sonnet"]
    Sonnet,
    /// Haiku.
    #[name = "haiku"]
    Haiku,
}

/// `/thinking`'s choices.
#[derive(Debug, Clone, Copy, ChoiceParameter)]
pub enum ThinkingMode {
    /// No extended thinking.
    #[name = "off"]
    Off,
    /// The model decides.
    #[name = "adaptive"]
    Adaptive,
    /// 8,000 tokens.
    #[name = "8000"]
    Budget8k,
    /// 32,000 tokens.
    #[name = "32000"]
    Budget32k,
    /// 64,000 tokens.
    #[name = "64000"]
    Budget64k,
}

/// `/permissions`' choices.
#[derive(Debug, Clone, Copy, ChoiceParameter)]
pub enum PermissionMode {
    /// Deny what is not allowed, silently.
    #[name = "dontAsk"]
    DontAsk,
    /// Ask in the DM.
    #[name = "default"]
    Default,
    /// Allow file edits.
    #[name = "acceptEdits"]
    AcceptEdits,
    /// Allow everything.
    #[name = "bypassPermissions"]
    BypassPermissions,
}

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

/// Show or switch the model.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn model(
    ctx: Ctx<'_>,
    #[description = "The model (leave out to see the one in use)"] name: Option<ModelName>,
) -> Result<(), Error> {
    run(ctx, Command::Model(name.map(|n| n.name().to_owned()))).await
}

/// Show or switch extended thinking.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn thinking(
    ctx: Ctx<'_>,
    #[description = "off, adaptive, or a token budget (leave out to see the setting)"] mode: Option<
        ThinkingMode,
    >,
) -> Result<(), Error> {
    run(ctx, Command::Thinking(mode.map(|m| m.name().to_owned()))).await
}

/// Stop the answer in progress.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn interrupt(ctx: Ctx<'_>) -> Result<(), Error> {
    run(ctx, Command::Interrupt).await
}

/// Show or switch the permission mode (inside a fork: that fork only).
#[poise::command(slash_command, check = "super::authorized")]
pub async fn permissions(
    ctx: Ctx<'_>,
    #[description = "The mode (leave out to see the one in force)"] mode: Option<PermissionMode>,
) -> Result<(), Error> {
    run(ctx, Command::Permissions(mode.map(|m| m.name().to_owned()))).await
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
