//! `/ping-budget [capacity] [refill_rate]` (SPEC §7, §12): shows the budget and *(ours)* the
//! quiet hours, or sets either number, with the budget's own wording.

use ollim_actors::conversation::main_session::QuietHoursNow;
use ollim_actors::records::ping_budget::{Configure, FullStatus};

use super::{answer, Ctx, Error};

/// Show or set the ping budget.
#[poise::command(slash_command, rename = "ping-budget", check = "super::authorized")]
pub async fn ping_budget(
    ctx: Ctx<'_>,
    #[description = "How many pings the budget holds"] capacity: Option<u32>,
    #[description = "Minutes for one ping to come back"] refill_rate: Option<u32>,
) -> Result<(), Error> {
    let budget = &ctx.data().handles.ping_budget;
    let reply = if capacity.is_none() && refill_rate.is_none() {
        match budget.send(FullStatus).await {
            Ok(status) => {
                let quiet = match ctx.data().main.send(QuietHoursNow).await {
                    Ok(quiet) => quiet.status_line(),
                    Err(e) => format!("quiet hours: the conversation did not answer ({e})"),
                };
                Ok(format!("{status}\n{quiet}"))
            }
            Err(e) => Err(anyhow::Error::from(e)),
        }
    } else {
        budget
            .send(Configure {
                capacity,
                refill_rate,
            })
            .await
            .map(|outcome| outcome.to_string())
            .map_err(anyhow::Error::from)
    };
    let text = reply.unwrap_or_else(|e| format!("the ping budget did not answer: {e}"));
    answer(ctx, text).await
}
