//! Who may call `POST /hook/<id>` (SPEC §13, §20): the bearer token, or the signature of a
//! spec with `auth: standard` or `auth: github` ([`crate::jobs::webhook_auth`]); and no secret in
//! the query string.
//!
//! The bearer header is compared with `Bearer <secret>` in time that does not depend on where
//! the first difference is (only the length can show through, as with the original's
//! `hmac.compare_digest`); signatures are checked by `ring::hmac::verify`.

use actix_web::HttpRequest;

use crate::jobs::webhook_auth::{self, HookAuth, SignatureError, Signed};

/// Query parameter names that say a secret is being sent in the URL.
const SECRET_NAMES: [&str; 9] = [
    "secret",
    "token",
    "key",
    "api_key",
    "apikey",
    "access_token",
    "signature",
    "password",
    "auth",
];

/// Why a request was not let in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Bearer token missing or wrong.
    #[error("unauthorized")]
    Unauthorized,
    /// A signed scheme's check failed.
    #[error("{0}")]
    BadSignature(SignatureError),
    /// The spec names a variable that is no longer set (or not a usable secret).
    #[error("{0}")]
    NoSecret(String),
}

/// Whether `header` (the raw `Authorization` value, if any) carries exactly `secret`.
pub fn bearer_matches(header: Option<&[u8]>, secret: &str) -> bool {
    let expected = format!("Bearer {secret}");
    constant_time_eq(header.unwrap_or(b""), expected.as_bytes())
}

/// True when the query string carries a secret: a parameter named like one, or one of
/// `secrets` as a value.
pub fn secret_in_query(query: &str, secrets: &[&str]) -> bool {
    url::form_urlencoded::parse(query.as_bytes()).any(|(name, value)| {
        SECRET_NAMES.contains(&name.to_ascii_lowercase().as_str())
            || secrets
                .iter()
                .any(|s| !s.is_empty() && (value.contains(s) || name.contains(s)))
    }) || secrets.iter().any(|s| !s.is_empty() && query.contains(s))
}

fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// Checks `req` against `auth`: `Ok(None)` for a good bearer token, `Ok(Some(id))` with the
/// delivery id for a good signature. `now` is Unix seconds.
pub fn authenticate(
    req: &HttpRequest,
    auth: &HookAuth,
    bearer_secret: &str,
    body: &[u8],
    now: i64,
) -> Result<Option<String>, Refusal> {
    let env = |name: &str| std::env::var(name).ok();
    match auth {
        HookAuth::Bearer => {
            let given = req
                .headers()
                .get(actix_web::http::header::AUTHORIZATION)
                .map(|v| v.as_bytes());
            if bearer_matches(given, bearer_secret) {
                Ok(None)
            } else {
                Err(Refusal::Unauthorized)
            }
        }
        HookAuth::Standard { .. } => {
            let key = webhook_auth::secret(auth, &env).map_err(Refusal::NoSecret)?;
            let signed = Signed {
                id: header(req, "webhook-id"),
                timestamp: header(req, "webhook-timestamp"),
                signature: header(req, "webhook-signature"),
            };
            webhook_auth::verify_standard(&key, &signed, body, now)
                .map(|id| Some(id.to_owned()))
                .map_err(Refusal::BadSignature)
        }
        HookAuth::GitHub { .. } => {
            let key = webhook_auth::secret(auth, &env).map_err(Refusal::NoSecret)?;
            let signed = Signed {
                id: header(req, "x-github-delivery"),
                timestamp: None,
                signature: header(req, "x-hub-signature-256"),
            };
            webhook_auth::verify_github(&key, &signed, body)
                .map(|id| Some(id.to_owned()))
                .map_err(Refusal::BadSignature)
        }
    }
}

/// Byte equality that looks at every byte of `expected` whatever the input.
fn constant_time_eq(given: &[u8], expected: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != expected.len());
    for (i, e) in expected.iter().enumerate() {
        // Past the end of a short input, compare against a byte that cannot match by luck.
        let g = given.get(i).copied().unwrap_or(!e);
        diff |= g ^ e;
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bearer_token_passes() {
        assert!(bearer_matches(Some(b"Bearer s3cret"), "s3cret"));
    }

    #[test]
    fn wrong_missing_or_partial_tokens_fail() {
        assert!(!bearer_matches(Some(b"Bearer s3creT"), "s3cret"));
        assert!(!bearer_matches(None, "s3cret"));
        assert!(!bearer_matches(Some(b"Bearer s3cret "), "s3cret"));
        assert!(!bearer_matches(Some(b"Bearer s3cre"), "s3cret"));
        assert!(!bearer_matches(Some(b"s3cret"), "s3cret"));
        assert!(!bearer_matches(Some(b"bearer s3cret"), "s3cret"));
    }

    #[test]
    fn a_secret_in_the_query_string_is_spotted() {
        assert!(secret_in_query("token=abc", &[]));
        assert!(secret_in_query("Secret=abc", &[]));
        assert!(secret_in_query("x=s3cret", &["s3cret"]));
        assert!(secret_in_query("x=s%33cret", &["s3cret"]));
        assert!(!secret_in_query("", &["s3cret"]));
        assert!(!secret_in_query("page=2&ref=main", &["s3cret"]));
    }
}
