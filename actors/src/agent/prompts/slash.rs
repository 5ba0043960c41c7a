//! Job bodies that invoke a skill as a slash command (SPEC §17; the original since 2026-04-07):
//! a routine, reminder or webhook whose body opens with `/name` runs the skill `name`.
//!
//! The `claude` CLI expands a user message as a slash command only when `/name` is its very
//! first text: it replaces the message by the skill's instructions, and everything after the
//! name (line breaks included) becomes the skill's arguments — `$ARGUMENTS` in the skill, or an
//! `ARGUMENTS:` line after it. So such a prompt opens with the body and everything the bot adds
//! (tag, markers, preamble, skills section, chain context, and in the conversation the
//! timestamp header and pending updates) comes after it, as the skill's arguments. A webhook
//! keeps only `/name` first: the rest of its template, where payload values are filled in,
//! stays in the task section after the fenced data.
//!
//! Only a name that is a skill in `skills/` counts (the job runner checks): `/cost`, `/clear`
//! and the CLI's other built-in commands, or a body like `/tmp is full`, stay plain text after
//! the tag, as before.

use crate::jobs::skills::is_valid_name;

/// The skill name a body opens with: `/name` at its start (after blank space), followed by
/// whitespace or nothing, `name` a valid skill name.
pub fn leading_command(body: &str) -> Option<&str> {
    let rest = body.trim_start().strip_prefix('/')?;
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let name = &rest[..end];
    is_valid_name(name).then_some(name)
}

/// `body` split after its leading `/name`: (`/name`, what follows it, trimmed at the start).
/// `None` when it does not open with one.
pub fn split_command(body: &str) -> Option<(&str, &str)> {
    let name = leading_command(body)?;
    let body = body.trim_start();
    let (command, rest) = body.split_at(name.len() + 1);
    Some((command, rest.trim_start()))
}

/// The prompt with `lead` (the body, or a webhook's `/name`) first and the rest after a blank
/// line.
pub fn command_first(lead: &str, rest: &str) -> String {
    let rest = rest.trim();
    if rest.is_empty() {
        lead.trim().to_owned()
    } else {
        format!("{}\n\n{rest}", lead.trim())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_opening_with_a_skill_name_is_a_command() {
        assert_eq!(leading_command("/weekly-review"), Some("weekly-review"));
        assert_eq!(
            leading_command("\n/weekly-review extra words\nmore"),
            Some("weekly-review")
        );
        assert_eq!(
            split_command("/weekly-review  extra words\nmore"),
            Some(("/weekly-review", "extra words\nmore"))
        );
        assert_eq!(split_command("/a"), Some(("/a", "")));
    }

    #[test]
    fn other_bodies_are_not() {
        for body in [
            "check /weekly-review",
            "/r/ADHD new posts",
            "/Capital",
            "/",
            "/ spaced",
            "//x",
            "",
        ] {
            assert_eq!(leading_command(body), None, "{body:?}");
        }
    }

    #[test]
    fn the_lead_comes_first_and_the_rest_after_a_blank_line() {
        assert_eq!(
            command_first("/x a b\n", "[routine:r1] \n\n"),
            "/x a b\n\n[routine:r1]"
        );
        assert_eq!(command_first("/x", "  "), "/x");
    }
}
