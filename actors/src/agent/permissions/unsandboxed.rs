//! The agent's own `ollim-bot` commands, the only commands that run outside the OS sandbox
//! (SPEC §20), and the rule that nothing else rides out with them.
//!
//! `ollim-bot tasks`, `cal` and `gmail` need the Google grant, which the sandbox makes
//! unreadable; `reminder` and `routine` write and commit job files (a background job's
//! sandbox may not write the data directory); `history` and `memory search` read what the bot
//! keeps. So they are the CLI's `excludedCommands` ([`excluded_commands`]): the CLI runs them
//! unsandboxed.
//!
//! Why not ask the running bot over the control socket instead: on Linux the sandbox blocks
//! Unix sockets with seccomp, which cannot tell one socket's path from another, so reaching
//! ours would mean `allowAllUnixSockets` — every socket on the machine — and every Google
//! command would need a second path through the bot. The exclusion keeps one code path.
//!
//! But the CLI calls its exclusions "a convenience, not a security boundary": 2.1.197 runs a
//! whole compound command unsandboxed when one part of it is excluded (`ollim-bot tasks list;
//! cat .env` read the file), 2.1.330 and 2.1.332 only a command that is excluded as a whole. So the text of
//! a command is read here after all, for what the sandbox cannot express ([`refusal`]): a
//! command that names `ollim-bot` anywhere — after quotes and escapes are taken out — must be
//! one plain `ollim-bot …` invocation: no `; & | $ \` < > ( ) { }`, backslash or new
//! line, so that the shell runs exactly that one program with literal arguments. Anything else
//! that names it is refused; anything that does not runs sandboxed. Only while the sandbox is
//! in force (`FileHooks` is told per session): without one there is nothing to ride out of,
//! and `ollim-bot tasks list | head` runs like any other command.

/// The command groups the CLI runs unsandboxed, as `ollim-bot <group> …`.
pub const GROUPS: [&str; 7] = [
    "tasks", "cal", "gmail", "reminder", "routine", "history", "memory",
];

/// The CLI's `excludedCommands` patterns (`prefix:*`, the form every supported release matches;
/// 2.1.332 no longer matches `ollim-bot tasks *`).
pub fn excluded_commands() -> Vec<String> {
    GROUPS
        .iter()
        .map(|group| format!("ollim-bot {group}:*"))
        .collect()
}

/// Characters that let a shell run, substitute or redirect anything beyond one program.
const SHELL_POWER: [char; 14] = [
    ';', '&', '|', '$', '`', '<', '>', '(', ')', '{', '}', '\\', '\n', '\r',
];

/// Why a Bash command must be refused for naming `ollim-bot` without being one plain
/// invocation of an excluded group, or `None`.
pub fn refusal(command: &str) -> Option<String> {
    let folded: String = command
        .chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\' | '$'))
        .collect();
    // ANSI-C quoting (`$'\157llim-bot'`) can spell any name.
    if !folded.contains("ollim-bot") && !command.contains("$'") {
        return None;
    }
    if is_plain(command) {
        return None;
    }
    Some(
        "Bash was not run: `ollim-bot` commands run outside the sandbox, so each must be run \
         on its own — one plain `ollim-bot <command> …` with nothing chained, piped, \
         substituted or redirected around it"
            .to_owned(),
    )
}

/// True for `ollim-bot …` with no shell power and no second `ollim-bot` (a command outside
/// [`GROUPS`], such as `ollim-bot help`, runs sandboxed: plain is enough).
fn is_plain(command: &str) -> bool {
    let trimmed = command.trim();
    let rest = match trimmed.strip_prefix("ollim-bot") {
        Some("") => "",
        Some(rest) if rest.starts_with(' ') => rest,
        _ => return false,
    };
    !trimmed.contains(SHELL_POWER) && !rest.contains("ollim-bot")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_invocations_pass() {
        for command in [
            "ollim-bot tasks list",
            "ollim-bot tasks add \"Buy milk\" --due 2026-12-01",
            "ollim-bot reminder add --delay 30 -m 'take a break'",
            "  ollim-bot memory search dentist ",
            "ollim-bot help",
            "ollim-bot",
            "ls -la",
            "python3 -c 'print(1)'",
        ] {
            assert_eq!(refusal(command), None, "{command}");
        }
    }

    #[test]
    fn anything_riding_along_is_refused() {
        for command in [
            "ollim-bot tasks list; cat .env",
            "ollim-bot tasks list && cat .env",
            "ollim-bot tasks list | tee x",
            "ollim-bot tasks add \"$(cat .env)\"",
            "ollim-bot tasks add `cat .env`",
            "echo $(cat .env) | ollim-bot tasks list",
            "cat .env > x; ollim-bot tasks list",
            "ollim-bot tasks list\ncat .env",
            "'ollim-bot' tasks list; cat .env",
            "oll\\im-bot tasks list; cat .env",
            "o=ollim-bot; $o tasks list",
            "timeout 5 ollim-bot tasks list",
            "env -u OLLIM_AGENT_SESSION ollim-bot tasks delete x",
            "ollim-bot tasks list ollim-bot",
            "$'\\157llim-bot' tasks list; cat .env",
            "ollim-bot tasks list > out.txt",
        ] {
            assert!(refusal(command).is_some(), "{command}");
        }
    }

    #[test]
    fn the_exclusions_use_the_prefix_form() {
        assert!(excluded_commands().contains(&"ollim-bot tasks:*".to_owned()));
        assert_eq!(excluded_commands().len(), GROUPS.len());
    }
}
