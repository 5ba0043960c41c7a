//! Commands that talk to the conversation (SPEC §12): `/clear`, `/compact [instructions]`,
//! `/cost`, `/fork [topic]`, `/model`, `/thinking`, `/interrupt`, `/permissions`, `/config`.
//! Each is deferred first (a conversation busy answering may take a moment) and answered with
//! what the conversation says.

use ollim_actors::conversation::main_session::Command;
use ollim_actors::records::runtime_config::Key;
use poise::serenity_prelude as serenity;
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

/// `/permissions`' choices, labelled in plain words (the labels are
/// [`ollim_actors::agent::permissions::modes::choice_label`]'s; Discord sends the choice's place, mapped back by
/// [`PermissionMode::cli_name`]).
#[derive(Debug, Clone, Copy, ChoiceParameter)]
pub enum PermissionMode {
    /// Deny what is not allowed, silently.
    #[name = "don't ask — tools that aren't allowed are refused without asking"]
    DontAsk,
    /// Ask in the DM.
    #[name = "ask first — you're asked before a tool that isn't allowed runs"]
    Default,
    /// Allow file edits.
    #[name = "allow file edits — file edits inside the data directory run, other tools are asked about"]
    AcceptEdits,
    /// Allow everything.
    #[name = "allow everything — every tool runs without asking"]
    BypassPermissions,
}

impl PermissionMode {
    /// The mode as the conversation reads it.
    fn cli_name(self) -> &'static str {
        match self {
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::BypassPermissions => "bypassPermissions",
        }
    }
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

// Silent, as in the original: the deferred answer is deleted (the stopped answer shows what
// happened).
/// Stop the answer in progress.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn interrupt(ctx: Ctx<'_>) -> Result<(), Error> {
    ctx.defer().await?;
    match ctx.data().main.send(Command::Interrupt).await {
        Ok(said) => tracing::debug!(%said, "/interrupt"),
        Err(e) => return answer(ctx, format!("the conversation did not answer: {e}")).await,
    }
    if let poise::Context::Application(app) = ctx {
        app.interaction.delete_response(ctx.http()).await?;
    }
    Ok(())
}

/// Show or switch the permission mode (inside a fork: that fork only).
#[poise::command(slash_command, check = "super::authorized")]
pub async fn permissions(
    ctx: Ctx<'_>,
    #[description = "The mode (leave out to see the one in force)"] mode: Option<PermissionMode>,
) -> Result<(), Error> {
    run(
        ctx,
        Command::Permissions(mode.map(|m| m.cli_name().to_owned())),
    )
    .await
}

/// Show every setting, one setting, or change one.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn config(
    ctx: Ctx<'_>,
    #[description = "The setting (leave out to see them all)"] key: Option<u32>,
    #[description = "The new value"]
    #[autocomplete = "config_values"]
    value: Option<String>,
) -> Result<(), Error> {
    // The key is a choice: Discord sends its place in `Key::ALL`.
    let key = match key.map(|i| Key::ALL.get(i as usize)) {
        None => None,
        Some(Some(key)) => Some(key.name().to_owned()),
        Some(None) => return answer(ctx, "unknown config key.").await,
    };
    run(ctx, Command::Config { key, value }).await
}

/// `/config`'s `value` while it is typed: the chosen key's values ([`Key::value_choices`],
/// the default marked "(default)") that start with what is typed, or what is typed itself
/// when none does; nothing before a key is chosen.
async fn config_values(ctx: Ctx<'_>, partial: &str) -> Vec<serenity::AutocompleteChoice> {
    let Some(key) = chosen_key(ctx) else {
        return Vec::new();
    };
    let typed = partial.trim();
    let lower = typed.to_ascii_lowercase();
    let mut offers: Vec<serenity::AutocompleteChoice> = key
        .value_choices()
        .into_iter()
        .filter(|c| c.value.to_ascii_lowercase().starts_with(&lower))
        .map(|c| serenity::AutocompleteChoice::new(c.label(), c.value))
        .collect();
    if !typed.is_empty() && offers.is_empty() {
        offers.insert(0, serenity::AutocompleteChoice::new(typed, typed));
    }
    offers.truncate(25);
    offers
}

/// The key already chosen in the `/config` being typed (its place in [`Key::ALL`]).
fn chosen_key(ctx: Ctx<'_>) -> Option<Key> {
    let poise::Context::Application(app) = ctx else {
        return None;
    };
    let option = app
        .interaction
        .data
        .options
        .iter()
        .find(|o| o.name == "key")?;
    match &option.value {
        serenity::CommandDataOptionValue::Integer(i) => usize::try_from(*i)
            .ok()
            .and_then(|i| Key::ALL.get(i).copied()),
        serenity::CommandDataOptionValue::String(name) => Key::from_name(name),
        _ => None,
    }
}

/// `/config`, its `key` a choice list of every setting (built from [`Key::ALL`], so a new
/// setting is offered without touching this file).
pub fn config_command() -> poise::Command<super::Data, Error> {
    let mut command = config();
    if let Some(key) = command.parameters.iter_mut().find(|p| p.name == "key") {
        key.choices = Key::ALL
            .iter()
            .map(|k| poise::CommandParameterChoice {
                name: k.name().to_owned(),
                localizations: Default::default(),
                __non_exhaustive: (),
            })
            .collect();
    }
    command
}

#[cfg(test)]
mod tests {
    use ollim_actors::agent::permissions::modes;

    use super::*;

    #[test]
    fn permission_choices_are_the_plain_labels_and_map_back_to_the_modes() {
        let choices = [
            PermissionMode::DontAsk,
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::BypassPermissions,
        ];
        for (choice, mode) in choices.into_iter().zip(modes::OFFERED) {
            assert_eq!(choice.name(), modes::choice_label(mode));
            assert_eq!(modes::parse(choice.cli_name()), Some(mode));
        }
    }
}
