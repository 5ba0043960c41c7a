//! Google Tasks in one task list (`/tasks/v1/lists/<list>/tasks`; `@default` is Google's alias
//! for the user's first list and the default of the `google_task_list` config key), and the
//! lines the agent reads (SPEC §15, §17): `  <id>  <due or "(no due)", padded to 12>  [x]|[ ]
//! <title>` with ` [+]` after the title of a task that has notes, `tasks show`'s labelled
//! lines, `added <id>: <due> -- <title>`, `no tasks`.

use chrono::NaiveDate;
use reqwest::Method;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::error::Error;
use super::rest::Rest;
use crate::agent::untrusted_fence::{block, one_line};

/// Longest title shown, in characters (SPEC §20: per-field caps).
pub const TITLE_CHARS: usize = 200;
/// Longest notes shown, in characters.
pub const NOTES_CHARS: usize = 2000;

/// Google's alias for the user's default task list.
pub const DEFAULT_LIST: &str = "@default";

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
        let due = self.due_date().unwrap_or_else(|| "(no due)".to_owned());
        let done = if self.status.as_deref() == Some("completed") {
            "[x]"
        } else {
            "[ ]"
        };
        let notes = if self.has_notes() { " [+]" } else { "" };
        format!(
            "  {}  {due:<12}  {done}  {}{notes}",
            self.id,
            one_line(&self.title, TITLE_CHARS)
        )
    }

    /// Whether the task carries notes worth opening (`tasks show`).
    pub fn has_notes(&self) -> bool {
        self.notes.as_deref().is_some_and(|n| !n.trim().is_empty())
    }

    /// The due date as `YYYY-MM-DD`, if any.
    fn due_date(&self) -> Option<String> {
        self.due
            .as_deref()
            .filter(|d| !d.is_empty())
            .map(|d| d.chars().take(10).collect())
    }

    /// `tasks show`: title, status, due date (`(no due)`), notes (left out when there are
    /// none; later lines indented under the first) and id, one labelled line each.
    pub fn details(&self) -> Vec<String> {
        let status = match self.status.as_deref() {
            Some("completed") => "completed",
            Some("needsAction") | None => "needs action",
            Some(other) => other,
        };
        let mut lines = vec![
            format!("title:     {}", one_line(&self.title, TITLE_CHARS)),
            format!("status:    {status}"),
        ];
        let due = self.due_date().unwrap_or_else(|| "(no due)".to_owned());
        lines.push(format!("due:       {due}"));
        if let Some(notes) = self.notes.as_deref().filter(|n| !n.trim().is_empty()) {
            let indented = block(notes.trim_end(), NOTES_CHARS).replace('\n', "\n           ");
            lines.push(format!("notes:     {indented}"));
        }
        lines.push(format!("id:        {}", self.id));
        lines
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

fn tasks_url(rest: &Rest, list: &str) -> url::Url {
    rest.url(&["tasks", "v1", "lists", list, "tasks"])
}

fn task_url(rest: &Rest, list: &str, id: &str) -> url::Url {
    rest.url(&["tasks", "v1", "lists", list, "tasks", id])
}

/// Open tasks of `list`, or with `all` completed and hidden ones too; every page.
pub async fn list(rest: &Rest, list: &str, all: bool) -> Result<Vec<Task>, Error> {
    let mut url = tasks_url(rest, list);
    url.query_pairs_mut()
        .append_pair("showCompleted", if all { "true" } else { "false" })
        .append_pair("showHidden", if all { "true" } else { "false" })
        .append_pair("maxResults", PAGE_SIZE);
    rest.all_pages(url, None).await
}

/// Adds a task to `list`.
pub async fn insert(
    rest: &Rest,
    list: &str,
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
    rest.send(Method::POST, tasks_url(rest, list), &Value::Object(body))
        .await
}

/// One task of `list`.
pub async fn get(rest: &Rest, list: &str, id: &str) -> Result<Task, Error> {
    rest.get(task_url(rest, list, id)).await
}

/// Marks a task of `list` completed; answers the task as it now is.
pub async fn complete(rest: &Rest, list: &str, id: &str) -> Result<Task, Error> {
    rest.send(
        Method::PATCH,
        task_url(rest, list, id),
        &json!({"status": "completed"}),
    )
    .await
}

/// Changes a task's title, due date or notes (at least one).
pub async fn update(
    rest: &Rest,
    list: &str,
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
    rest.send(
        Method::PATCH,
        task_url(rest, list, id),
        &Value::Object(body),
    )
    .await
}

/// Deletes a task of `list`.
pub async fn delete(rest: &Rest, list: &str, id: &str) -> Result<(), Error> {
    rest.delete(task_url(rest, list, id)).await
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
    fn a_task_with_notes_is_marked_and_shown_in_full() {
        let task = Task {
            id: "abc123".into(),
            title: "Buy groceries".into(),
            notes: Some("Milk, eggs, bread\nand coffee".into()),
            status: Some("needsAction".into()),
            due: Some("2026-03-01T00:00:00.000Z".into()),
        };
        assert_eq!(
            task.line(),
            "  abc123  2026-03-01    [ ]  Buy groceries [+]"
        );
        assert_eq!(
            task.details(),
            [
                "title:     Buy groceries",
                "status:    needs action",
                "due:       2026-03-01",
                "notes:     Milk, eggs, bread\n           and coffee",
                "id:        abc123",
            ]
        );
        let blank = Task {
            notes: Some("  ".into()),
            due: None,
            status: Some("completed".into()),
            ..task
        };
        assert!(!blank.line().contains("[+]"));
        assert_eq!(
            blank.details(),
            [
                "title:     Buy groceries",
                "status:    completed",
                "due:       (no due)",
                "id:        abc123"
            ]
        );
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
