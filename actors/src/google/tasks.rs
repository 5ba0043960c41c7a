//! Google Tasks, the default list (`/tasks/v1/lists/@default/tasks`), and the lines the agent
//! reads (SPEC §15): `  <id>  <due or "(no due)", padded to 12>  [x]|[ ]  <title>`,
//! `added <id>: <due> -- <title>`, `no tasks`.

use chrono::NaiveDate;
use reqwest::Method;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::error::Error;
use super::rest::Rest;

/// Most tasks Google returns per page.
const PAGE_SIZE: &str = "100";

/// One task as Google returns it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Task {
    /// Its id.
    pub id: String,
    /// Its title.
    #[serde(default)]
    pub title: String,
    /// Its notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// `needsAction` or `completed`.
    #[serde(default)]
    pub status: Option<String>,
    /// The due date as `YYYY-MM-DDT00:00:00.000Z`.
    #[serde(default)]
    pub due: Option<String>,
}

impl Task {
    /// The listing line.
    pub fn line(&self) -> String {
        let due = match self.due.as_deref() {
            Some(d) if !d.is_empty() => d.chars().take(10).collect(),
            _ => "(no due)".to_owned(),
        };
        let done = if self.status.as_deref() == Some("completed") {
            "[x]"
        } else {
            "[ ]"
        };
        format!("  {}  {due:<12}  {done}  {}", self.id, self.title)
    }
}

/// Reads a `--due` date (`YYYY-MM-DD`).
pub fn parse_due(text: &str) -> Result<NaiveDate, Error> {
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
        .map_err(|_| Error::Input(format!("--due {text:?} is not a date like 2026-02-24")))
}

/// The `due` field Google stores: midnight UTC of the date.
pub fn due_field(date: NaiveDate) -> String {
    format!("{}T00:00:00.000Z", date.format("%Y-%m-%d"))
}

fn tasks_url(rest: &Rest) -> url::Url {
    rest.url(&["tasks", "v1", "lists", "@default", "tasks"])
}

fn task_url(rest: &Rest, id: &str) -> url::Url {
    rest.url(&["tasks", "v1", "lists", "@default", "tasks", id])
}

/// Open tasks, or with `all` completed and hidden ones too; every page.
pub async fn list(rest: &Rest, all: bool) -> Result<Vec<Task>, Error> {
    let mut url = tasks_url(rest);
    url.query_pairs_mut()
        .append_pair("showCompleted", if all { "true" } else { "false" })
        .append_pair("showHidden", if all { "true" } else { "false" })
        .append_pair("maxResults", PAGE_SIZE);
    rest.all_pages(url, None).await
}

/// Adds a task.
pub async fn insert(
    rest: &Rest,
    title: &str,
    due: Option<NaiveDate>,
    notes: Option<&str>,
) -> Result<Task, Error> {
    if title.trim().is_empty() {
        return Err(Error::Input("a task needs a title".into()));
    }
    let mut body = Map::new();
    body.insert("title".into(), json!(title));
    if let Some(d) = due {
        body.insert("due".into(), json!(due_field(d)));
    }
    if let Some(n) = notes {
        body.insert("notes".into(), json!(n));
    }
    rest.send(Method::POST, tasks_url(rest), &Value::Object(body))
        .await
}

/// One task.
pub async fn get(rest: &Rest, id: &str) -> Result<Task, Error> {
    rest.get(task_url(rest, id)).await
}

/// Marks a task completed; answers the task as it now is.
pub async fn complete(rest: &Rest, id: &str) -> Result<Task, Error> {
    rest.send(
        Method::PATCH,
        task_url(rest, id),
        &json!({"status": "completed"}),
    )
    .await
}

/// Changes a task's title, due date or notes (at least one).
pub async fn update(
    rest: &Rest,
    id: &str,
    title: Option<&str>,
    due: Option<NaiveDate>,
    notes: Option<&str>,
) -> Result<Task, Error> {
    let mut body = Map::new();
    if let Some(t) = title {
        body.insert("title".into(), json!(t));
    }
    if let Some(d) = due {
        body.insert("due".into(), json!(due_field(d)));
    }
    if let Some(n) = notes {
        body.insert("notes".into(), json!(n));
    }
    if body.is_empty() {
        return Err(Error::Input(
            "provide at least one of --title, --due, --notes".into(),
        ));
    }
    rest.send(Method::PATCH, task_url(rest, id), &Value::Object(body))
        .await
}

/// Deletes a task.
pub async fn delete(rest: &Rest, id: &str) -> Result<(), Error> {
    rest.delete(task_url(rest, id)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_match_the_originals_columns() {
        let open = Task {
            id: "MTIz".into(),
            title: "Buy milk".into(),
            notes: None,
            status: Some("needsAction".into()),
            due: Some("2026-02-24T00:00:00.000Z".into()),
        };
        assert_eq!(open.line(), "  MTIz  2026-02-24    [ ]  Buy milk");
        let done = Task {
            due: None,
            status: Some("completed".into()),
            ..open
        };
        assert_eq!(done.line(), "  MTIz  (no due)      [x]  Buy milk");
    }

    #[test]
    fn due_dates_are_checked_and_stored_at_utc_midnight() {
        assert_eq!(
            due_field(parse_due("2026-02-24").unwrap()),
            "2026-02-24T00:00:00.000Z"
        );
        for bad in ["2026-02-30", "tomorrow", "24/02/2026", ""] {
            assert!(parse_due(bad).is_err(), "{bad}");
        }
    }
}
