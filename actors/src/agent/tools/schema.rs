//! The tools of the `discord` MCP server as the model sees them (SPEC §10, §16): their names,
//! descriptions (our own words) and JSON Schemas.

use serde_json::{json, Value};

use crate::claude::brain::mcp::ToolSpec;

use super::embed::{EmbedColor, MAX_BUTTONS};

/// The name the CLI addresses this server by; tools appear as `mcp__discord__<tool>`.
pub const SERVER_NAME: &str = "discord";

/// The idle timeout `enter_fork` uses when the model gives none, in minutes.
pub const DEFAULT_FORK_IDLE_TIMEOUT_MINUTES: u32 = 10;

/// One of the server's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolName {
    /// Rich message with optional buttons.
    DiscordEmbed,
    /// Plain alert from a background fork.
    PingUser,
    /// Schedule the next check of a chain reminder.
    FollowUpChain,
    /// Promote an interactive fork to the main session.
    SaveContext,
    /// Pass a summary to the main session (and end an interactive fork).
    ReportUpdates,
    /// Start an interactive fork.
    EnterFork,
    /// Discard an interactive fork.
    ExitFork,
    /// Schedule a one-shot reminder (a file in `reminders/`).
    AddReminder,
    /// List the pending reminders.
    ListReminders,
    /// Cancel a pending reminder.
    CancelReminder,
    /// Send a file to the user's DM.
    SendFile,
    /// Change the user's and the bot's names in `.env` (after `/restart`).
    UpdateNames,
}

impl ToolName {
    /// Every tool: the original's seven in its order, then those of its later version.
    pub const ALL: [ToolName; 12] = [
        ToolName::DiscordEmbed,
        ToolName::PingUser,
        ToolName::FollowUpChain,
        ToolName::SaveContext,
        ToolName::ReportUpdates,
        ToolName::EnterFork,
        ToolName::ExitFork,
        ToolName::AddReminder,
        ToolName::ListReminders,
        ToolName::CancelReminder,
        ToolName::SendFile,
        ToolName::UpdateNames,
    ];

    /// The unprefixed tool name.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::DiscordEmbed => "discord_embed",
            ToolName::PingUser => "ping_user",
            ToolName::FollowUpChain => "follow_up_chain",
            ToolName::SaveContext => "save_context",
            ToolName::ReportUpdates => "report_updates",
            ToolName::EnterFork => "enter_fork",
            ToolName::ExitFork => "exit_fork",
            ToolName::AddReminder => "add_reminder",
            ToolName::ListReminders => "list_reminders",
            ToolName::CancelReminder => "cancel_reminder",
            ToolName::SendFile => "send_file",
            ToolName::UpdateNames => "update_names",
        }
    }

    /// Reads an unprefixed tool name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|tool| tool.as_str() == name)
    }

    /// The name in permission rules and allowed-tool lists (`mcp__discord__ping_user`).
    pub fn qualified(self) -> String {
        format!("mcp__{SERVER_NAME}__{}", self.as_str())
    }

    /// The tool as listed to the model.
    pub fn spec(self) -> ToolSpec {
        ToolSpec {
            name: self.as_str().to_owned(),
            description: self.description().to_owned(),
            input_schema: self.input_schema(),
        }
    }

    fn description(self) -> &'static str {
        match self {
            ToolName::DiscordEmbed => {
                "Sends a rich embed (title, text, fields, up to 5 action buttons) to the user's \
                 DM."
            }
            ToolName::PingUser => {
                "Sends the user a short plain-text alert when something needs their attention \
                 and an embed would be overkill."
            }
            ToolName::FollowUpChain => {
                "For follow-up chain reminders: schedules the next check of this reminder \
                 minutes_from_now minutes from now. If nothing needs another look, do not call \
                 it and the chain ends here."
            }
            ToolName::SaveContext => {
                "Asks the user to confirm making this fork the main session from now on; \
                 nothing is saved unless they click Confirm. Refused when the main session moved \
                 on or background updates arrived since the fork started, and in resumed forks."
            }
            ToolName::ReportUpdates => {
                "Passes a short summary to the main session, which sees it with the user's next \
                 message. An interactive fork is discarded afterwards."
            }
            ToolName::EnterFork => {
                "Starts an interactive fork, a branch of the main conversation. End it with \
                 report_updates, exit_fork or save_context."
            }
            ToolName::ExitFork => {
                "Ends the current interactive fork and throws it away; the main session carries \
                 on as before."
            }
            ToolName::AddReminder => {
                "Schedules a one-shot reminder: when it comes due, `prompt` runs as your own \
                 instruction — in a background fork by default (it reaches the user only through \
                 ping_user or discord_embed), or in the conversation with foreground=true. Give \
                 either delay_minutes or run_at (ISO 8601; without an offset it is the user's \
                 local time). max_chain lets the reminder follow itself up with follow_up_chain."
            }
            ToolName::ListReminders => {
                "Lists the pending reminders: id, when each fires, where it runs, and its \
                 description or prompt."
            }
            ToolName::CancelReminder => {
                "Cancels a pending reminder by its id (see list_reminders)."
            }
            ToolName::SendFile => {
                "Sends a file from disk to the user's DM as an attachment (at most 25 MB), with \
                 an optional message. Background tasks may send only files inside the data \
                 directory, only when pinging is allowed, and within the ping budget unless \
                 critical."
            }
            ToolName::UpdateNames => {
                "Saves the user's and your display names \
                 (OLLIM_USER_NAME, OLLIM_BOT_NAME) in the bot's .env file. The new names apply \
                 after /restart: suggest it to the user."
            }
        }
    }

    fn input_schema(self) -> Value {
        let critical = json!({
            "type": "boolean",
            "description": "Only for alerts the user would be truly upset to miss: skips the \
                            ping budget and the busy check",
        });
        match self {
            ToolName::DiscordEmbed => json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string", "description": "Heading (emoji are removed)"},
                    "description": {"type": "string", "description": "Body text"},
                    "color": {
                        "type": "string",
                        "enum": EmbedColor::ALL.map(EmbedColor::as_str),
                        "description": "blue = info (default), green = success, red = urgent, \
                                        yellow = warning, purple = other",
                    },
                    "fields": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string", "description": "Heading (emoji are removed)"},
                                "value": {"type": "string"},
                                "inline": {"type": "boolean", "description": "Default true"},
                            },
                            "required": ["name", "value"],
                        },
                    },
                    "buttons": {
                        "type": "array",
                        "maxItems": MAX_BUTTONS,
                        "items": {
                            "type": "object",
                            "properties": {
                                "label": {
                                    "type": "string",
                                    "description": "Text on the button; say 'Close' rather \
                                                    than 'Dismiss' for a button that removes \
                                                    the message",
                                },
                                "style": {
                                    "type": "string",
                                    "enum": ["primary", "secondary", "success", "danger"],
                                    "description": "Default secondary",
                                },
                                "action": {
                                    "type": "string",
                                    "description": "task_done:<task_id>, task_del:<task_id>, \
                                                    event_del:<event_id>, agent:<prompt to run \
                                                    when clicked>, or dismiss; an event on \
                                                    another calendar is \
                                                    event_del:<calendar_id>/<event_id>, a task \
                                                    on another list \
                                                    task_done:<list_id>/<task_id> or \
                                                    task_del:<list_id>/<task_id>",
                                },
                            },
                            "required": ["label", "action"],
                        },
                    },
                    "critical": critical,
                },
                "required": ["title"],
            }),
            ToolName::PingUser => json!({
                "type": "object",
                "properties": {
                    "message": {"type": "string", "description": "What to tell the user"},
                    "critical": critical,
                },
                "required": ["message"],
            }),
            ToolName::FollowUpChain => json!({
                "type": "object",
                "properties": {
                    "minutes_from_now": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Minutes until the next check",
                    },
                },
                "required": ["minutes_from_now"],
            }),
            ToolName::ReportUpdates => json!({
                "type": "object",
                "properties": {
                    "message": {
                        "type": "string",
                        "description": "A short summary of what was found or done",
                    },
                },
                "required": ["message"],
            }),
            ToolName::EnterFork => json!({
                "type": "object",
                "properties": {
                    "topic": {"type": "string", "description": "What the fork is about (optional)"},
                    "idle_timeout": {
                        "type": "integer",
                        "minimum": 1,
                        "description": format!(
                            "Minutes of silence before the fork is nudged to wrap up (default \
                             {DEFAULT_FORK_IDLE_TIMEOUT_MINUTES})"
                        ),
                    },
                },
            }),
            ToolName::AddReminder => json!({
                "type": "object",
                "properties": {
                    "prompt": {
                        "type": "string",
                        "description": "The instruction you receive when the reminder fires",
                    },
                    "delay_minutes": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "Fire this many minutes from now",
                    },
                    "run_at": {
                        "type": "string",
                        "description": "Fire at this time: 2026-03-02T15:30 (local time) or \
                                        with an offset, 2026-03-02T15:30:00+01:00",
                    },
                    "description": {
                        "type": "string",
                        "description": "Short summary shown in listings",
                    },
                    "foreground": {
                        "type": "boolean",
                        "description": "Run in the conversation instead of a background fork \
                                        (default false)",
                    },
                    "max_chain": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "How many follow-up checks follow_up_chain may add \
                                        (default 0)",
                    },
                },
                "required": ["prompt"],
            }),
            ToolName::CancelReminder => json!({
                "type": "object",
                "properties": {
                    "reminder_id": {"type": "string", "description": "The reminder's id"},
                },
                "required": ["reminder_id"],
            }),
            ToolName::SendFile => json!({
                "type": "object",
                "properties": {
                    "file_path": {
                        "type": "string",
                        "description": "The file: absolute, `~/...`, or relative to the data \
                                        directory",
                    },
                    "message": {"type": "string", "description": "Text sent with the file"},
                    "critical": critical,
                },
                "required": ["file_path"],
            }),
            ToolName::UpdateNames => json!({
                "type": "object",
                "properties": {
                    "user_name": {"type": "string", "description": "What to call the user"},
                    "bot_name": {"type": "string", "description": "Your own name"},
                },
                "required": ["user_name", "bot_name"],
            }),
            ToolName::SaveContext | ToolName::ExitFork | ToolName::ListReminders => {
                json!({"type": "object", "properties": {}})
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_qualify_with_the_server() {
        for tool in ToolName::ALL {
            assert_eq!(ToolName::parse(tool.as_str()), Some(tool));
            assert_eq!(tool.qualified(), format!("mcp__discord__{}", tool.as_str()));
        }
        assert_eq!(ToolName::parse("mcp__discord__ping_user"), None);
    }

    #[test]
    fn every_schema_is_an_object_whose_required_keys_are_properties() {
        for tool in ToolName::ALL {
            let spec = tool.spec();
            assert_eq!(spec.name, tool.as_str());
            assert!(!spec.description.is_empty());
            assert_eq!(spec.input_schema["type"], "object", "{}", spec.name);
            let properties = spec.input_schema["properties"].as_object().unwrap();
            for key in spec.input_schema["required"]
                .as_array()
                .into_iter()
                .flatten()
            {
                assert!(
                    properties.contains_key(key.as_str().unwrap()),
                    "{}",
                    spec.name
                );
            }
        }
    }

    #[test]
    fn required_arguments_match_the_spec() {
        let required = |tool: ToolName| tool.spec().input_schema["required"].clone();
        assert_eq!(required(ToolName::DiscordEmbed), json!(["title"]));
        assert_eq!(required(ToolName::PingUser), json!(["message"]));
        assert_eq!(
            required(ToolName::FollowUpChain),
            json!(["minutes_from_now"])
        );
        assert_eq!(required(ToolName::ReportUpdates), json!(["message"]));
        assert_eq!(required(ToolName::EnterFork), Value::Null);
        assert_eq!(required(ToolName::SaveContext), Value::Null);
        assert_eq!(required(ToolName::AddReminder), json!(["prompt"]));
        assert_eq!(required(ToolName::CancelReminder), json!(["reminder_id"]));
        assert_eq!(required(ToolName::SendFile), json!(["file_path"]));
        assert_eq!(required(ToolName::ListReminders), Value::Null);
    }

    #[test]
    fn embed_schema_offers_the_five_colours_and_caps_buttons() {
        let schema = ToolName::DiscordEmbed.spec().input_schema;
        assert_eq!(
            schema["properties"]["color"]["enum"],
            json!(["blue", "green", "red", "yellow", "purple"])
        );
        assert_eq!(schema["properties"]["buttons"]["maxItems"], 5);
    }
}
