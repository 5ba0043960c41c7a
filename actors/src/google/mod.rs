//! Google Tasks, Calendar and Gmail through one OAuth (SPEC §15).
//!
//! | module | what it owns |
//! | --- | --- |
//! | [`client_file`] | `state/credentials.json`, Google's installed-app client file |
//! | [`token_file`] | `state/token.json` in the original's format, read and written byte-compatibly |
//! | [`oauth`] | the OAuth 2.0 client (the `oauth2` crate): consent URL with state and PKCE, code exchange, refresh |
//! | [`access`] | a fresh access token before a call: refresh, atomic rewrite, `invalid_grant` handling |
//! | [`rest`] | authorised JSON calls under `OLLIM_GOOGLE_API_BASE`, Google's errors made readable |
//! | [`tasks`], [`calendar`], [`gmail`] | the three APIs and their output lines (the agent reads them) |
//! | [`calendars`] | the account's calendars, and several calendars' events merged and tagged |
//! | [`consent`] | one `/google-auth` flow: the loopback listener, the pasted redirect, the 5-minute limit |
//! | [`account`] | the `GoogleAccount` actor: runs the flow, presses the Google buttons, asks before deleting, reports a revoked grant |
//! | [`confirm`] | the Delete / Keep question before a task or event is deleted (SPEC §20) |
//!
//! The command line (`ollim-bot tasks|cal|gmail`, run by the agent in its own process) and the
//! running bot share the token file; whichever process meets `invalid_grant` removes
//! `token.json` and leaves the `google_auth_revoked` marker, and the bot's [`account`] actor
//! turns the marker into one notice for the owner.

pub mod access;
pub mod account;
pub mod calendar;
pub mod calendars;
mod click;
pub mod client_file;
pub mod confirm;
pub mod consent;
mod error;
pub mod gmail;
mod gmail_body;
pub mod oauth;
pub mod rest;
pub mod tasks;
pub mod token_file;

use std::path::{Path, PathBuf};

use crate::base::data_dir::DataDir;

pub use crate::base::settings::{ApiBase, API_BASE_VARIABLE, DEFAULT_API_BASE};
pub use access::Api;
pub use account::GoogleAccount;
pub use error::Error;

/// The scopes asked for: the original's three, in its order, then the read-only calendar list
/// that `cal calendars` needs (a grant made without it keeps working for everything else; its
/// refresh asks only for what it was granted).
pub const SCOPES: [&str; 4] = [
    "https://www.googleapis.com/auth/tasks",
    "https://www.googleapis.com/auth/calendar.events",
    "https://www.googleapis.com/auth/gmail.readonly",
    "https://www.googleapis.com/auth/calendar.calendarlist.readonly",
];

/// Told to the owner once after a grant was revoked (SPEC §15).
pub const REVOKED_NOTICE: &str = "-# google auth revoked — use /google-auth to reconnect.";

/// The Google files in the data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// `state/credentials.json`: the OAuth client.
    pub credentials: PathBuf,
    /// `state/token.json`: the user's grant.
    pub token: PathBuf,
    /// `state/google_auth_revoked`: left when a grant turned out revoked.
    pub revoked_marker: PathBuf,
    /// `state/config.json`: the runtime config, whose `google_calendars` and
    /// `google_task_list` say where Google commands and buttons go.
    pub config: PathBuf,
}

impl Paths {
    /// The files in `data`'s `state/`.
    pub fn in_data_dir(data: &DataDir) -> Self {
        Paths {
            credentials: data.state_file("credentials.json"),
            token: data.state_file("token.json"),
            revoked_marker: data.state_file("google_auth_revoked"),
            config: data.state_file(crate::records::runtime_config::FILE_NAME),
        }
    }
}

/// The sentence for a missing client file: how to make one, step by step.
pub fn how_to_create_client_file(path: &Path) -> String {
    format!(
        "google credentials not found at `{}`.\n\
         to connect google: in the Google Cloud console (https://console.cloud.google.com/) create a \
         project, enable the Google Tasks, Google Calendar and Gmail APIs, then under APIs & Services → \
         Credentials create an OAuth client ID of type \"Desktop app\", download its JSON and save it \
         as `{}`. then run /google-auth again.",
        path.display(),
        path.display()
    )
}

/// Whether Google is connected, as far as the files tell without the network (for `doctor`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    /// No `credentials.json`: Google was never set up.
    NoClientFile,
    /// A client file but no usable grant: `/google-auth` connects.
    NotConnected,
    /// A grant is there.
    Connected {
        /// The access token has expired (or is about to): the next call refreshes it.
        expired: bool,
        /// A refresh token and the client's id and secret are there, so it can be refreshed.
        refreshable: bool,
    },
    /// A file is there but unreadable; the text says which and why.
    Broken(String),
}

/// Reads the files to say whether Google is connected; never touches the network or writes.
/// [`access::check_refresh`] goes further and proves the grant with Google.
pub fn connection(data: &DataDir, now: chrono::DateTime<chrono::Utc>) -> Connection {
    let paths = Paths::in_data_dir(data);
    match token_file::Token::read(&paths.token) {
        Ok(Some(token)) => Connection::Connected {
            expired: token.needs_refresh(now),
            refreshable: token.can_refresh(),
        },
        Err(e) => Connection::Broken(e.to_string()),
        Ok(None) => match client_file::ClientFile::read(&paths.credentials) {
            Ok(Some(_)) => Connection::NotConnected,
            Ok(None) => Connection::NoClientFile,
            Err(e) => Connection::Broken(e.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_base_defaults_to_google_and_appends_encoded_segments() {
        let base = ApiBase::default();
        assert_eq!(
            base.url(&["tasks", "v1", "lists", "@default", "tasks", "a/../b"])
                .as_str(),
            "https://www.googleapis.com/tasks/v1/lists/@default/tasks/a%2F..%2Fb"
        );
        let proxied = ApiBase::parse("http://127.0.0.1:9/google/").unwrap();
        assert_eq!(
            proxied.url(&["gmail", "v1"]).as_str(),
            "http://127.0.0.1:9/google/gmail/v1"
        );
    }

    #[test]
    fn only_a_plain_http_base_parses() {
        assert!(ApiBase::parse("ftp://x").is_err());
        assert!(ApiBase::parse("not a url").is_err());
        assert!(ApiBase::parse("http://h/?q=1").is_err());
    }

    #[test]
    fn connection_reads_the_files_only() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let now = chrono::Utc::now();
        assert_eq!(connection(&data, now), Connection::NoClientFile);
        std::fs::create_dir_all(data.state()).unwrap();
        std::fs::write(data.state_file("credentials.json"), "{nope").unwrap();
        assert!(matches!(connection(&data, now), Connection::Broken(_)));
        std::fs::write(
            data.state_file("credentials.json"),
            r#"{"installed":{"client_id":"c","client_secret":"s","auth_uri":"https://a","token_uri":"https://t"}}"#,
        )
        .unwrap();
        assert_eq!(connection(&data, now), Connection::NotConnected);
        std::fs::write(
            data.state_file("token.json"),
            r#"{"token": "a", "refresh_token": "r", "token_uri": "https://t", "client_id": "c", "client_secret": "s", "scopes": [], "expiry": "2000-01-01T00:00:00Z"}"#,
        )
        .unwrap();
        assert_eq!(
            connection(&data, now),
            Connection::Connected {
                expired: true,
                refreshable: true
            }
        );
    }
}
