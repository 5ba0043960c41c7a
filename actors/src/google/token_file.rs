//! `state/token.json`: the user's grant in the original's format, Python google-auth's
//! `Credentials.to_json()` — one line, `json.dumps` spacing, keys in the order `token`,
//! `refresh_token`, `token_uri`, `client_id`, `client_secret`, `scopes`, `rapt_token`,
//! `universe_domain`, `account`, `expiry` (naive UTC `isoformat()` plus `Z`), absent values
//! left out, no trailing newline.
//!
//! Read as the original reads it (`scopes` as a list or a space-separated string; `expiry` with
//! or without fractional seconds; a missing expiry counts as expired) and written so that the
//! original reads it back. Fields we do not use are kept as they were.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDateTime, TimeDelta, Timelike, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::base::state_file;
use crate::records::sessions::python_json;

/// How long before its expiry an access token is already treated as expired (google-auth's
/// refresh threshold), so a call never starts with a token about to lapse.
pub const REFRESH_MARGIN: TimeDelta = TimeDelta::seconds(225);

/// Why the token file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The file is not a token file.
    #[error("{path} is not a Google token file ({why}); remove it and run /google-auth to connect again")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// Writing failed.
    #[error(transparent)]
    Write(#[from] state_file::Error),
}

/// The grant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Token {
    /// The access token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// The refresh token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Where it was obtained.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_uri: Option<String>,
    /// The OAuth client's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The OAuth client's secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The scopes granted.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "scopes_list_or_string",
        default
    )]
    pub scopes: Option<Vec<String>>,
    /// Google's reauthentication token, when it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rapt_token: Option<String>,
    /// `googleapis.com`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub universe_domain: Option<String>,
    /// The account (google-auth writes `""`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// Anything else the file held, kept as it was.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
    /// When the access token expires, in UTC.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "expiry_out",
        deserialize_with = "expiry_in",
        default
    )]
    pub expiry: Option<DateTime<Utc>>,
}

impl Token {
    /// A new grant as google-auth records one (`universe_domain` and an empty `account`).
    pub fn new_grant(
        client_id: &str,
        client_secret: &str,
        token_uri: &str,
        scopes: Vec<String>,
    ) -> Self {
        Token {
            token: None,
            refresh_token: None,
            token_uri: Some(token_uri.to_owned()),
            client_id: Some(client_id.to_owned()),
            client_secret: Some(client_secret.to_owned()),
            scopes: Some(scopes),
            rapt_token: None,
            universe_domain: Some("googleapis.com".to_owned()),
            account: Some(String::new()),
            other: BTreeMap::new(),
            expiry: None,
        }
    }

    /// Reads the file; `None` when there is none (or it is empty).
    pub fn read(path: &Path) -> Result<Option<Self>, Error> {
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(Error::Read {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        Self::parse(&bytes).map(Some).map_err(|why| Error::Invalid {
            path: path.to_path_buf(),
            why,
        })
    }

    /// Parses the file's bytes.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        let value: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
        if !value.is_object() {
            return Err("not a JSON object".into());
        }
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    /// The bytes of the file, exactly as google-auth writes them.
    pub fn to_json(&self) -> Vec<u8> {
        // Strings, lists and a timestamp: nothing here can fail to encode.
        python_json::to_line(self).unwrap_or_default()
    }

    /// Writes the file atomically.
    pub fn write(&self, path: &Path) -> Result<(), Error> {
        state_file::write_atomic(path, &self.to_json())?;
        Ok(())
    }

    /// True when the access token is missing, has no expiry, or expires within
    /// [`REFRESH_MARGIN`] of `now`.
    pub fn needs_refresh(&self, now: DateTime<Utc>) -> bool {
        let has_token = self.token.as_deref().is_some_and(|t| !t.is_empty());
        match self.expiry {
            Some(expiry) if has_token => now >= expiry - REFRESH_MARGIN,
            _ => true,
        }
    }

    /// True when the grant can be refreshed: a refresh token and the client's id and secret.
    pub fn can_refresh(&self) -> bool {
        [&self.refresh_token, &self.client_id, &self.client_secret]
            .iter()
            .all(|v| v.as_deref().is_some_and(|s| !s.is_empty()))
    }
}

fn scopes_list_or_string<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Scopes {
        List(Vec<String>),
        Spaced(String),
    }
    Ok(match Option::<Scopes>::deserialize(d)? {
        None => None,
        Some(Scopes::List(l)) => Some(l),
        Some(Scopes::Spaced(s)) => Some(s.split(' ').map(str::to_owned).collect()),
    })
}

/// google-auth's reading: `Z` stripped, fractional seconds ignored, naive UTC.
fn parse_expiry(text: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&Utc).with_nanosecond(0).unwrap_or(t.into()));
    }
    let whole = text.trim_end_matches('Z').split('.').next().unwrap_or("");
    NaiveDateTime::parse_from_str(whole, "%Y-%m-%dT%H:%M:%S")
        .map(|n| n.and_utc())
        .map_err(|_| format!("expiry {text:?} is not a time like 2026-02-24T14:00:00Z"))
}

fn expiry_in<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
    match Option::<String>::deserialize(d)? {
        None => Ok(None),
        Some(text) => parse_expiry(&text)
            .map(Some)
            .map_err(serde::de::Error::custom),
    }
}

/// Python's `datetime.isoformat()` of a naive UTC time (microseconds only when not zero) + `Z`.
pub fn format_expiry(t: &DateTime<Utc>) -> String {
    let micros = t.nanosecond() / 1000 % 1_000_000;
    let base = t.format("%Y-%m-%dT%H:%M:%S");
    if micros == 0 {
        format!("{base}Z")
    } else {
        format!("{base}.{micros:06}Z")
    }
}

fn expiry_out<S: serde::Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_str(&format_expiry(t)),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file as google-auth 2.x writes it after `InstalledAppFlow.run_local_server`.
    const ORIGINAL: &str = r#"{"token": "ya29.a0AfB", "refresh_token": "1//0gRt", "token_uri": "https://oauth2.googleapis.com/token", "client_id": "123.apps.googleusercontent.com", "client_secret": "GOCSPX-abc", "scopes": ["https://www.googleapis.com/auth/tasks", "https://www.googleapis.com/auth/calendar.events", "https://www.googleapis.com/auth/gmail.readonly"], "universe_domain": "googleapis.com", "account": "", "expiry": "2026-02-24T19:03:11.482913Z"}"#;

    #[test]
    fn the_originals_file_reads_and_writes_back_byte_for_byte() {
        let t = Token::parse(ORIGINAL.as_bytes()).unwrap();
        assert_eq!(t.token.as_deref(), Some("ya29.a0AfB"));
        assert_eq!(t.scopes.as_ref().map(Vec::len), Some(3));
        assert_eq!(
            t.expiry.unwrap().to_rfc3339(),
            "2026-02-24T19:03:11+00:00",
            "fractional seconds are dropped, as google-auth reads them"
        );
        let mut with_micros = t.clone();
        with_micros.expiry = Some(
            DateTime::parse_from_rfc3339("2026-02-24T19:03:11.482913Z")
                .unwrap()
                .into(),
        );
        assert_eq!(String::from_utf8(with_micros.to_json()).unwrap(), ORIGINAL);
    }

    #[test]
    fn unknown_fields_survive_and_a_whole_second_has_no_fraction() {
        let text = r#"{"token": "a", "refresh_token": "r", "token_uri": "u", "client_id": "c", "client_secret": "s", "scopes": "x y", "quota_project_id": "q", "expiry": "2026-01-01T00:00:00"}"#;
        let t = Token::parse(text.as_bytes()).unwrap();
        assert_eq!(t.scopes, Some(vec!["x".to_owned(), "y".to_owned()]));
        let out = String::from_utf8(t.to_json()).unwrap();
        assert_eq!(
            out,
            r#"{"token": "a", "refresh_token": "r", "token_uri": "u", "client_id": "c", "client_secret": "s", "scopes": ["x", "y"], "quota_project_id": "q", "expiry": "2026-01-01T00:00:00Z"}"#
        );
    }

    #[test]
    fn expiry_decides_the_refresh_with_a_margin() {
        let t = Token::parse(ORIGINAL.as_bytes()).unwrap();
        let expiry = t.expiry.unwrap();
        assert!(!t.needs_refresh(expiry - TimeDelta::minutes(10)));
        assert!(t.needs_refresh(expiry - TimeDelta::minutes(2)));
        let mut no_expiry = t.clone();
        no_expiry.expiry = None;
        assert!(no_expiry.needs_refresh(expiry - TimeDelta::days(1)));
        assert!(t.can_refresh());
        let mut no_refresh = t;
        no_refresh.refresh_token = None;
        assert!(!no_refresh.can_refresh());
    }

    #[test]
    fn a_corrupt_file_is_an_error_naming_it_and_is_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("token.json");
        assert!(Token::read(&path).unwrap().is_none());
        for bad in ["{\"token\": ", "[1, 2]", r#"{"expiry": "tuesday"}"#] {
            fs::write(&path, bad).unwrap();
            let e = Token::read(&path).unwrap_err().to_string();
            assert!(
                e.contains("token.json") && e.contains("/google-auth"),
                "{e}"
            );
            assert_eq!(fs::read_to_string(&path).unwrap(), bad, "left as it was");
        }
    }
}
