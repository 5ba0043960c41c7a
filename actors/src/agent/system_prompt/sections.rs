//! The operational sections of the system prompt (SPEC §14): shipped as markdown in
//! `config/prompts/`, embedded at build time, and filled with the user's and bot's names and
//! the time zone. Only these templates are filled; text the user wrote (the profile, skill
//! descriptions) is never touched.

/// One piece of the appended prompt, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A shipped template: its file name under `config/prompts/` and its text.
    Template {
        /// File name, for tests and logs.
        file: &'static str,
        /// The markdown, with `{USER_NAME}`, `{BOT_NAME}` and `{TZ}` placeholders.
        text: &'static str,
    },
    /// The list of the user's own skills, generated at build time.
    UserSkills,
}

macro_rules! template {
    ($file:literal) => {
        Part::Template {
            file: $file,
            text: include_str!(concat!("../../../../config/prompts/", $file)),
        }
    };
}

/// Every section after the profile, in the order the prompt presents them.
pub const PARTS: [Part; 14] = [
    template!("task-capture.md"),
    template!("output.md"),
    template!("configuration.md"),
    template!("skills.md"),
    Part::UserSkills,
    template!("google-tasks.md"),
    template!("google-calendar.md"),
    template!("routines-reminders.md"),
    template!("subagents.md"),
    template!("embeds.md"),
    template!("web.md"),
    template!("interactive-forks.md"),
    template!("background-forks.md"),
    template!("webhooks.md"),
];

/// The placeholders templates may use.
pub const PLACEHOLDERS: [&str; 3] = ["USER_NAME", "BOT_NAME", "TZ"];

/// Replaces each `{KEY}` in `template` whose KEY is in `values` with its value, in one pass:
/// a value that itself contains `{KEY}` is inserted as written, never expanded again. Braces
/// that do not form a known placeholder (a webhook's `{field}`) stay as they are.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let hit = values.iter().find(|(key, _)| {
            after
                .strip_prefix(key)
                .is_some_and(|tail| tail.starts_with('}'))
        });
        match hit {
            Some((key, value)) => {
                out.push_str(value);
                rest = &after[key.len() + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every `{UPPER_CASE}` token in `text`: what a template would still show unfilled.
pub fn placeholder_tokens(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        if let Some(close) = after.find('}') {
            let inner = &after[..close];
            if !inner.is_empty()
                && inner
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
            {
                found.push(inner);
            }
        }
        rest = after;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_replaces_known_keys_once_and_leaves_other_braces() {
        let out = fill(
            "Hi {USER_NAME}, {field} stays, {USER_NAME} again in {TZ}{",
            &[("USER_NAME", "{TZ}"), ("TZ", "Europe/Berlin")],
        );
        assert_eq!(out, "Hi {TZ}, {field} stays, {TZ} again in Europe/Berlin{");
    }

    #[test]
    fn templates_use_only_known_placeholders() {
        for part in PARTS {
            if let Part::Template { file, text } = part {
                for token in placeholder_tokens(text) {
                    assert!(
                        PLACEHOLDERS.contains(&token),
                        "{file} uses unknown placeholder {{{token}}}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_template_opens_with_a_second_level_header() {
        for part in PARTS {
            if let Part::Template { file, text } = part {
                assert!(
                    text.starts_with("## "),
                    "{file} must start with a `## ` header"
                );
            }
        }
    }

    #[test]
    fn placeholder_tokens_finds_only_upper_case_names() {
        assert_eq!(
            placeholder_tokens("{USER_NAME} {field} {} {TZ} {Mixed}"),
            ["USER_NAME", "TZ"]
        );
    }
}
