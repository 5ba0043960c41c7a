//! What a Google button asks for, and doing it (SPEC §15, §17). A button's data is an id, or a
//! calendar or task-list id and the item's id joined by `/` (`event_del:<calendar_id>/<event_id>`,
//! `task_done:<list_id>/<task_id>`, `task_del:<list_id>/<task_id>`): split at the last `/`, as
//! Google's event and task ids never hold one. Without a calendar an event is on `primary`;
//! without a list a task is on the configured `google_task_list`.

use super::access::Api;
use super::calendar::{self, PRIMARY};
use super::error::Error;
use super::tasks;
use crate::agent::tools::ButtonClick;
use crate::records::runtime_config::google as targets;

/// A click on a Google button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoogleClick {
    /// Complete this task.
    TaskDone {
        /// The task list the button named, if any.
        list: Option<String>,
        /// The task.
        id: String,
    },
    /// Delete this task.
    TaskDel {
        /// The task list the button named, if any.
        list: Option<String>,
        /// The task.
        id: String,
    },
    /// Delete this calendar event.
    EventDel {
        /// The calendar the button named, if any.
        calendar: Option<String>,
        /// The event.
        id: String,
    },
    /// Delete on the question asked under this token ([`super::confirm`]).
    ConfirmDelete(String),
    /// Keep on the question asked under this token.
    KeepDelete(String),
}

/// `<container>/<id>` split at the last `/`; a bare id (or an empty side) has no container.
fn split(data: &str) -> (Option<String>, String) {
    match data.rsplit_once('/') {
        Some((container, id)) if !container.is_empty() && !id.is_empty() => {
            (Some(container.to_owned()), id.to_owned())
        }
        _ => (None, data.to_owned()),
    }
}

impl GoogleClick {
    /// The Google click a custom id carries, if it is one.
    pub fn from_custom_id(custom_id: &str) -> Option<Self> {
        Some(match ButtonClick::parse(custom_id)? {
            ButtonClick::TaskDone(data) => {
                let (list, id) = split(&data);
                GoogleClick::TaskDone { list, id }
            }
            ButtonClick::TaskDel(data) => {
                let (list, id) = split(&data);
                GoogleClick::TaskDel { list, id }
            }
            ButtonClick::EventDel(data) => {
                let (calendar, id) = split(&data);
                GoogleClick::EventDel { calendar, id }
            }
            ButtonClick::DeleteYes(token) => GoogleClick::ConfirmDelete(token),
            ButtonClick::DeleteKeep(token) => GoogleClick::KeepDelete(token),
            _ => return None,
        })
    }

    /// The task list a task button acts on: its own, else the configured one (the default
    /// list when the config cannot be read, with a warning).
    pub(super) fn task_list(list: Option<String>, api: &Api) -> String {
        list.unwrap_or_else(|| match targets::read_file(&api.paths().config) {
            Ok(t) => t.task_list().to_owned(),
            Err(why) => {
                tracing::warn!(%why, "the runtime config is unreadable; the task button uses @default");
                targets::DEFAULT_TASK_LIST.to_owned()
            }
        })
    }

    /// Calls the API; the answer and the pending update. A delete runs at once here: the
    /// account asks the owner first and calls this once they have confirmed.
    pub(super) async fn run(
        self,
        api: &Api,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<(String, String), Error> {
        let rest = api.rest(now).await?;
        let or_id = |name: &str, id: &str| {
            if name.is_empty() {
                id.to_owned()
            } else {
                name.to_owned()
            }
        };
        Ok(match self {
            GoogleClick::TaskDone { list, id } => {
                let list = Self::task_list(list, api);
                let task = tasks::complete(&rest, &list, &id).await?;
                let title = or_id(&task.title, &id);
                ("done ✓".into(), format!("User completed task \"{title}\""))
            }
            GoogleClick::TaskDel { list, id } => {
                let list = Self::task_list(list, api);
                let title = or_id(&tasks::get(&rest, &list, &id).await?.title, &id);
                tasks::delete(&rest, &list, &id).await?;
                ("deleted".into(), format!("User deleted task \"{title}\""))
            }
            GoogleClick::EventDel { calendar, id } => {
                let calendar = calendar.as_deref().unwrap_or(PRIMARY);
                let event = calendar::get(&rest, calendar, &id).await?;
                let summary = or_id(event.summary.as_deref().unwrap_or(""), &id);
                calendar::delete(&rest, calendar, &id).await?;
                (
                    "deleted".into(),
                    format!("User deleted calendar event \"{summary}\""),
                )
            }
            GoogleClick::ConfirmDelete(_) | GoogleClick::KeepDelete(_) => (
                "that question is not mine to answer here.".into(),
                String::new(),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_calendar_or_list_before_the_last_slash_is_read() {
        assert_eq!(
            GoogleClick::from_custom_id("act:event_del:work@example.com/ev1"),
            Some(GoogleClick::EventDel {
                calendar: Some("work@example.com".into()),
                id: "ev1".into()
            })
        );
        assert_eq!(
            GoogleClick::from_custom_id("act:event_del:ev1"),
            Some(GoogleClick::EventDel {
                calendar: None,
                id: "ev1".into()
            })
        );
        assert_eq!(
            GoogleClick::from_custom_id("act:task_done:MDc3/t1"),
            Some(GoogleClick::TaskDone {
                list: Some("MDc3".into()),
                id: "t1".into()
            })
        );
        assert_eq!(
            GoogleClick::from_custom_id("act:task_del:t1"),
            Some(GoogleClick::TaskDel {
                list: None,
                id: "t1".into()
            })
        );
        assert_eq!(
            GoogleClick::from_custom_id("act:task_del:/t1"),
            Some(GoogleClick::TaskDel {
                list: None,
                id: "/t1".into()
            }),
            "an empty side is no container"
        );
        assert_eq!(GoogleClick::from_custom_id("act:dismiss:_"), None);
    }
}
