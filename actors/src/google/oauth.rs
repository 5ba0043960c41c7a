//! The OAuth 2.0 side, on the `oauth2` crate: the consent URL (`access_type=offline`, a random
//! `state`, a PKCE S256 challenge), the code exchange, and refreshing a grant. The client's
//! secret goes in the request body, as Google's installed-app clients (and the original) send it.

use chrono::{DateTime, Utc};
use oauth2::basic::{BasicClient, BasicErrorResponse, BasicErrorResponseType};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, HttpClientError,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RefreshToken, RequestTokenError, Scope,
    TokenResponse, TokenUrl,
};

use super::client_file::ClientFile;
use super::token_file::Token;
use super::SCOPES;

/// What went wrong talking OAuth.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `invalid_grant`: the grant is gone for good (revoked, expired, or the code was bad).
    #[error("invalid_grant: {0}")]
    InvalidGrant(String),
    /// Google refused for another reason (`invalid_client`, …).
    #[error("{0}")]
    Refused(String),
    /// Google could not be reached.
    #[error("could not reach Google's token endpoint: {0}")]
    Network(String),
    /// The answer was not what OAuth promises.
    #[error("Google's token endpoint answered something unexpected: {0}")]
    BadAnswer(String),
    /// A URL in the client or token file is not usable.
    #[error("{0}")]
    Config(String),
}

/// The consent page to send the user to, and what finishing needs.
pub struct ConsentRequest {
    /// The URL to open.
    pub url: String,
    /// The `state` the redirect must carry back.
    pub state: String,
    /// Proves to the token endpoint that we asked (PKCE).
    pub verifier: PkceCodeVerifier,
    /// The redirect URI the code is bound to.
    pub redirect: String,
}

fn url_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Config(format!("{what}: {e}"))
}

/// Builds the consent URL for `client`, redirecting to `redirect` (the loopback listener).
pub fn consent_request(client: &ClientFile, redirect: &str) -> Result<ConsentRequest, Error> {
    let oauth = BasicClient::new(ClientId::new(client.client_id.clone()))
        .set_client_secret(ClientSecret::new(client.client_secret.clone()))
        .set_auth_uri(AuthUrl::new(client.auth_uri.clone()).map_err(|e| url_error("auth_uri", e))?)
        .set_redirect_uri(
            RedirectUrl::new(redirect.to_owned()).map_err(|e| url_error("redirect", e))?,
        );
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (url, state) = oauth
        .authorize_url(CsrfToken::new_random)
        .add_scopes(SCOPES.iter().map(|s| Scope::new((*s).to_owned())))
        .add_extra_param("access_type", "offline")
        // Without it Google leaves out the refresh token when this client was approved before.
        .add_extra_param("prompt", "consent")
        .set_pkce_challenge(challenge)
        .url();
    Ok(ConsentRequest {
        url: url.to_string(),
        state: state.secret().clone(),
        verifier,
        redirect: redirect.to_owned(),
    })
}

type TokenError = RequestTokenError<HttpClientError<reqwest::Error>, BasicErrorResponse>;

fn describe(e: TokenError) -> Error {
    match e {
        RequestTokenError::ServerResponse(r) => {
            let text = match r.error_description() {
                Some(d) => format!("{}: {d}", r.error()),
                None => r.error().to_string(),
            };
            if *r.error() == BasicErrorResponseType::InvalidGrant {
                Error::InvalidGrant(r.error_description().cloned().unwrap_or_default())
            } else {
                Error::Refused(text)
            }
        }
        RequestTokenError::Request(e) => Error::Network(match e {
            HttpClientError::Reqwest(e) => super::rest::chain(e.as_ref()),
            other => other.to_string(),
        }),
        RequestTokenError::Parse(e, body) => {
            let body: String = String::from_utf8_lossy(&body).chars().take(200).collect();
            Error::BadAnswer(format!("{e} in {body:?}"))
        }
        RequestTokenError::Other(text) => Error::BadAnswer(text),
    }
}

fn expiry_from(now: DateTime<Utc>, r: &impl TokenResponse) -> Option<DateTime<Utc>> {
    r.expires_in()
        .and_then(|d| chrono::TimeDelta::from_std(d).ok())
        .map(|d| now + d)
}

/// Exchanges the code from the redirect for a new grant.
pub async fn exchange_code(
    http: &reqwest::Client,
    client: &ClientFile,
    consent: ConsentRequest,
    code: &str,
    now: DateTime<Utc>,
) -> Result<Token, Error> {
    let oauth = BasicClient::new(ClientId::new(client.client_id.clone()))
        .set_client_secret(ClientSecret::new(client.client_secret.clone()))
        .set_auth_type(AuthType::RequestBody)
        .set_token_uri(
            TokenUrl::new(client.token_uri.clone()).map_err(|e| url_error("token_uri", e))?,
        )
        .set_redirect_uri(
            RedirectUrl::new(consent.redirect.clone()).map_err(|e| url_error("redirect", e))?,
        );
    let answer = oauth
        .exchange_code(AuthorizationCode::new(code.to_owned()))
        .set_pkce_verifier(consent.verifier)
        .request_async(http)
        .await
        .map_err(describe)?;
    let Some(refresh) = answer.refresh_token() else {
        return Err(Error::BadAnswer(
            "no refresh token came back, so the connection could not last".into(),
        ));
    };
    let mut token = Token::new_grant(
        &client.client_id,
        &client.client_secret,
        &client.token_uri,
        SCOPES.iter().map(|s| (*s).to_owned()).collect(),
    );
    token.token = Some(answer.access_token().secret().clone());
    token.refresh_token = Some(refresh.secret().clone());
    token.expiry = expiry_from(now, &answer);
    Ok(token)
}

/// Refreshes `token` at `token_uri`; everything but the access token, its expiry and (when
/// Google sends a new one) the refresh token stays as it was.
pub async fn refresh(
    http: &reqwest::Client,
    token: &Token,
    token_uri: &str,
    now: DateTime<Utc>,
) -> Result<Token, Error> {
    let field = |v: &Option<String>, name: &str| {
        v.clone()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| Error::Config(format!("token.json has no {name}")))
    };
    let oauth = BasicClient::new(ClientId::new(field(&token.client_id, "client_id")?))
        .set_client_secret(ClientSecret::new(field(
            &token.client_secret,
            "client_secret",
        )?))
        .set_auth_type(AuthType::RequestBody)
        .set_token_uri(TokenUrl::new(token_uri.to_owned()).map_err(|e| url_error("token_uri", e))?);
    let refresh_token = RefreshToken::new(field(&token.refresh_token, "refresh_token")?);
    let scopes = token.scopes.clone().unwrap_or_default();
    let answer = oauth
        .exchange_refresh_token(&refresh_token)
        .add_scopes(scopes.into_iter().map(Scope::new))
        .request_async(http)
        .await
        .map_err(describe)?;
    let mut fresh = token.clone();
    fresh.token = Some(answer.access_token().secret().clone());
    fresh.expiry = expiry_from(now, &answer);
    if let Some(new_refresh) = answer.refresh_token() {
        fresh.refresh_token = Some(new_refresh.secret().clone());
    }
    Ok(fresh)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_consent_url_asks_offline_access_with_state_and_pkce() {
        let client = ClientFile {
            client_id: "cid".into(),
            client_secret: "secret".into(),
            auth_uri: "https://accounts.example/o/oauth2/auth".into(),
            token_uri: "https://oauth2.example/token".into(),
        };
        let req = consent_request(&client, "http://127.0.0.1:4711").unwrap();
        let url = url::Url::parse(&req.url).unwrap();
        let q: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
        assert_eq!(q["access_type"], "offline");
        assert_eq!(q["state"], req.state);
        assert_eq!(q["code_challenge_method"], "S256");
        assert_eq!(q["redirect_uri"], "http://127.0.0.1:4711");
        assert_eq!(q["response_type"], "code");
        assert_eq!(q["scope"], SCOPES.join(" "));
        assert!(
            !req.url.contains("secret"),
            "the secret never goes to the browser"
        );
        let again = consent_request(&client, "http://127.0.0.1:4711").unwrap();
        assert_ne!(again.state, req.state, "a fresh state each time");
    }
}
