//! Gmail, read-only (`/gmail/v1/users/me/…`): unread or searched messages with their sender
//! and subject, one message's text, the labels. Lines (SPEC §15):
//! `  <id>  <YYYY-MM-DD HH:MM>  <sender display name>  <subject>`, `no messages`.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use futures_util::stream::{self, StreamExt, TryStreamExt};
use serde::Deserialize;

use super::error::Error;
use super::gmail_body::{self, Part};
use super::rest::Rest;
use crate::agent::untrusted_fence::one_line;

/// How many messages' headers are fetched at once.
const PARALLEL_FETCHES: usize = 8;
/// Most messages one listing asks for (Gmail's page limit).
pub const MAX_RESULTS: u32 = 500;
/// Messages listed unless `--max` says otherwise.
pub const DEFAULT_MAX: u32 = 20;

#[derive(Deserialize)]
struct MessageRef {
    id: String,
}

/// A message as `format=metadata` or `format=full` returns it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Its id.
    pub id: String,
    /// Milliseconds since the epoch, as a string.
    #[serde(default)]
    pub internal_date: Option<String>,
    /// Headers and MIME parts.
    #[serde(default)]
    pub payload: Part,
}

/// A label.
#[derive(Debug, Clone, Deserialize)]
pub struct Label {
    /// Its id (`INBOX`, `Label_12`).
    pub id: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
}

/// Longest sender, recipient or subject shown, in characters (SPEC §20: per-field caps).
pub const HEADER_CHARS: usize = 200;

impl Label {
    /// The `gmail labels` line: id, then name (cut, on one line).
    pub fn line(&self) -> String {
        format!("  {}  {}", self.id, one_line(&self.name, HEADER_CHARS))
    }
}

/// The display name of a `From` header (`"Jo Park" <jo@x.org>` → `Jo Park`), else the address.
pub fn sender_name(from: &str) -> String {
    match from.split_once('<') {
        Some((name, rest)) => {
            let name = name.trim().trim_matches('"').trim();
            if name.is_empty() {
                rest.trim_end().trim_end_matches('>').to_owned()
            } else {
                name.to_owned()
            }
        }
        None => from.trim().to_owned(),
    }
}

impl Message {
    /// When it arrived, `YYYY-MM-DD HH:MM` in `tz`, or `(no date)    `.
    pub fn date(&self, tz: Tz) -> String {
        self.internal_date
            .as_deref()
            .and_then(|ms| ms.trim().parse::<i64>().ok())
            .and_then(DateTime::<Utc>::from_timestamp_millis)
            .map(|t| t.with_timezone(&tz).format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_else(|| "(no date)    ".to_owned())
    }

    /// A header on one line, cut at [`HEADER_CHARS`].
    fn header_or(&self, name: &str, default: &str) -> String {
        one_line(self.payload.header(name).unwrap_or(default), HEADER_CHARS)
    }

    /// The listing line.
    pub fn line(&self, tz: Tz) -> String {
        format!(
            "  {}  {}  {}  {}",
            self.id,
            self.date(tz),
            sender_name(&self.header_or("From", "(unknown)")),
            self.header_or("Subject", "(no subject)")
        )
    }

    /// `gmail read`: the headers, a blank line, the text.
    pub fn full_text(&self, tz: Tz) -> String {
        let body = gmail_body::text(&self.payload).unwrap_or_else(|| "(no text body)".to_owned());
        format!(
            "from:    {}\nto:      {}\ndate:    {}\nsubject: {}\n\n{body}",
            self.header_or("From", "(unknown)"),
            self.header_or("To", "(unknown)"),
            self.date(tz),
            self.header_or("Subject", "(no subject)"),
        )
    }
}

fn messages_url(rest: &Rest) -> url::Url {
    rest.url(&["gmail", "v1", "users", "me", "messages"])
}

fn message_url(rest: &Rest, id: &str) -> url::Url {
    rest.url(&["gmail", "v1", "users", "me", "messages", id])
}

/// Checks `--max`.
pub fn check_max(max: u32) -> Result<usize, Error> {
    if (1..=MAX_RESULTS).contains(&max) {
        Ok(max as usize)
    } else {
        Err(Error::Input(format!(
            "--max must be between 1 and {MAX_RESULTS} (got {max})"
        )))
    }
}

/// The newest `max` messages matching `query` (Gmail search syntax), with From and Subject.
pub async fn list(rest: &Rest, query: &str, max: u32) -> Result<Vec<Message>, Error> {
    let max = check_max(max)?;
    let mut url = messages_url(rest);
    url.query_pairs_mut()
        .append_pair("q", query)
        .append_pair("maxResults", &max.to_string());
    let refs: Vec<MessageRef> = rest.all_pages(url, Some(max)).await?;
    stream::iter(refs)
        .map(|r| {
            let mut url = message_url(rest, &r.id);
            url.query_pairs_mut()
                .append_pair("format", "metadata")
                .append_pair("metadataHeaders", "From")
                .append_pair("metadataHeaders", "Subject");
            rest.get::<Message>(url)
        })
        .buffered(PARALLEL_FETCHES)
        .try_collect()
        .await
}

/// One message in full.
pub async fn read(rest: &Rest, id: &str) -> Result<Message, Error> {
    let mut url = message_url(rest, id);
    url.query_pairs_mut().append_pair("format", "full");
    rest.get(url).await
}

/// Every label.
pub async fn labels(rest: &Rest) -> Result<Vec<Label>, Error> {
    let url = rest.url(&["gmail", "v1", "users", "me", "labels"]);
    rest.all_pages(url, None).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn senders_show_their_display_name() {
        assert_eq!(sender_name("\"Jo Park\" <jo@x.org>"), "Jo Park");
        assert_eq!(sender_name("Bank <no-reply@bank.com>"), "Bank");
        assert_eq!(sender_name("<solo@x.org>"), "solo@x.org");
        assert_eq!(sender_name("plain@x.org"), "plain@x.org");
    }

    #[test]
    fn a_listing_line_has_the_local_date_sender_and_subject() {
        let m: Message = serde_json::from_value(serde_json::json!({
            "id": "18c1",
            "internalDate": "1771945200000",
            "payload": {"headers": [
                {"name": "From", "value": "Jo Park <jo@x.org>"},
                {"name": "Subject", "value": "Lunch?"}
            ]}
        }))
        .unwrap();
        assert_eq!(
            m.line(chrono_tz::America::New_York),
            "  18c1  2026-02-24 10:00  Jo Park  Lunch?"
        );
        let bare: Message = serde_json::from_value(serde_json::json!({"id": "x"})).unwrap();
        assert_eq!(
            bare.line(chrono_tz::UTC),
            "  x  (no date)      (unknown)  (no subject)"
        );
    }

    #[test]
    fn max_is_bounded() {
        assert!(check_max(0).is_err());
        assert!(check_max(501).is_err());
        assert_eq!(check_max(20).unwrap(), 20);
    }
}
