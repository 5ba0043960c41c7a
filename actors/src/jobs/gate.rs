//! A job's condition gate *(ours, SPEC §16)*: `gate: "<command>"` on a routine or reminder is
//! run before the model is woken; exit 0 runs the job with the command's output in its prompt,
//! any other exit skips the run. This module is what a gate *is* — the command as written and
//! its words — and the check every gate passes wherever it comes from (a file, `--gate`):
//! like a `Bash(...)` tool pattern it may not hold `;`, `&`, `|` or a redirection (`<`, `>`),
//! nor a line break. There is no shell: the first word is the program, the rest its arguments,
//! split as a shell splits words ([`crate::base::shell_words`]: `'…'`, `"…"` and `\` quoting, and
//! a leading unquoted `~` or `~/` is the owner's home, as in a skill's `` !`command` ``); no
//! variables, globs or pipes. Running it is the job runner's (`job_runner::gate`).

use std::fmt;

use crate::base::shell_words::{self, SplitError};

/// What a gate may not hold, as a `Bash(...)` pattern may not: chaining and redirection.
const FORBIDDEN: [char; 5] = [';', '&', '|', '<', '>'];

/// A validated gate command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gate {
    /// As written (trimmed): what the file holds and the log shows.
    raw: String,
    /// The program and its arguments.
    argv: Vec<String>,
}

/// Why a gate was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GateError {
    /// Nothing to run.
    #[error("the gate is empty")]
    Empty,
    /// A chaining or redirection character.
    #[error("the gate holds {0:?}: a gate is one command, without ; & | < or >")]
    Operator(char),
    /// A line break.
    #[error("the gate spans more than one line")]
    Newline,
    /// A quote that is never closed.
    #[error("the gate has an unclosed {0} quote")]
    UnclosedQuote(char),
    /// A backslash at the very end, escaping nothing.
    #[error("the gate ends in a backslash that escapes nothing")]
    TrailingBackslash,
}

impl From<SplitError> for GateError {
    fn from(e: SplitError) -> Self {
        match e {
            SplitError::UnclosedQuote(q) => GateError::UnclosedQuote(q),
            SplitError::TrailingBackslash => GateError::TrailingBackslash,
        }
    }
}

impl Gate {
    /// Checks and splits `text` into a gate, `~` being `HOME` of this process's environment.
    pub fn parse(text: &str) -> Result<Gate, GateError> {
        let home = crate::base::home_path::home();
        Self::parse_in(text, home.as_deref().and_then(|h| h.to_str()))
    }

    /// Checks and splits `text` into a gate, `~` being `home` (`None`: `~` stays text).
    pub fn parse_in(text: &str, home: Option<&str>) -> Result<Gate, GateError> {
        let raw = text.trim();
        if let Some(c) = raw.chars().find(|c| FORBIDDEN.contains(c)) {
            return Err(GateError::Operator(c));
        }
        if raw.contains(['\n', '\r']) {
            return Err(GateError::Newline);
        }
        let argv = shell_words::split(raw, home)?;
        if argv.is_empty() {
            return Err(GateError::Empty);
        }
        Ok(Gate {
            raw: raw.to_owned(),
            argv,
        })
    }

    /// The command as written.
    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// The program to run.
    pub fn program(&self) -> &str {
        &self.argv[0]
    }

    /// Its arguments.
    pub fn args(&self) -> &[String] {
        &self.argv[1..]
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gate_is_split_into_program_and_arguments() {
        let g =
            Gate::parse("  ollim-bot gmail search 'is:unread from:jo' --max \"2\" a\\ b ").unwrap();
        assert_eq!(
            g.as_str(),
            "ollim-bot gmail search 'is:unread from:jo' --max \"2\" a\\ b"
        );
        assert_eq!(g.program(), "ollim-bot");
        assert_eq!(
            g.args(),
            ["gmail", "search", "is:unread from:jo", "--max", "2", "a b"]
        );
        assert_eq!(
            Gate::parse("test -s inbox.txt").unwrap().args(),
            ["-s", "inbox.txt"]
        );
        assert_eq!(Gate::parse("echo ''").unwrap().args(), [""]);
    }

    #[test]
    fn a_leading_tilde_is_the_home_as_in_skill_commands() {
        let g = Gate::parse_in("test -d ~/inbox '~/x' a~/b", Some("/home/me")).unwrap();
        assert_eq!(g.args(), ["-d", "/home/me/inbox", "~/x", "a~/b"]);
        // What the file holds is kept as written.
        assert_eq!(g.as_str(), "test -d ~/inbox '~/x' a~/b");
        assert_eq!(
            Gate::parse_in("~/bin/check", Some("/home/me"))
                .unwrap()
                .program(),
            "/home/me/bin/check"
        );
    }

    #[test]
    fn chaining_redirection_and_other_shapes_are_refused() {
        for (text, err) in [
            ("check && rm -rf x", GateError::Operator('&')),
            ("check; rm x", GateError::Operator(';')),
            ("cat x | grep y", GateError::Operator('|')),
            ("grep -c 'a|b' x", GateError::Operator('|')),
            ("check > out", GateError::Operator('>')),
            ("check < in", GateError::Operator('<')),
            ("sleep 1 &", GateError::Operator('&')),
            ("check\nrm x", GateError::Newline),
            ("   ", GateError::Empty),
            ("echo 'open", GateError::UnclosedQuote('\'')),
            ("echo \"open", GateError::UnclosedQuote('"')),
            ("echo end\\", GateError::TrailingBackslash),
        ] {
            assert_eq!(Gate::parse(text), Err(err), "{text:?}");
        }
    }
}
