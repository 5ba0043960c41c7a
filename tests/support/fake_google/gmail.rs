//! Gmail (`/gmail/v1/users/me/…`): message listing with a small subset of search
//! (`is:unread`, `from:…`, words of the subject), `format=metadata` with the asked headers,
//! `format=full` with the MIME tree base64url-encoded, labels.

use base64::engine::general_purpose::URL_SAFE;
use base64::Engine;
use serde_json::{json, Value};

use super::http::{google_error, not_found, ok, page, param, Reply};
use super::state::{Request, State};

/// A message to seed.
#[derive(Debug, Clone, Default)]
pub struct NewMail {
    pub from: String,
    pub to: String,
    pub subject: String,
    /// Milliseconds since the epoch.
    pub internal_date: i64,
    pub unread: bool,
    /// The text/plain part, if any.
    pub plain: Option<String>,
    /// The text/html part, if any.
    pub html: Option<String>,
}

/// A stored message.
pub struct StoredMail {
    pub id: String,
    pub mail: NewMail,
}

fn part(mime: &str, text: &str) -> Value {
    json!({"mimeType": mime, "body": {"size": text.len(), "data": URL_SAFE.encode(text)}})
}

impl StoredMail {
    pub fn new(id: String, mail: NewMail) -> Self {
        StoredMail { id, mail }
    }

    fn headers(&self) -> Vec<Value> {
        vec![
            json!({"name": "From", "value": self.mail.from}),
            json!({"name": "To", "value": self.mail.to}),
            json!({"name": "Subject", "value": self.mail.subject}),
        ]
    }

    fn matches(&self, q: &str) -> bool {
        q.split_whitespace().all(|word| match word.split_once(':') {
            Some(("is", "unread")) => self.mail.unread,
            Some(("from", who)) => self.mail.from.to_lowercase().contains(&who.to_lowercase()),
            _ => self
                .mail
                .subject
                .to_lowercase()
                .contains(&word.to_lowercase()),
        })
    }

    fn full(&self) -> Value {
        let parts: Vec<Value> = [
            self.mail.plain.as_deref().map(|t| part("text/plain", t)),
            self.mail.html.as_deref().map(|t| part("text/html", t)),
        ]
        .into_iter()
        .flatten()
        .collect();
        json!({
            "id": self.id,
            "threadId": self.id,
            "internalDate": self.mail.internal_date.to_string(),
            "payload": {
                "mimeType": "multipart/mixed",
                "headers": self.headers(),
                "body": {"size": 0},
                "parts": [{"mimeType": "multipart/alternative", "body": {"size": 0}, "parts": parts}]
            }
        })
    }

    fn metadata(&self, wanted: &[String]) -> Value {
        let headers: Vec<Value> = self
            .headers()
            .into_iter()
            .filter(|h| wanted.iter().any(|w| h["name"] == w.as_str()))
            .collect();
        json!({
            "id": self.id,
            "threadId": self.id,
            "internalDate": self.mail.internal_date.to_string(),
            "payload": {"mimeType": "multipart/mixed", "headers": headers}
        })
    }
}

/// `/gmail/v1/…`.
pub fn route(state: &mut State, r: &Request, segs: &[&str]) -> Reply {
    if r.method != "GET" {
        return google_error(403, "Request had insufficient authentication scopes.");
    }
    match segs {
        ["v1", "users", "me", "messages"] => {
            let q = param(r, "q").unwrap_or_default();
            let mut found: Vec<&StoredMail> =
                state.messages.iter().filter(|m| m.matches(&q)).collect();
            found.sort_by_key(|m| std::cmp::Reverse(m.mail.internal_date));
            let refs: Vec<Value> = found
                .iter()
                .map(|m| json!({"id": m.id, "threadId": m.id}))
                .collect();
            let max = param(r, "maxResults").and_then(|m| m.parse().ok());
            page(state, r, refs, "messages", max)
        }
        ["v1", "users", "me", "messages", id] => {
            let Some(m) = state.messages.iter().find(|m| m.id == *id) else {
                return not_found();
            };
            match param(r, "format").as_deref() {
                Some("metadata") => {
                    let wanted: Vec<String> = r
                        .query_pairs()
                        .into_iter()
                        .filter(|(k, _)| k == "metadataHeaders")
                        .map(|(_, v)| v)
                        .collect();
                    ok(m.metadata(&wanted))
                }
                _ => ok(m.full()),
            }
        }
        ["v1", "users", "me", "labels"] => ok(json!({"labels": state.labels})),
        _ => google_error(404, "Not Found"),
    }
}
