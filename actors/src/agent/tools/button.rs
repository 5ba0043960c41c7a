//! Buttons the agent puts under an embed (SPEC §10): what the agent's `action` string means, the
//! persistent Discord custom id `act:<action>:<data>` a button carries, and the reverse, which the
//! surfaces use when a button is clicked (also after a restart).
//!
//! Custom ids follow the original's scheme: `act:task_done:<id>`, `act:task_del:<id>`,
//! `act:event_del:<id>` (the id may be `<list_id>/<task_id>` or `<calendar_id>/<event_id>`,
//! which `google::account::GoogleClick` splits), `act:agent:<inquiry id>` (the prompt itself lives in
//! `sessions::Inquiries`), `act:dismiss:_`, and the fork-entry buttons `act:fork_save:_`,
//! `act:fork_report:_`, `act:fork_exit:_`; *(ours)* the snooze buttons `act:snooze_15m:<id>`,
//! `act:snooze_1h:<id>`, `act:snooze_tomorrow:<id>` (the reminder lives in
//! `sessions::Snoozes`), and the delete question's `act:del_yes:<token>`, `act:del_keep:<token>`
//! (`google::confirm`), which only the bot puts on messages.

use std::fmt;

use crate::records::snooze::SnoozeChoice;

/// The prefix every button custom id starts with.
pub const CUSTOM_ID_PREFIX: &str = "act:";
/// Discord's limit on a custom id's length.
pub const MAX_CUSTOM_ID_CHARS: usize = 100;
/// Discord's limit on a button label's length.
pub const MAX_LABEL_CHARS: usize = 80;
/// The data part of a custom id whose action carries none.
const NO_DATA: &str = "_";

/// How a button looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ButtonStyle {
    /// Blurple.
    Primary,
    /// Grey (the default, as in the original).
    #[default]
    Secondary,
    /// Green.
    Success,
    /// Red.
    Danger,
}

impl ButtonStyle {
    /// The agent-facing spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ButtonStyle::Primary => "primary",
            ButtonStyle::Secondary => "secondary",
            ButtonStyle::Success => "success",
            ButtonStyle::Danger => "danger",
        }
    }

    /// Reads the agent's spelling; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "primary" => Some(ButtonStyle::Primary),
            "secondary" => Some(ButtonStyle::Secondary),
            "success" => Some(ButtonStyle::Success),
            "danger" => Some(ButtonStyle::Danger),
            _ => None,
        }
    }
}

/// What clicking a button the agent made does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ButtonAction {
    /// Complete the Google task with this id.
    TaskDone(String),
    /// Delete the Google task with this id.
    TaskDel(String),
    /// Delete the calendar event with this id.
    EventDel(String),
    /// Send this prompt to the agent (stored as an inquiry; the custom id carries its id).
    Agent(String),
    /// Remove the message.
    Dismiss,
}

/// Why an agent's `action` string was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// Not one of the known forms.
    #[error("unknown button action {0:?}: use task_done:<task_id>, task_del:<task_id>, event_del:<event_id> (or event_del:<calendar_id>/<event_id>, task_done:<list_id>/<task_id>), agent:<prompt> or dismiss")]
    Unknown(String),
    /// A known form with nothing after the colon.
    #[error("button action {0:?} needs a value after the colon")]
    Empty(String),
    /// An id too long to fit in Discord's custom id.
    #[error("button action {0:?} is too long: ids must fit in a {MAX_CUSTOM_ID_CHARS}-character custom id")]
    TooLong(String),
}

impl ButtonAction {
    /// Reads the agent's `action` string (`task_done:<id>`, `task_del:<id>`, `event_del:<id>`,
    /// `agent:<prompt>`, `dismiss`).
    pub fn parse(action: &str) -> Result<Self, ActionError> {
        if action.trim() == "dismiss" {
            return Ok(ButtonAction::Dismiss);
        }
        let Some((kind, value)) = action.trim_start().split_once(':') else {
            return Err(ActionError::Unknown(action.to_owned()));
        };
        let build: fn(String) -> ButtonAction = match kind {
            "task_done" => ButtonAction::TaskDone,
            "task_del" => ButtonAction::TaskDel,
            "event_del" => ButtonAction::EventDel,
            "agent" => ButtonAction::Agent,
            _ => return Err(ActionError::Unknown(action.to_owned())),
        };
        let value = value.trim();
        if value.is_empty() {
            return Err(ActionError::Empty(action.to_owned()));
        }
        let parsed = build(value.to_owned());
        // An agent prompt lives in the inquiries file, so only ids must fit in the custom id.
        if !matches!(parsed, ButtonAction::Agent(_))
            && parsed.custom_id(None).chars().count() > MAX_CUSTOM_ID_CHARS
        {
            return Err(ActionError::TooLong(action.to_owned()));
        }
        Ok(parsed)
    }

    /// Reads a clicked button's custom id (the reverse of [`ButtonAction::custom_id`], plus the
    /// fork-entry buttons); the same as [`ButtonClick::parse`].
    pub fn parse_custom_id(custom_id: &str) -> Option<ButtonClick> {
        ButtonClick::parse(custom_id)
    }

    /// The prompt an agent button sends, which the backend registers as an inquiry.
    pub fn agent_prompt(&self) -> Option<&str> {
        match self {
            ButtonAction::Agent(prompt) => Some(prompt),
            _ => None,
        }
    }

    /// The persistent custom id. `inquiry_id` is the id under which an agent button's prompt
    /// was registered; an agent button without one gets `act:agent:_`, which a click reports
    /// as expired.
    pub fn custom_id(&self, inquiry_id: Option<&str>) -> String {
        let click = match self {
            ButtonAction::TaskDone(id) => ButtonClick::TaskDone(id.clone()),
            ButtonAction::TaskDel(id) => ButtonClick::TaskDel(id.clone()),
            ButtonAction::EventDel(id) => ButtonClick::EventDel(id.clone()),
            ButtonAction::Agent(_) => ButtonClick::Agent {
                inquiry_id: inquiry_id.unwrap_or(NO_DATA).to_owned(),
            },
            ButtonAction::Dismiss => ButtonClick::Dismiss,
        };
        click.custom_id()
    }
}

impl fmt::Display for ButtonAction {
    /// The agent's spelling, as [`ButtonAction::parse`] reads it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ButtonAction::TaskDone(id) => write!(f, "task_done:{id}"),
            ButtonAction::TaskDel(id) => write!(f, "task_del:{id}"),
            ButtonAction::EventDel(id) => write!(f, "event_del:{id}"),
            ButtonAction::Agent(prompt) => write!(f, "agent:{prompt}"),
            ButtonAction::Dismiss => f.write_str("dismiss"),
        }
    }
}

/// A button the agent asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Button {
    /// The text on it.
    pub label: String,
    /// How it looks.
    pub style: ButtonStyle,
    /// What clicking it does.
    pub action: ButtonAction,
}

/// What a clicked button's custom id asks for: the surfaces' side of [`ButtonAction`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ButtonClick {
    /// Complete this Google task.
    TaskDone(String),
    /// Delete this Google task.
    TaskDel(String),
    /// Delete this calendar event.
    EventDel(String),
    /// Run the prompt stored under this inquiry id.
    Agent {
        /// The key in `state/inquiries.json`.
        inquiry_id: String,
    },
    /// Remove the message.
    Dismiss,
    /// Fork-entry button: promote the fork to the main session.
    ForkSave,
    /// Fork-entry button: report a summary and discard the fork.
    ForkReport,
    /// Fork-entry button: discard the fork.
    ForkExit,
    /// The save confirmation's Confirm: promote the fork if saving is still safe.
    ForkConfirmSave,
    /// *(ours)* A snooze button under a ping or a reminder's answer.
    Snooze {
        /// Which of the three.
        choice: SnoozeChoice,
        /// The key in `state/snoozes.json`.
        id: String,
    },
    /// *(ours, SPEC §20)* Delete: the owner confirms the deletion asked under this token.
    DeleteYes(String),
    /// *(ours, SPEC §20)* Keep: the owner declines it.
    DeleteKeep(String),
}

impl ButtonClick {
    /// Reads a custom id `act:<action>:<data>`; `None` when it is not one of ours.
    pub fn parse(custom_id: &str) -> Option<Self> {
        let rest = custom_id.strip_prefix(CUSTOM_ID_PREFIX)?;
        let (action, data) = rest.split_once(':')?;
        if data.is_empty() || data.contains('\n') {
            return None;
        }
        let data = data.to_owned();
        Some(match action {
            "task_done" => ButtonClick::TaskDone(data),
            "task_del" => ButtonClick::TaskDel(data),
            "event_del" => ButtonClick::EventDel(data),
            "agent" => ButtonClick::Agent { inquiry_id: data },
            "dismiss" => ButtonClick::Dismiss,
            "fork_save" => ButtonClick::ForkSave,
            "fork_report" => ButtonClick::ForkReport,
            "fork_exit" => ButtonClick::ForkExit,
            "fork_confirm_save" => ButtonClick::ForkConfirmSave,
            "del_yes" => ButtonClick::DeleteYes(data),
            "del_keep" => ButtonClick::DeleteKeep(data),
            other => ButtonClick::Snooze {
                choice: SnoozeChoice::from_action(other)?,
                id: data,
            },
        })
    }

    /// The custom id a button doing this carries.
    pub fn custom_id(&self) -> String {
        let (action, data) = match self {
            ButtonClick::TaskDone(id) => ("task_done", id.as_str()),
            ButtonClick::TaskDel(id) => ("task_del", id.as_str()),
            ButtonClick::EventDel(id) => ("event_del", id.as_str()),
            ButtonClick::Agent { inquiry_id } => ("agent", inquiry_id.as_str()),
            ButtonClick::Dismiss => ("dismiss", NO_DATA),
            ButtonClick::ForkSave => ("fork_save", NO_DATA),
            ButtonClick::ForkReport => ("fork_report", NO_DATA),
            ButtonClick::ForkExit => ("fork_exit", NO_DATA),
            ButtonClick::ForkConfirmSave => ("fork_confirm_save", NO_DATA),
            ButtonClick::Snooze { choice, id } => (choice.action(), id.as_str()),
            ButtonClick::DeleteYes(token) => ("del_yes", token.as_str()),
            ButtonClick::DeleteKeep(token) => ("del_keep", token.as_str()),
        };
        format!("{CUSTOM_ID_PREFIX}{action}:{data}")
    }
}

#[cfg(test)]
#[path = "button_tests.rs"]
mod tests;
