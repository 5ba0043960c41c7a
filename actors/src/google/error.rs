//! What can go wrong using Google, worded for the person (or agent) who reads it: what happened
//! and what to do next.

use super::{client_file, oauth, token_file};

/// A Google call that did not happen or did not succeed. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No grant: `/google-auth` has not been run (or the grant was removed).
    #[error("google is not connected: use /google-auth in the bot (Discord or console) to connect; it needs {credentials} (see docs/google.md)")]
    NotConnected {
        /// Where the client file goes.
        credentials: String,
    },
    /// The grant has no refresh token and its access token has expired.
    #[error("google's access has expired and cannot be renewed (token.json has no refresh token); use /google-auth to reconnect")]
    CannotRefresh,
    /// `invalid_grant` on refresh: the grant is gone; `token.json` was removed.
    #[error("google access was revoked or has expired (invalid_grant{detail}); token.json was removed; use /google-auth to reconnect")]
    Revoked {
        /// Google's description, with its separator, or nothing.
        detail: String,
    },
    /// `token.json` is unreadable.
    #[error(transparent)]
    Token(#[from] token_file::Error),
    /// `credentials.json` is unreadable.
    #[error(transparent)]
    ClientFile(#[from] client_file::Error),
    /// Refreshing the access token failed (not `invalid_grant`).
    #[error("refreshing google's access token failed: {0}")]
    Refresh(oauth::Error),
    /// Google answered with an error: said in plain words by its status ([`plain`]); Google's
    /// own message is logged where the call was made.
    #[error("{}", plain(*.status, .message))]
    Api {
        /// The HTTP status.
        status: u16,
        /// Google's message (`error.message`).
        message: String,
    },
    /// Google could not be reached.
    #[error("could not reach Google ({url}): {cause}")]
    Network {
        /// The URL called (no query).
        url: String,
        /// Why.
        cause: String,
    },
    /// Google's answer did not have the expected shape.
    #[error("Google's answer from {url} did not parse: {cause}")]
    BadAnswer {
        /// The URL called (no query).
        url: String,
        /// Why.
        cause: String,
    },
    /// An argument cannot be sent (a bad date, an empty title).
    #[error("{0}")]
    Input(String),
}

/// What Google's answer `status` (with its `message`) means for the owner or the agent reading
/// it, and what to do: the HTTP status and Google's wording are machinery. Statuses without
/// their own advice (a 400, say) pass Google's message on, since it names what was wrong.
pub fn plain(status: u16, message: &str) -> String {
    let lower = message.to_lowercase();
    let limited = lower.contains("rate limit") || lower.contains("quota");
    match status {
        401 => "google no longer accepts this connection (it was signed out or revoked) — \
                use /google-auth to reconnect"
            .to_owned(),
        403 if limited => BUSY.to_owned(),
        403 if lower.contains("scope") => "google's connection was made without a permission \
             this needs — delete state/token.json and use /google-auth to reconnect, allowing \
             everything it asks for"
            .to_owned(),
        403 => "google refused: the connected account can't do this (no access to that calendar, \
                list or message, or the API is off in its Google Cloud project) — check it's the \
                right account, or use /google-auth to reconnect"
            .to_owned(),
        404 => "google has no such item: it was deleted, or the id is wrong or from another \
                calendar or list — list them again for the current ids"
            .to_owned(),
        408 | 429 => BUSY.to_owned(),
        500..=599 => "google is having trouble right now (a failure on its side) — nothing was \
                      changed; try again in a few minutes"
            .to_owned(),
        _ if message.trim().is_empty() => format!("google refused the request (status {status})"),
        _ => format!("google refused the request: {message}"),
    }
}

/// Google is limiting how fast it is asked.
const BUSY: &str = "google is limiting requests right now — try again in a minute";

impl Error {
    /// The short reason for a button's "failed: <reason>".
    pub fn reason(&self) -> String {
        self.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_said_in_plain_words_without_http() {
        for (status, message, says) in [
            (401, "Invalid Credentials", "/google-auth"),
            (
                403,
                "Request had insufficient authentication scopes.",
                "token.json",
            ),
            (403, "Rate Limit Exceeded", "try again in a minute"),
            (403, "The caller does not have permission", "right account"),
            (404, "Requested entity was not found.", "no such item"),
            (
                429,
                "Quota exceeded for quota metric 'Queries'.",
                "try again in a minute",
            ),
            (503, "", "try again in a few minutes"),
            (
                400,
                "Invalid value for: Invalid format",
                "Invalid value for",
            ),
        ] {
            let text = plain(status, message);
            assert!(text.contains(says), "{status}: {text}");
            assert!(!text.contains("HTTP"), "{status}: {text}");
            let api = Error::Api {
                status,
                message: message.into(),
            };
            assert_eq!(api.to_string(), text);
            assert_eq!(api.reason(), text);
        }
        assert!(!plain(404, "Requested entity was not found.").contains("Requested entity"));
    }
}
