//! Reaching Discord: the REST client (through `OLLIM_DISCORD_PROXY` when set, with serenity's own
//! rate limiter off, since it would send its requests around the proxy), the owner lookup (the
//! first call) and the gateway's address (`GET /gateway`), both retried through a Discord outage
//! (5 s, 10 s, 20 s, 40 s, 80 s), and startup failures explained so a new user can fix them.

use std::future::Future;
use std::time::Duration;

use serenity::all::{GatewayIntents, Http, HttpBuilder, UserId};
use serenity::gateway::GatewayError;
use serenity::http::HttpError;

/// The gateway intents the bot needs: DMs, their reactions, and what they say.
pub fn intents() -> GatewayIntents {
    GatewayIntents::DIRECT_MESSAGES
        | GatewayIntents::DIRECT_MESSAGE_REACTIONS
        | GatewayIntents::MESSAGE_CONTENT
}

/// Why the Discord surface could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// `OLLIM_DISCORD_PROXY` is not a URL we can use.
    #[error("OLLIM_DISCORD_PROXY: {0:?} is not an http:// or https:// URL")]
    BadProxy(String),
    /// Discord said the token is wrong.
    #[error(
        "Discord rejected DISCORD_TOKEN. In the developer portal open your application → Bot → \
         Reset Token, copy the new token into DISCORD_TOKEN in .env, and start again."
    )]
    InvalidToken,
    /// The Message Content intent is not enabled for the application.
    #[error(
        "Discord refused the Message Content intent, so the bot could not read your DMs. In the \
         developer portal open your application → Bot → Privileged Gateway Intents, turn on \
         \"Message Content Intent\", save, and start again."
    )]
    MissingIntent,
    /// Discord names nobody who owns the application.
    #[error(
        "Discord reports no owner for this application, so there is nobody to serve. Create the \
         application under your own account (or a team you belong to) in the developer portal."
    )]
    NoOwner,
    /// Anything else between us and Discord.
    #[error("talking to Discord failed: {0}")]
    Discord(#[source] Box<serenity::Error>),
}

impl From<serenity::Error> for StartupError {
    fn from(e: serenity::Error) -> Self {
        match &e {
            serenity::Error::Http(HttpError::UnsuccessfulRequest(r))
                if r.status_code.as_u16() == 401 =>
            {
                StartupError::InvalidToken
            }
            serenity::Error::Gateway(GatewayError::InvalidAuthentication) => {
                StartupError::InvalidToken
            }
            serenity::Error::Gateway(
                GatewayError::DisallowedGatewayIntents | GatewayError::InvalidGatewayIntents,
            ) => StartupError::MissingIntent,
            _ => StartupError::Discord(Box::new(e)),
        }
    }
}

/// The REST client, sending everything to `proxy` when given.
pub fn http(token: &str, proxy: Option<&str>) -> Result<Http, StartupError> {
    let mut builder = HttpBuilder::new(token);
    if let Some(url) = proxy {
        let url = url.trim().trim_end_matches('/');
        if !(url.starts_with("http://") || url.starts_with("https://")) || url.len() < 10 {
            return Err(StartupError::BadProxy(url.to_owned()));
        }
        builder = builder.proxy(url).ratelimiter_disabled(true);
    }
    Ok(builder.build())
}

/// How many times a Discord outage at start is waited out.
const OUTAGE_RETRIES: u32 = 5;
/// The first wait; each later one doubles it.
const OUTAGE_FIRST_WAIT: Duration = Duration::from_secs(5);

/// The wait before retry `attempt` (from 1): 5 s, 10 s, 20 s, 40 s, 80 s.
fn outage_wait(attempt: u32) -> Duration {
    OUTAGE_FIRST_WAIT * 2u32.pow(attempt.saturating_sub(1))
}

/// The HTTP status of a Discord server error (5xx), for the outage retries.
fn server_error(e: &serenity::Error) -> Option<serenity::http::StatusCode> {
    match e {
        serenity::Error::Http(HttpError::UnsuccessfulRequest(r))
            if r.status_code.is_server_error() =>
        {
            Some(r.status_code)
        }
        _ => None,
    }
}

/// `call` until it answers, a Discord server error (an outage) waited out five times with
/// growing waits, each logged; the last error, or any other, is returned. `what` names the call
/// in the log.
async fn through_outage<T, F, Fut>(what: &str, mut call: F) -> Result<T, serenity::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, serenity::Error>>,
{
    let mut attempt = 0;
    loop {
        let e = match call().await {
            Ok(answer) => return Ok(answer),
            Err(e) => e,
        };
        match server_error(&e) {
            Some(status) if attempt < OUTAGE_RETRIES => {
                attempt += 1;
                let wait = outage_wait(attempt);
                tracing::warn!(
                    call = what,
                    "Discord API error ({status}) — retrying in {}s (attempt {attempt}/{OUTAGE_RETRIES})",
                    wait.as_secs()
                );
                tokio::time::sleep(wait).await;
            }
            Some(status) => {
                tracing::error!(
                    call = what,
                    "Discord API error ({status}) — giving up after {OUTAGE_RETRIES} retries. \
                     Check https://discordstatus.com for outages."
                );
                return Err(e);
            }
            None => return Err(e),
        }
    }
}

/// The gateway's address (`GET /gateway`), an outage waited out as for the owner lookup. Left to
/// serenity, a failed lookup falls back to Discord's public address, around a proxy and past
/// a passing 503.
pub async fn gateway_url(http: &Http) -> Result<String, StartupError> {
    let gateway = through_outage("GET /gateway", || http.get_gateway()).await?;
    Ok(gateway.url)
}

/// The application's owner (or its team's owner); this also proves the token works. Discord
/// answering with a server error (an outage) is retried five times with growing waits.
pub async fn owner(http: &Http) -> Result<UserId, StartupError> {
    let app = through_outage("the owner lookup", || http.get_current_application_info()).await?;
    if let Some(owner) = app.owner {
        return Ok(owner.id);
    }
    app.team
        .map(|t| t.owner_user_id)
        .ok_or(StartupError::NoOwner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_must_be_an_http_url() {
        assert!(matches!(
            http("t", Some("127.0.0.1:9")),
            Err(StartupError::BadProxy(_))
        ));
        assert!(http("t", Some("http://127.0.0.1:9/")).is_ok());
        assert!(http("t", None).is_ok());
    }

    #[test]
    fn outage_waits_double_from_five_seconds() {
        let waits: Vec<u64> = (1..=5).map(|a| outage_wait(a).as_secs()).collect();
        assert_eq!(waits, [5, 10, 20, 40, 80]);
    }

    #[test]
    fn gateway_refusals_become_actionable_errors() {
        let e: StartupError =
            serenity::Error::Gateway(GatewayError::DisallowedGatewayIntents).into();
        assert!(e.to_string().contains("Message Content Intent"));
        let e: StartupError = serenity::Error::Gateway(GatewayError::InvalidAuthentication).into();
        assert!(e.to_string().contains("Reset Token"));
    }
}
