//! Bash when no OS sandbox is in force: one coarse reading of the command's text (SPEC §20).
//!
//! With the sandbox in force (the usual case: `sandbox: auto` on a machine with bubblewrap and
//! socat, or `on`) the kernel decides what a Bash command reads, writes and reaches, and nothing
//! here runs. Without it — the owner chose `off`, or `auto` found bubblewrap or socat missing —
//! the text is all there is to go on, and it is read coarsely, quotes and backslashes taken out:
//!
//! - a command naming a secret ([`secret`]: `.env` or `.env.<x>` other than an example,
//!   `token.json`, `credentials.json`) or a process's environment (`/environ`) is refused, in
//!   every session and mode;
//! - a command naming the `state` directory ([`names_state`]: the word `state`, or a path with a
//!   `state` part) is asked about in the conversation, every time, and refused where nobody can
//!   be asked (background jobs, `dontAsk`): it may change the bot's own files;
//! - a background job's command naming `context.md`, `USER.md` or `IDENTITY.md` ([`profile`]) is
//!   refused: the memory and profile are the conversation's.
//!
//! This is a courtesy, not a boundary: a program that builds a name at run time (`python3 -c
//! "open('.e'+'nv')"`), a script file, a detached process all pass it, and a command may reach
//! any address. docs/sandbox.md says so to the owner who turns the sandbox off; the children's
//! environment holds no secret either way ([`crate::base::child_env`]).

use super::profile_writes::CONVERSATION_ONLY;
use super::secret_reads::named_secret;

/// The command's text with quotes and backslashes taken out: they do not change which file a
/// word names.
fn folded(command: &str) -> String {
    command
        .chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\' | '`'))
        .collect()
}

/// The command's words, split where a shell could split them.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, ';' | '|' | '&' | '<' | '>' | '(' | ')'))
        .filter(|w| !w.is_empty())
}

/// The secret a command names, described (`a .env file`); `None` when it names none.
pub fn secret(command: &str) -> Option<&'static str> {
    named_secret(&folded(command))
}

/// The refusal of a command that names a secret.
pub fn secret_refusal(what: &str) -> String {
    format!(
        "Bash was not run: it would reach {what}, which holds the bot's secrets; they are never \
         shown to the agent"
    )
}

/// True when a command names the `state` directory.
pub fn names_state(command: &str) -> bool {
    let text = folded(command);
    let named = words(&text).any(|w| {
        let w = w.split_once('=').map_or(w, |(_, value)| value);
        w == "state" || (w.contains('/') && w.split('/').any(|part| part == "state"))
    });
    named
}

/// Why a command may change `state/`, as the owner and the model read it.
pub const NAMES_STATE: &str = "it names state/, and no OS sandbox is in force";

/// The memory or profile file a command names; `None` when it names none.
pub fn profile(command: &str) -> Option<&'static str> {
    let text = folded(command);
    let named = words(&text)
        .filter_map(|w| w.rsplit(['/', '=']).next())
        .find_map(|name| CONVERSATION_ONLY.into_iter().find(|f| *f == name));
    named
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_named_however_quoted() {
        for command in [
            "cat .env",
            "cat ./.env.production",
            "head -c 200 \"state/\"credentials.json",
            "cat st'ate'/token.json",
            "tr '\\0' '\\n' < /proc/$PPID/environ",
            "python3 -c \"print(open('.env').read())\"",
        ] {
            assert!(secret(command).is_some(), "{command}");
        }
        for command in ["env", "cat .env.example", "ls", "cat state/config.json"] {
            assert_eq!(secret(command), None, "{command}");
        }
        assert!(secret_refusal("a .env file").contains("holds the bot's secrets"));
    }

    #[test]
    fn state_is_named_as_a_word_or_a_path_part() {
        for command in [
            "touch state/x",
            "cd state && touch y",
            "ls > ./state/listed",
            "rm -rf ~/.ollim-bot/state",
            "dd if=/dev/zero of=state/big",
            "echo x >'state'/x",
        ] {
            assert!(names_state(command), "{command}");
        }
        for command in [
            "ls",
            "cat statement.txt",
            "git status",
            "ollim-bot tasks list",
        ] {
            assert!(!names_state(command), "{command}");
        }
    }

    #[test]
    fn the_memory_and_profile_are_named_by_their_file_names() {
        assert_eq!(profile("echo HACKED >> context.md"), Some("context.md"));
        assert_eq!(profile("cp x /data/USER.md"), Some("USER.md"));
        assert_eq!(profile("sed -i s/a/b/ IDENTITY.md"), Some("IDENTITY.md"));
        assert_eq!(profile("cat notes/context.md.bak"), None);
        assert_eq!(profile("ls"), None);
    }
}
