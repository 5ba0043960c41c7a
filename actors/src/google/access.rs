//! A fresh access token before every call (SPEC §15). The token file is read each time (another
//! process — the agent's `ollim-bot tasks …`, or the bot — may have refreshed it); an expired
//! access token is refreshed and the file rewritten atomically; `invalid_grant` removes
//! `token.json` and leaves the `google_auth_revoked` marker for the bot to tell the owner.
//!
//! The token endpoint comes from `credentials.json` (the client the user set up); when that file
//! is absent, from the token file's own `token_uri`.

use std::io;

use chrono::{DateTime, Utc};

use super::client_file::ClientFile;
use super::error::Error;
use super::oauth;
use super::rest::{self, Rest};
use super::token_file::Token;
use super::{ApiBase, Paths};
use crate::base::state_file;

/// Google for one data directory: its files, the REST base, one HTTP client.
#[derive(Clone)]
pub struct Api {
    paths: Paths,
    base: ApiBase,
    http: reqwest::Client,
}

impl Api {
    /// Google through the files in `paths`, calling REST under `base`.
    pub fn new(paths: Paths, base: ApiBase) -> Result<Self, Error> {
        Ok(Api {
            paths,
            base,
            http: rest::http_client()?,
        })
    }

    /// The files.
    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The HTTP client (shared with the consent flow's code exchange).
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// REST calls with an access token valid at `now`, refreshing it first when needed.
    pub async fn rest(&self, now: DateTime<Utc>) -> Result<Rest, Error> {
        let token = self.fresh_token(now, false).await?;
        Ok(Rest::new(self.http.clone(), self.base.clone(), token))
    }

    /// Proves the grant with Google: refreshes it now whatever its expiry (for `doctor`).
    pub async fn check_refresh(&self, now: DateTime<Utc>) -> Result<(), Error> {
        self.fresh_token(now, true).await.map(drop)
    }

    /// A grant from the file, refreshed when it has expired (or when `force`).
    async fn fresh_token(&self, now: DateTime<Utc>, force: bool) -> Result<String, Error> {
        let Some(token) = Token::read(&self.paths.token)? else {
            return Err(Error::NotConnected {
                credentials: self.paths.credentials.display().to_string(),
            });
        };
        if !force && !token.needs_refresh(now) {
            if let Some(access) = token.token.clone() {
                return Ok(access);
            }
        }
        if !token.can_refresh() {
            return Err(Error::CannotRefresh);
        }
        let token_uri = match ClientFile::read(&self.paths.credentials)? {
            Some(client) => client.token_uri,
            None => token.token_uri.clone().ok_or(Error::CannotRefresh)?,
        };
        match oauth::refresh(&self.http, &token, &token_uri, now).await {
            Ok(fresh) => {
                fresh.write(&self.paths.token)?;
                tracing::info!("refreshed google's access token");
                fresh.token.ok_or_else(|| {
                    Error::Refresh(oauth::Error::BadAnswer("no access token".into()))
                })
            }
            Err(oauth::Error::InvalidGrant(detail)) => {
                self.forget_revoked_grant();
                let detail = if detail.is_empty() {
                    String::new()
                } else {
                    format!(": {detail}")
                };
                Err(Error::Revoked { detail })
            }
            Err(e) => Err(Error::Refresh(e)),
        }
    }

    /// The grant is gone: remove `token.json` and leave the marker the bot reports once.
    fn forget_revoked_grant(&self) {
        tracing::warn!("google answered invalid_grant: removing token.json");
        if let Err(e) = std::fs::remove_file(&self.paths.token) {
            if e.kind() != io::ErrorKind::NotFound {
                tracing::error!(cause = %e, file = %self.paths.token.display(), "could not remove the revoked token");
            }
        }
        if let Err(e) = state_file::write_atomic(&self.paths.revoked_marker, b"") {
            tracing::error!(cause = %e, "could not leave the google_auth_revoked marker");
        }
    }
}
