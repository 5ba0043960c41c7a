//! `/dashboard` *(ours, SPEC §21)*: a one-time login link to the dashboard (works once, for ten
//! minutes), in angle brackets so Discord does not fetch a preview of it.

use super::{answer, Ctx, Error};

/// A one-time login link to the dashboard.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn dashboard(ctx: Ctx<'_>) -> Result<(), Error> {
    ctx.defer().await?;
    let reply = crate::dashboard::link_reply(ctx.data().dashboard.as_ref()).await;
    answer(ctx, unfurl_off(&reply)).await
}

/// The reply with its link in `<…>` (no preview).
fn unfurl_off(reply: &str) -> String {
    match reply.find("http://") {
        Some(at) => {
            let (text, link) = reply.split_at(at);
            format!("{text}<{link}>")
        }
        None => reply.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_link_is_kept_from_previews() {
        assert_eq!(
            super::unfurl_off("login: http://127.0.0.1:7312/login?token=a"),
            "login: <http://127.0.0.1:7312/login?token=a>"
        );
        assert_eq!(super::unfurl_off("off"), "off");
    }
}
