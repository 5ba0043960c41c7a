//! `update_names` (SPEC §17, the original's later version): the user's and the bot's names
//! written to `.env` in the bot's working directory (the file it read at start), every other
//! line kept. They apply after `/restart`, which reads the environment again.

use serde_json::Value;

use super::arguments::{ArgumentError, Reader};
use super::{bad_arguments, DiscordTools, ToolName};
use crate::claude::brain::mcp::ToolOutput;

/// The longest name accepted.
const MAX_NAME_CHARS: usize = 64;

fn name<'a>(reader: &Reader<'a>, field: &str) -> Result<&'a str, ArgumentError> {
    let value = reader.text(field, MAX_NAME_CHARS)?.trim();
    if value.chars().any(char::is_control) {
        return Err(reader.invalid(field, "must be one line without control characters"));
    }
    Ok(value)
}

impl DiscordTools {
    pub(super) fn update_names(&self, arguments: &Value) -> ToolOutput {
        let names = Reader::top(ToolName::UpdateNames, arguments)
            .and_then(|r| Ok((name(&r, "user_name")?, name(&r, "bot_name")?)));
        let (user, bot) = match names {
            Ok(n) => n,
            Err(e) => return bad_arguments(e),
        };
        let path = match std::env::current_dir() {
            Ok(dir) => dir.join(".env"),
            Err(e) => {
                tracing::error!(cause = %e, "update_names: the working directory is unknown");
                return ToolOutput::error(format!("the bot's working directory is unknown: {e}"));
            }
        };
        match crate::base::env_file::set_vars(
            &path,
            &[("OLLIM_USER_NAME", user), ("OLLIM_BOT_NAME", bot)],
        ) {
            Ok(()) => {
                tracing::info!(file = %path.display(), "names saved");
                ToolOutput::ok(format!(
                    "Saved to {}: OLLIM_USER_NAME={user}, OLLIM_BOT_NAME={bot}. The new names \
                     take effect after /restart.",
                    path.display()
                ))
            }
            Err(e) => {
                tracing::error!(file = %path.display(), cause = %e, "update_names failed");
                ToolOutput::error(format!("the names could not be saved: {e}"))
            }
        }
    }
}
