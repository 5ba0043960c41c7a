//! The fake's data: grants and codes, the seeded tasks, events and messages, failures to
//! inject, and every request that arrived.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::gmail::{NewMail, StoredMail};

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path, percent-decoded.
    pub path: String,
    /// The raw query.
    pub query: String,
    /// The `Authorization` header.
    pub authorization: Option<String>,
    /// The body as text.
    pub body: String,
}

impl Request {
    /// The query's pairs, decoded.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        url::form_urlencoded::parse(self.query.as_bytes())
            .into_owned()
            .collect()
    }

    /// The body as form pairs (the token endpoint's).
    pub fn form(&self) -> HashMap<String, String> {
        url::form_urlencoded::parse(self.body.as_bytes())
            .into_owned()
            .collect()
    }

    /// The body as JSON (`Null` when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// A failure to answer the next matching call with.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The method to match (`None`: any).
    pub method: Option<&'static str>,
    /// A piece of the path to match.
    pub path_contains: &'static str,
    /// The status to answer.
    pub status: u16,
    /// Google's `error.message`; empty gives a non-JSON body.
    pub message: &'static str,
}

/// A code handed out by the consent page.
#[derive(Debug, Clone)]
pub struct Code {
    pub challenge: String,
    pub redirect_uri: String,
}

/// Everything the fake holds.
pub struct State {
    pub requests: Vec<Request>,
    pub failures: Vec<Failure>,
    pub page_size: usize,
    /// Valid bearer tokens.
    pub access: HashSet<String>,
    /// Refresh tokens issued.
    pub refresh: HashSet<String>,
    /// Refresh tokens revoked.
    pub revoked: HashSet<String>,
    pub codes: HashMap<String, Code>,
    pub tasks: Vec<Value>,
    pub events: Vec<Value>,
    pub messages: Vec<StoredMail>,
    pub labels: Vec<Value>,
    next: u64,
}

impl Default for State {
    fn default() -> Self {
        State {
            requests: Vec::new(),
            failures: Vec::new(),
            page_size: 100,
            access: HashSet::new(),
            refresh: HashSet::new(),
            revoked: HashSet::new(),
            codes: HashMap::new(),
            tasks: Vec::new(),
            events: Vec::new(),
            messages: Vec::new(),
            labels: vec![
                json!({"id": "INBOX", "name": "INBOX", "type": "system"}),
                json!({"id": "Label_7", "name": "Receipts", "type": "user"}),
            ],
            next: 0,
        }
    }
}

impl State {
    /// A fresh number for ids and tokens.
    pub fn next(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// Issues an access token, and a refresh token when `with_refresh`.
    pub fn issue(&mut self, with_refresh: bool) -> (String, String) {
        let n = self.next();
        let access = format!("ya29.fake-access-{n}");
        self.access.insert(access.clone());
        let refresh = if with_refresh {
            let r = format!("1//fake-refresh-{n}");
            self.refresh.insert(r.clone());
            r
        } else {
            String::new()
        };
        (access, refresh)
    }

    /// The failure for this call, if one was asked for (used once).
    pub fn take_failure(&mut self, method: &str, path: &str) -> Option<Failure> {
        let at = self
            .failures
            .iter()
            .position(|f| f.method.is_none_or(|m| m == method) && path.contains(f.path_contains))?;
        Some(self.failures.remove(at))
    }

    pub fn add_task(&mut self, title: &str, due: Option<&str>, completed: bool) -> String {
        let id = format!("task{}", self.next());
        let mut task = json!({
            "kind": "tasks#task",
            "id": id,
            "title": title,
            "status": if completed { "completed" } else { "needsAction" },
        });
        if let Some(d) = due {
            task["due"] = json!(format!("{d}T00:00:00.000Z"));
        }
        self.tasks.push(task);
        id
    }

    pub fn add_event(&mut self, mut event: Value) -> String {
        let id = format!("event{}", self.next());
        event["id"] = json!(id);
        event["status"] = json!("confirmed");
        event["htmlLink"] = json!(format!("https://calendar.google.com/event?eid={id}"));
        self.events.push(event);
        id
    }

    pub fn add_message(&mut self, mail: NewMail) -> String {
        let id = format!("18c{:05x}", self.next());
        self.messages.push(StoredMail::new(id.clone(), mail));
        id
    }
}
