//! How a webhook proves who sent it (SPEC §20): a spec's `auth`, `secret-env` and `rate-limit`
//! keys, and the signature checks of the two signed schemes.
//!
//! - `bearer` (the default): `Authorization: Bearer <WEBHOOK_SECRET>`, as in SPEC §13.
//! - `standard` ([Standard Webhooks](https://www.standardwebhooks.com)): `webhook-id`,
//!   `webhook-timestamp` (Unix seconds, at most [`TOLERANCE_SECS`] from now) and
//!   `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256>` of
//!   `<id>.<timestamp>.<body>`, keyed by the bytes of the `whsec_<base64>` secret.
//! - `github`: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>` keyed by the
//!   secret's text, and `X-GitHub-Delivery` as the delivery id.
//!
//! The secret of a signed scheme is read from the environment variable `secret-env` names, so
//! it is never written in `webhooks/`. A spec is checked when it is read: an unknown `auth`, a
//! signed scheme without `secret-env`, a variable that is unset (or, for `standard`, not a
//! `whsec_` secret) are load errors that say what to fix. Comparisons are constant-time
//! (`ring::hmac::verify`).

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use ring::hmac;

/// Requests a hook accepts per minute unless its spec says otherwise.
pub const DEFAULT_RATE_LIMIT: u32 = 30;
/// How far a Standard Webhooks timestamp may be from now, in seconds.
pub const TOLERANCE_SECS: i64 = 5 * 60;
/// The prefix of a Standard Webhooks secret.
pub const WHSEC_PREFIX: &str = "whsec_";

/// A spec's `auth`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HookAuth {
    /// `Authorization: Bearer <WEBHOOK_SECRET>`.
    #[default]
    Bearer,
    /// Standard Webhooks, the secret in the named variable.
    Standard {
        /// `secret-env`.
        secret_env: String,
    },
    /// GitHub's `X-Hub-Signature-256`, the secret in the named variable.
    GitHub {
        /// `secret-env`.
        secret_env: String,
    },
}

impl HookAuth {
    /// The name written in `auth`.
    pub fn as_str(&self) -> &'static str {
        match self {
            HookAuth::Bearer => "bearer",
            HookAuth::Standard { .. } => "standard",
            HookAuth::GitHub { .. } => "github",
        }
    }

    /// The variable holding the secret, for a signed scheme.
    pub fn secret_env(&self) -> Option<&str> {
        match self {
            HookAuth::Bearer => None,
            HookAuth::Standard { secret_env } | HookAuth::GitHub { secret_env } => Some(secret_env),
        }
    }
}

/// Reads `auth` and `secret-env` as written, checking the variable in `env`.
pub fn parse_auth(
    auth: Option<&str>,
    secret_env: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<HookAuth, String> {
    let scheme = auth.map(str::trim).unwrap_or("bearer");
    let named = || {
        secret_env
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| {
                format!(
                    "`auth: {scheme}` needs `secret-env`: the name of the environment variable \
                     holding the hook's secret"
                )
            })
    };
    let parsed =
        match scheme {
            "bearer" => return match secret_env {
                Some(_) => Err(
                    "`secret-env` is for `auth: standard` or `auth: github`; a bearer hook uses \
                     WEBHOOK_SECRET"
                        .to_owned(),
                ),
                None => Ok(HookAuth::Bearer),
            },
            "standard" => HookAuth::Standard {
                secret_env: named()?,
            },
            "github" => HookAuth::GitHub {
                secret_env: named()?,
            },
            other => {
                return Err(format!(
                    "`auth` {other:?} is not one of bearer, standard, github"
                ))
            }
        };
    secret(&parsed, env)?;
    Ok(parsed)
}

/// The key a signed scheme's HMAC uses, read from the environment now.
pub fn secret(auth: &HookAuth, env: &dyn Fn(&str) -> Option<String>) -> Result<Vec<u8>, String> {
    let Some(name) = auth.secret_env() else {
        return Err("a bearer hook has no signing secret".to_owned());
    };
    let value = env(name)
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| format!("`secret-env` {name} is not set in the bot's environment"))?;
    match auth {
        HookAuth::Standard { .. } => value
            .trim()
            .strip_prefix(WHSEC_PREFIX)
            .and_then(|b64| BASE64.decode(b64).ok())
            .filter(|key| !key.is_empty())
            .ok_or_else(|| {
                format!("{name} is not a Standard Webhooks secret (`whsec_` and base64)")
            }),
        _ => Ok(value.trim().as_bytes().to_vec()),
    }
}

/// Why a signed request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// A header the scheme needs is absent or not text.
    #[error("missing {0} header")]
    Missing(&'static str),
    /// The timestamp is not a number, or further than the tolerance from now.
    #[error("webhook-timestamp is not within 5 minutes of now")]
    Stale,
    /// No signature matched.
    #[error("signature does not match")]
    Mismatch,
}

/// The headers a signed request carries, as text.
#[derive(Debug, Clone, Default)]
pub struct Signed<'a> {
    /// `webhook-id` or `X-GitHub-Delivery`.
    pub id: Option<&'a str>,
    /// `webhook-timestamp`.
    pub timestamp: Option<&'a str>,
    /// `webhook-signature` or `X-Hub-Signature-256`.
    pub signature: Option<&'a str>,
}

/// Checks a Standard Webhooks request at `now` (Unix seconds); its delivery id when it passes.
pub fn verify_standard<'a>(
    key: &[u8],
    headers: &Signed<'a>,
    body: &[u8],
    now: i64,
) -> Result<&'a str, SignatureError> {
    let id = headers.id.ok_or(SignatureError::Missing("webhook-id"))?;
    let timestamp = headers
        .timestamp
        .ok_or(SignatureError::Missing("webhook-timestamp"))?;
    let signatures = headers
        .signature
        .ok_or(SignatureError::Missing("webhook-signature"))?;
    let at: i64 = timestamp
        .trim()
        .parse()
        .map_err(|_| SignatureError::Stale)?;
    if (now - at).abs() > TOLERANCE_SECS {
        return Err(SignatureError::Stale);
    }
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    let mut signed = Vec::with_capacity(id.len() + timestamp.len() + body.len() + 2);
    signed.extend_from_slice(id.as_bytes());
    signed.push(b'.');
    signed.extend_from_slice(timestamp.as_bytes());
    signed.push(b'.');
    signed.extend_from_slice(body);
    let matched = signatures
        .split_whitespace()
        .filter_map(|s| s.strip_prefix("v1,"))
        .filter_map(|b64| BASE64.decode(b64).ok())
        .any(|tag| hmac::verify(&key, &signed, &tag).is_ok());
    matched.then_some(id).ok_or(SignatureError::Mismatch)
}

/// Checks a GitHub request; its delivery id when it passes.
pub fn verify_github<'a>(
    key: &[u8],
    headers: &Signed<'a>,
    body: &[u8],
) -> Result<&'a str, SignatureError> {
    let signature = headers
        .signature
        .ok_or(SignatureError::Missing("X-Hub-Signature-256"))?;
    let id = headers
        .id
        .ok_or(SignatureError::Missing("X-GitHub-Delivery"))?;
    let tag = signature
        .trim()
        .strip_prefix("sha256=")
        .and_then(decode_hex)
        .ok_or(SignatureError::Mismatch)?;
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    hmac::verify(&key, body, &tag)
        .map(|()| id)
        .map_err(|_| SignatureError::Mismatch)
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
#[path = "webhook_auth_tests.rs"]
mod tests;
