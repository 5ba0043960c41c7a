//! The command a person types in their own shell to run this program, for the hints the bot
//! prints ("run `ollim-bot auth login`"). That is `ollim-bot` only when their `PATH` finds this
//! very program there; after `make run`, before `make install`, or beside the Python original's
//! `ollim-bot`, it is the executable's own path. The binary decides it once at start
//! ([`set`]); until then, and in tests of this crate, it is [`NAME`].

use std::sync::OnceLock;

/// The program's name on `PATH`.
pub const NAME: &str = "ollim-bot";

static COMMAND: OnceLock<String> = OnceLock::new();

/// Sets the command for the life of the process; a second call changes nothing.
pub fn set(command: String) {
    let _ = COMMAND.set(command);
}

/// The command that runs this program from the owner's shell.
pub fn command() -> &'static str {
    COMMAND.get().map_or(NAME, String::as_str)
}

/// `text` with each command quoted as `` `ollim-bot …` `` naming [`command`] instead.
pub fn in_text(text: &str) -> String {
    in_text_with(text, command())
}

fn in_text_with(text: &str, command: &str) -> String {
    text.replace(&format!("`{NAME} "), &format!("`{command} "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_commands_name_the_command_and_other_mentions_stay() {
        assert_eq!(
            in_text_with(
                "run `ollim-bot auth login`, then start ollim-bot again (`ollim-bot doctor`)",
                "/opt/bot/ollim-bot"
            ),
            "run `/opt/bot/ollim-bot auth login`, then start ollim-bot again \
             (`/opt/bot/ollim-bot doctor`)"
        );
        assert_eq!(in_text("`ollim-bot help`"), "`ollim-bot help`");
    }
}
