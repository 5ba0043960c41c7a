//! `/usage [days]` *(ours, SPEC §19)*: what the assistant cost today, over 7 and 30 days (or
//! today and `days`), the conversation against the jobs, the most expensive jobs, and tokens;
//! the same figures as the console and `ollim-bot usage`.

use ollim_actors::records::usage::render::{self, JobList};
use ollim_actors::records::usage::GetReport;

use super::{answer, Ctx, Error};

/// What the assistant cost.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn usage(
    ctx: Ctx<'_>,
    #[description = "Days to add up besides today (1-400; default 7 and 30)"]
    #[min = 1]
    #[max = 400]
    days: Option<u32>,
) -> Result<(), Error> {
    let text = match ctx.data().handles.usage_log.send(GetReport { days }).await {
        Ok(Ok(report)) => render::text(&report, JobList::Top(render::TOP_JOBS)),
        Ok(Err(e)) => format!("could not add up the usage: {e}"),
        Err(e) => format!("the usage log did not answer: {e}"),
    };
    // Whole lines per message, each within Discord's limit (long job names make it longer).
    let mut message = String::new();
    for line in text.lines() {
        if !message.is_empty() && message.chars().count() + line.chars().count() + 1 > MAX_CHARS {
            answer(ctx, std::mem::take(&mut message)).await?;
        }
        if !message.is_empty() {
            message.push('\n');
        }
        message.push_str(line);
    }
    answer(ctx, message).await
}

/// Discord's limit on a message's length.
const MAX_CHARS: usize = crate::discord::stream::MAX_MESSAGE_CHARS;
