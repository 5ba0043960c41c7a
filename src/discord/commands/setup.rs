//! `/setup` (SPEC §17) and the first greeting's "Get started — 3 questions" button: both say
//! the setup prompt in the conversation, which leads the owner through it.

use ollim_actors::bot::onboarding::{setup_prompt, SetupNames, SETUP_STARTED};
use ollim_actors::conversation::main_session::Say;

use super::{answer, Ctx, Error};
use crate::discord::data::Data;

/// Starts setup in the conversation; what to tell the owner.
pub async fn start(data: &Data) -> String {
    let text = setup_prompt(
        &data.data_dir,
        SetupNames {
            user: &data.names.user,
            bot: &data.names.bot,
        },
        chrono::Utc::now(),
    );
    match data
        .main
        .send(Say {
            text,
            images: Vec::new(),
        })
        .await
    {
        Ok(()) => SETUP_STARTED.to_owned(),
        Err(e) => {
            tracing::warn!(cause = %e, "the conversation did not take the setup prompt");
            "-# couldn't reach the conversation — try again.".to_owned()
        }
    }
}

/// Guided setup: names, personality, what the assistant should know about you.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn setup(ctx: Ctx<'_>) -> Result<(), Error> {
    ctx.defer().await?;
    let reply = start(ctx.data()).await;
    answer(ctx, reply).await
}
