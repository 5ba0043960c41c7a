//! Authorised JSON calls to Google's REST APIs under the configured base, with Google's errors
//! (`{"error": {"code", "message"}}`) turned into [`Error::Api`] carrying Google's message, and
//! list paging (`nextPageToken`) followed.

use std::time::Duration;

use reqwest::Method;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use url::Url;

use super::error::Error;
use super::ApiBase;

/// The longest a single call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Most pages read for one listing (a server handing out tokens forever stops here).
const MAX_PAGES: usize = 100;

/// The HTTP client for Google: timeouts, no redirects (the OAuth crate's advice), our name.
pub fn http_client() -> Result<reqwest::Client, Error> {
    reqwest::Client::builder()
        .timeout(CALL_TIMEOUT)
        .connect_timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("ollim-bot/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| Error::Network {
            url: "(client setup)".into(),
            cause: chain(&e),
        })
}

/// An error with its causes, `a: b: c`, for one readable line.
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}

/// Calls authorised with one access token.
#[derive(Clone)]
pub struct Rest {
    http: reqwest::Client,
    base: ApiBase,
    token: String,
}

/// One page of a list answer: `items` (Tasks, Calendar, labels) or `messages` (Gmail).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", bound = "T: DeserializeOwned")]
struct Page<T> {
    #[serde(default = "Vec::new", alias = "messages", alias = "labels")]
    items: Vec<T>,
    next_page_token: Option<String>,
}

#[derive(Deserialize)]
struct GoogleError {
    error: GoogleErrorBody,
}

#[derive(Deserialize)]
struct GoogleErrorBody {
    message: Option<String>,
}

fn without_query(url: &Url) -> String {
    let mut shown = url.clone();
    shown.set_query(None);
    shown.to_string()
}

impl Rest {
    /// Calls under `base` with `token`.
    pub fn new(http: reqwest::Client, base: ApiBase, token: String) -> Self {
        Rest { http, base, token }
    }

    /// The URL of `segments` under the base.
    pub fn url(&self, segments: &[&str]) -> Url {
        self.base.url(segments)
    }

    async fn call(&self, method: Method, url: Url, body: Option<&Value>) -> Result<Vec<u8>, Error> {
        let shown = without_query(&url);
        let mut request = self.http.request(method, url).bearer_auth(&self.token);
        if let Some(body) = body {
            request = request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.to_string());
        }
        let network = |e: reqwest::Error| Error::Network {
            url: shown.clone(),
            cause: chain(&e),
        };
        let response = request.send().await.map_err(network)?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(network)?;
        if status.is_success() {
            return Ok(bytes.to_vec());
        }
        let message = serde_json::from_slice::<GoogleError>(&bytes)
            .ok()
            .and_then(|e| e.error.message)
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| {
                let text: String = String::from_utf8_lossy(&bytes).chars().take(200).collect();
                let reason = status.canonical_reason().unwrap_or("error");
                if text.trim().is_empty() {
                    reason.to_owned()
                } else {
                    format!("{reason}: {}", text.trim())
                }
            });
        // Google's own words stay in the log; the error says it plainly.
        tracing::info!(status = status.as_u16(), url = %shown, google = %message, "google answered with an error");
        Err(Error::Api {
            status: status.as_u16(),
            message,
        })
    }

    fn decode<T: DeserializeOwned>(url: &Url, bytes: &[u8]) -> Result<T, Error> {
        serde_json::from_slice(bytes).map_err(|e| Error::BadAnswer {
            url: without_query(url),
            cause: e.to_string(),
        })
    }

    /// `GET url` as `T`.
    pub async fn get<T: DeserializeOwned>(&self, url: Url) -> Result<T, Error> {
        let bytes = self.call(Method::GET, url.clone(), None).await?;
        Self::decode(&url, &bytes)
    }

    /// `POST`/`PATCH url` with a JSON body, answered as `T`.
    pub async fn send<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        body: &Value,
    ) -> Result<T, Error> {
        let bytes = self.call(method, url.clone(), Some(body)).await?;
        Self::decode(&url, &bytes)
    }

    /// `DELETE url`.
    pub async fn delete(&self, url: Url) -> Result<(), Error> {
        self.call(Method::DELETE, url, None).await.map(drop)
    }

    /// Every item of a listing, following `nextPageToken`, stopping once `limit` are read.
    pub async fn all_pages<T: DeserializeOwned>(
        &self,
        url: Url,
        limit: Option<usize>,
    ) -> Result<Vec<T>, Error> {
        let mut items = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut page_url = url.clone();
            if let Some(t) = &token {
                page_url.query_pairs_mut().append_pair("pageToken", t);
            }
            let page: Page<T> = self.get(page_url).await?;
            items.extend(page.items);
            if limit.is_some_and(|l| items.len() >= l) {
                break;
            }
            match page.next_page_token.filter(|t| !t.is_empty()) {
                Some(next) if Some(&next) != token.as_ref() => token = Some(next),
                _ => break,
            }
        }
        if let Some(l) = limit {
            items.truncate(l);
        }
        Ok(items)
    }
}
