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
    /// The tasks of `@default`.
    pub tasks: Vec<Value>,
    /// Other task lists by id.
    pub task_lists: Vec<(String, Vec<Value>)>,
    /// The events of the primary calendar.
    pub events: Vec<Value>,
    /// Other calendars: id, name, events.
    pub calendars: Vec<(String, String, Vec<Value>)>,
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
            task_lists: Vec::new(),
            events: Vec::new(),
            calendars: Vec::new(),
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

    /// The tasks of a list (`@default` or one added); `None` for an unknown list.
    pub fn task_list_mut(&mut self, list: &str) -> Option<&mut Vec<Value>> {
        if list == "@default" {
            return Some(&mut self.tasks);
        }
        self.task_lists
            .iter_mut()
            .find(|(id, _)| id == list)
            .map(|(_, tasks)| tasks)
    }

    /// The events of a calendar (`primary`, its owner's address, or one added).
    pub fn calendar_mut(&mut self, calendar: &str) -> Option<&mut Vec<Value>> {
        if calendar == "primary" || calendar == super::OWNER {
            return Some(&mut self.events);
        }
        self.calendars
            .iter_mut()
            .find(|(id, _, _)| id == calendar)
            .map(|(_, _, events)| events)
    }

    pub fn add_task(&mut self, title: &str, due: Option<&str>, completed: bool) -> String {
        self.add_task_to("@default", title, due, completed)
    }

    /// Adds a task to `list` (created when new).
    pub fn add_task_to(
        &mut self,
        list: &str,
        title: &str,
        due: Option<&str>,
        completed: bool,
    ) -> String {
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
        if self.task_list_mut(list).is_none() {
            self.task_lists.push((list.to_owned(), Vec::new()));
        }
        if let Some(tasks) = self.task_list_mut(list) {
            tasks.push(task);
        }
        id
    }

    pub fn add_event(&mut self, event: Value) -> String {
        self.add_event_to("primary", event)
    }

    /// Adds an event to `calendar` (created, named after its id, when new).
    pub fn add_event_to(&mut self, calendar: &str, mut event: Value) -> String {
        let id = format!("event{}", self.next());
        event["id"] = json!(id);
        event["status"] = json!("confirmed");
        event["htmlLink"] = json!(format!("https://calendar.google.com/event?eid={id}"));
        if self.calendar_mut(calendar).is_none() {
            self.calendars
                .push((calendar.to_owned(), calendar.to_owned(), Vec::new()));
        }
        if let Some(events) = self.calendar_mut(calendar) {
            events.push(event);
        }
        id
    }

    pub fn add_message(&mut self, mail: NewMail) -> String {
        let id = format!("18c{:05x}", self.next());
        self.messages.push(StoredMail::new(id.clone(), mail));
        id
    }
}
