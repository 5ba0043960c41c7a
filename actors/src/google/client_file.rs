//! `state/credentials.json`: the OAuth client the user downloads from the Google Cloud console,
//! in Google's format — `{"installed": {client_id, client_secret, auth_uri, token_uri,
//! redirect_uris, …}}` (a "web" client's file has `web` instead; both are read, as the original
//! does). Only read, never written.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Why the client file cannot be used.
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
    /// The file is not a Google OAuth client file.
    #[error("{path} is not a Google OAuth client file ({why}); download it again from the Google Cloud console (OAuth client of type \"Desktop app\")")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
}

/// The OAuth client: who we are to Google and where its endpoints are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientFile {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`.
    pub client_secret: String,
    /// `auth_uri`: where the consent page is.
    pub auth_uri: String,
    /// `token_uri`: where codes and refresh tokens are exchanged.
    pub token_uri: String,
}

#[derive(Deserialize)]
struct Raw {
    installed: Option<Section>,
    web: Option<Section>,
}

#[derive(Deserialize)]
struct Section {
    client_id: Option<String>,
    client_secret: Option<String>,
    auth_uri: Option<String>,
    token_uri: Option<String>,
}

impl ClientFile {
    /// Reads the file; `None` when there is none.
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
        Self::parse(&bytes).map(Some).map_err(|why| Error::Invalid {
            path: path.to_path_buf(),
            why,
        })
    }

    /// Parses the file's bytes.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        let raw: Raw = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
        let section = raw
            .installed
            .or(raw.web)
            .ok_or("no \"installed\" section")?;
        let field = |value: Option<String>, name: &str| {
            value
                .filter(|v| !v.trim().is_empty())
                .ok_or_else(|| format!("\"{name}\" is missing"))
        };
        let url = |value: Option<String>, name: &str| {
            let v = field(value, name)?;
            match url::Url::parse(&v) {
                Ok(u) if matches!(u.scheme(), "http" | "https") => Ok(v),
                _ => Err(format!("\"{name}\" is not an http(s) URL: {v:?}")),
            }
        };
        Ok(ClientFile {
            client_id: field(section.client_id, "client_id")?,
            client_secret: field(section.client_secret, "client_secret")?,
            auth_uri: url(section.auth_uri, "auth_uri")?,
            token_uri: url(section.token_uri, "token_uri")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_googles_installed_app_format() {
        let text = r#"{"installed":{"client_id":"123.apps.googleusercontent.com","project_id":"p",
            "auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com/token",
            "auth_provider_x509_cert_url":"https://www.googleapis.com/oauth2/v1/certs",
            "client_secret":"GOCSPX-x","redirect_uris":["http://localhost"]}}"#;
        let c = ClientFile::parse(text.as_bytes()).unwrap();
        assert_eq!(c.client_id, "123.apps.googleusercontent.com");
        assert_eq!(c.token_uri, "https://oauth2.googleapis.com/token");
    }

    #[test]
    fn a_broken_file_says_what_is_wrong() {
        assert!(ClientFile::parse(b"{").unwrap_err().contains("not JSON"));
        assert!(ClientFile::parse(b"{}").unwrap_err().contains("installed"));
        let no_secret =
            br#"{"installed":{"client_id":"c","auth_uri":"https://a","token_uri":"https://t"}}"#;
        assert!(ClientFile::parse(no_secret)
            .unwrap_err()
            .contains("client_secret"));
        let bad_uri = br#"{"installed":{"client_id":"c","client_secret":"s","auth_uri":"nope","token_uri":"https://t"}}"#;
        assert!(ClientFile::parse(bad_uri).unwrap_err().contains("auth_uri"));
    }

    #[test]
    fn a_missing_file_is_none_and_a_corrupt_one_names_its_path() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("credentials.json");
        assert_eq!(ClientFile::read(&path).unwrap(), None);
        std::fs::write(&path, "garbage").unwrap();
        let e = ClientFile::read(&path).unwrap_err().to_string();
        assert!(
            e.contains("credentials.json") && e.contains("Desktop app"),
            "{e}"
        );
    }
}
