//! Onboarding (SPEC §17): `/setup` and the first greeting's "Get started — 3 questions" button.
//!
//! Setup is a turn of the conversation: the surface sends the setup prompt
//! (`config/prompts/setup.md`, with what the bot can see of the set-up filled in) as a line
//! of the owner's, and the agent leads the rest — the fast path or the full walkthrough, the
//! names through `update_names`, the morning routine through `ollim-bot routine add`, and the
//! Google pointer.

use chrono::{DateTime, Utc};

use crate::agent::system_prompt::sections::fill;
use crate::agent::system_prompt::{IDENTITY_FILE, USER_FILE};
use crate::base::data_dir::DataDir;

/// The custom id of the first greeting's setup button.
pub const SETUP_BUTTON_ID: &str = "setup:start";

/// The setup button's label.
pub const SETUP_BUTTON_LABEL: &str = "Get started — 3 questions";

/// What the console shows under the first greeting instead of a button.
pub const CONSOLE_SETUP_HINT: &str = "-# get started — 3 questions: type /setup";

/// What the owner sees when setup starts.
pub const SETUP_STARTED: &str = "-# starting setup…";

const TEMPLATE: &str = include_str!("../../../config/prompts/setup.md");

/// Who is who, for the prompt.
#[derive(Debug, Clone, Copy)]
pub struct SetupNames<'a> {
    /// The owner's name.
    pub user: &'a str,
    /// The bot's name.
    pub bot: &'a str,
}

/// A profile file's state, in words.
fn file_state(data: &DataDir, name: &str) -> String {
    match std::fs::read_to_string(data.root().join(name)) {
        Ok(text) if text.trim().is_empty() => format!("- {name}: empty"),
        Ok(text) => format!("- {name}: {} lines", text.lines().count()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => format!("- {name}: not written yet"),
        Err(e) => format!("- {name}: unreadable ({e})"),
    }
}

/// Google's state, in words, from the files alone.
fn google_state(data: &DataDir, now: DateTime<Utc>) -> &'static str {
    use crate::google::Connection;
    match crate::google::connection(data, now) {
        Connection::Connected { .. } => "- Google: connected",
        Connection::NotConnected | Connection::Broken(_) => {
            "- Google: a client file is there, but Google is not connected"
        }
        Connection::NoClientFile => "- Google: not set up",
    }
}

/// The setup prompt for this data directory as it is now.
pub fn setup_prompt(data: &DataDir, names: SetupNames<'_>, now: DateTime<Utc>) -> String {
    let state = [
        format!("- names: {} (owner), {} (you)", names.user, names.bot),
        file_state(data, IDENTITY_FILE),
        file_state(data, USER_FILE),
        google_state(data, now).to_owned(),
    ]
    .join("\n");
    fill(
        TEMPLATE,
        &[
            ("USER_NAME", names.user),
            ("BOT_NAME", names.bot),
            ("SETUP_STATE", &state),
        ],
    )
    .trim_end()
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_says_what_is_set_up_and_how_to_go_on() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        std::fs::write(tmp.path().join(USER_FILE), "I work nights.\nI like cats.\n").unwrap();
        let text = setup_prompt(
            &data,
            SetupNames {
                user: "Sam",
                bot: "Ollie",
            },
            Utc::now(),
        );
        assert!(
            text.starts_with("[setup] Sam asked to set Ollie up"),
            "{text}"
        );
        assert!(text.contains("- names: Sam (owner), Ollie (you)"), "{text}");
        assert!(text.contains("- IDENTITY.md: not written yet"), "{text}");
        assert!(text.contains("- USER.md: 2 lines"), "{text}");
        assert!(text.contains("- Google: not set up"), "{text}");
        for step in [
            "update_names",
            "ollim-bot routine add",
            "/google-auth",
            "/restart",
        ] {
            assert!(text.contains(step), "{step} in {text}");
        }
        assert!(!text.contains('{'), "every placeholder filled: {text}");
    }
}
