//! Deleting asks the owner first (SPEC §20): a task or calendar event is deleted only after the
//! owner clicks **Delete** on a two-button question ("Delete 'Dentist' (Fri 10:00)?" Delete /
//! Keep). The agent's `ollim-bot tasks delete` / `cal delete` in the conversation ask through the
//! control socket, the owner's own `task_del:` / `event_del:` buttons ask the same way; a model
//! cannot click a button. The questions wait in the `GoogleAccount` actor's memory under a
//! random token for [`QUESTION_TTL`]; Keep, expiry or a restart deletes nothing.

use std::time::Duration;

use actix::prelude::*;
use serde::{Deserialize, Serialize};

use super::access::Api;
use super::account::GoogleAccount;
use super::calendar::{self, PRIMARY};
use super::click::GoogleClick;
use super::error::Error;
use super::tasks;
use crate::agent::tools::{Button, ButtonAction, ButtonClick, ButtonStyle, Embed, EmbedColor};
use crate::conversation::surface::SurfaceEvent;
use crate::records::pending_updates::Append;

/// How long a question can be answered.
pub const QUESTION_TTL: Duration = Duration::from_secs(15 * 60);

/// The longest title shown in a question.
const MAX_TITLE_CHARS: usize = 100;

/// What the agent tells a background job that tries to delete.
pub const BACKGROUND_REFUSAL: &str = "background jobs cannot delete tasks or events: report it \
     instead (report_updates), and the owner decides in the conversation";

/// Something to delete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeleteTarget {
    /// A task, on this list (else the configured one).
    Task {
        /// The list.
        list: Option<String>,
        /// The task.
        id: String,
    },
    /// A calendar event, on this calendar (else `primary`).
    Event {
        /// The calendar.
        calendar: Option<String>,
        /// The event.
        id: String,
    },
}

impl DeleteTarget {
    /// The click that deletes it (no question asked: only for a confirmed question).
    pub(super) fn deletion(self) -> GoogleClick {
        match self {
            DeleteTarget::Task { list, id } => GoogleClick::TaskDel { list, id },
            DeleteTarget::Event { calendar, id } => GoogleClick::EventDel { calendar, id },
        }
    }

    /// How the question names it: `'Dentist' (Fri 10:00)`, `'Buy milk' (due 2026-07-01)`;
    /// fetched, so a missing item is an error before anyone is asked.
    pub(super) async fn describe(
        &self,
        api: &Api,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<String, Error> {
        let rest = api.rest(now).await?;
        Ok(match self {
            DeleteTarget::Task { list, id } => {
                let list = GoogleClick::task_list(list.clone(), api);
                let task = tasks::get(&rest, &list, id).await?;
                let due = task
                    .due
                    .as_deref()
                    .filter(|d| d.len() >= 10)
                    .map(|d| format!(" (due {})", &d[..10]))
                    .unwrap_or_default();
                format!("{}{due}", quoted(&task.title, id))
            }
            DeleteTarget::Event { calendar, id } => {
                let calendar = calendar.as_deref().unwrap_or(PRIMARY);
                let event = calendar::get(&rest, calendar, id).await?;
                let when = event
                    .start
                    .date_time
                    .as_deref()
                    .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                    .map(|t| t.format("%a %H:%M").to_string())
                    .or_else(|| {
                        let day = event.start.date.as_deref()?;
                        let day = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()?;
                        Some(day.format("%a %d %b").to_string())
                    })
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default();
                format!(
                    "{}{when}",
                    quoted(event.summary.as_deref().unwrap_or(""), id)
                )
            }
        })
    }
}

/// `'title'` (the id when there is none), cut to [`MAX_TITLE_CHARS`] on one line.
fn quoted(title: &str, id: &str) -> String {
    let title = if title.trim().is_empty() { id } else { title };
    let one_line: String = title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_TITLE_CHARS)
        .collect();
    format!("'{one_line}'")
}

/// A question waiting for the owner.
#[derive(Debug, Clone)]
pub(super) struct Question {
    pub(super) target: DeleteTarget,
    pub(super) label: String,
    pub(super) asked: chrono::DateTime<chrono::Utc>,
}

impl Question {
    /// True once it can no longer be answered.
    pub(super) fn expired(&self, now: chrono::DateTime<chrono::Utc>) -> bool {
        now.signed_duration_since(self.asked)
            .to_std()
            .is_ok_and(|age| age > QUESTION_TTL)
    }
}

/// The question as the surfaces show it: an embed titled `Delete 'Dentist' (Fri 10:00)?` with
/// Delete (`act:del_yes:<token>`) and Keep (`act:del_keep:<token>`).
pub(super) fn question(token: &str, label: &str) -> SurfaceEvent {
    let button = |label: &str, style| Button {
        label: label.to_owned(),
        style,
        // The surfaces use `button_ids`; the action is not the agent's to choose here.
        action: ButtonAction::Dismiss,
    };
    SurfaceEvent::Embed {
        embed: Embed {
            title: format!("Delete {label}?"),
            description: Some(format!(
                "nothing is deleted unless you click Delete · the question expires in {} min",
                QUESTION_TTL.as_secs() / 60
            )),
            color: EmbedColor::Red,
            fields: Vec::new(),
            buttons: vec![
                button("Delete", ButtonStyle::Danger),
                button("Keep", ButtonStyle::Secondary),
            ],
            footer: None,
        },
        button_ids: vec![
            ButtonClick::DeleteYes(token.to_owned()).custom_id(),
            ButtonClick::DeleteKeep(token.to_owned()).custom_id(),
        ],
        fork_session: None,
    }
}

/// *(the control socket, for the agent)* Ask the owner whether to delete this; answered with
/// the question's label (`'Dentist' (Fri 10:00)`), or why no question was asked (not found,
/// Google not connected).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<String, String>")]
pub struct AskDelete(pub DeleteTarget);

impl Handler<AskDelete> for GoogleAccount {
    type Result = ResponseActFuture<Self, Result<String, String>>;

    fn handle(&mut self, AskDelete(target): AskDelete, _ctx: &mut Self::Context) -> Self::Result {
        tracing::info!(?target, "the agent asked to delete");
        self.ask_owner(target)
    }
}

impl GoogleAccount {
    /// Looks `target` up and posts the Delete / Keep question; the label, or why not.
    pub(super) fn ask_owner(
        &mut self,
        target: DeleteTarget,
    ) -> ResponseActFuture<Self, Result<String, String>> {
        let (api, now) = (self.api.clone(), self.clock.now());
        let look_up = async move {
            let label = target.describe(&api, now).await;
            (target, label)
        };
        Box::pin(look_up.into_actor(self).map(|(target, label), act, _| {
            let label = label.map_err(|e| e.reason())?;
            let now = act.clock.now();
            act.questions.retain(|_, q| !q.expired(now));
            let token = uuid::Uuid::new_v4().simple().to_string()[..16].to_owned();
            act.surface.do_send(question(&token, &label));
            tracing::info!(%label, "asked the owner before deleting");
            act.questions.insert(
                token,
                Question {
                    target,
                    label: label.clone(),
                    asked: now,
                },
            );
            Ok(label)
        }))
    }

    /// The owner's answer to the question under `token`: Delete deletes (and tells the
    /// conversation through a pending update), Keep and an expired question delete nothing.
    pub(super) fn answer_question(
        &mut self,
        token: &str,
        delete: bool,
    ) -> ResponseActFuture<Self, String> {
        let now = self.clock.now();
        let Some(question) = self.questions.remove(token).filter(|q| !q.expired(now)) else {
            return Box::pin(fut::ready(
                "-# that question has expired — nothing was deleted.".to_owned(),
            ));
        };
        let (api, updates) = (self.api.clone(), self.updates.clone());
        let label = question.label.clone();
        let answer = async move {
            let (reply, update) = if !delete {
                (
                    format!("kept {label}."),
                    format!("User chose to keep {label} (not deleted)"),
                )
            } else {
                match question.target.deletion().run(&api, now).await {
                    Ok((_, update)) => (format!("deleted {label}."), update),
                    Err(e) => {
                        tracing::warn!(cause = %e, "a confirmed delete failed");
                        return format!("failed to delete {label}: {}", e.reason());
                    }
                }
            };
            if let Err(e) = updates.send(Append { message: update }).await {
                tracing::error!(cause = %e, "the pending-updates queue did not take the answer");
            }
            reply
        };
        Box::pin(answer.into_actor(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_names_the_item_and_carries_delete_and_keep() {
        let SurfaceEvent::Embed {
            embed, button_ids, ..
        } = question("t0k", "'Dentist' (Fri 10:00)")
        else {
            panic!("an embed");
        };
        assert_eq!(embed.title, "Delete 'Dentist' (Fri 10:00)?");
        let labels: Vec<&str> = embed.buttons.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(labels, ["Delete", "Keep"]);
        assert_eq!(button_ids, ["act:del_yes:t0k", "act:del_keep:t0k"]);
        assert_eq!(
            ButtonClick::parse(&button_ids[0]),
            Some(ButtonClick::DeleteYes("t0k".into()))
        );
    }

    #[test]
    fn titles_are_one_line_and_short() {
        assert_eq!(quoted("  a\n b ", "id1"), "'a b'");
        assert_eq!(quoted("", "id1"), "'id1'");
        assert_eq!(quoted(&"x".repeat(300), "i").chars().count(), 102);
    }
}
