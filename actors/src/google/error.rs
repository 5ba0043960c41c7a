//! What can go wrong using Google, worded for the person (or agent) who reads it: what happened
//! and what to do next.

use super::{client_file, oauth, token_file};

/// A Google call that did not happen or did not succeed. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No grant: `/google-auth` has not been run (or the grant was removed).
    #[error("google is not connected: use /google-auth in the bot (Discord or console) to connect; it needs {credentials} (see the README's \"Connecting Google\")")]
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
    /// Google answered with an error.
    #[error("{message} (HTTP {status}{hint})", hint = busy_hint(.status))]
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

/// What to add to a status that means "not now".
fn busy_hint(status: &u16) -> &'static str {
    if *status == 429 || *status >= 500 {
        "; Google is busy or failing — try again in a minute"
    } else {
        ""
    }
}

impl Error {
    /// The short reason for a button's "failed: <reason>": Google's own message for API errors.
    pub fn reason(&self) -> String {
        match self {
            Error::Api { message, .. } => message.clone(),
            other => other.to_string(),
        }
    }
}
