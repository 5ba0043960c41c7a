//! Markdown files with YAML frontmatter: splitting, parsing, writing (SPEC §3).
//!
//! Routines, reminders, webhook specs and skills all share one shape on disk:
//!
//! ```text
//! ---
//! id: "a1b2c3d4"
//! cron: "30 8 * * *"
//! ---
//! The prompt, as markdown.
//! ```
//!
//! This module owns that shape and nothing about any one kind: [`split`] finds the YAML and the
//! body, [`parse_yaml`] turns the YAML into a kind's raw `…File` struct, [`ParseError`] says why a
//! file was rejected, and [`Writer`] produces the exact bytes the original wrote (key per line,
//! strings double-quoted, lists as `  - "x"` lines, then `---`, the body and a final newline).
//!
//! Two ways we differ from the original on purpose: the closing `---` must be a line of its own
//! (the original split on the first `---` anywhere, so a description holding `---` broke the
//! file), and quoted strings escape `"`, `\`, control characters, U+2028, U+2029, U+FEFF,
//! U+FFFE and U+FFFF (the original wrote them raw, which produced invalid or different YAML).

use chrono::NaiveDateTime;
use serde::de::DeserializeOwned;

/// Why a markdown file was rejected. The store adds the file's path.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The text does not start with a `---` line.
    #[error("no YAML frontmatter (the file must start with a `---` line)")]
    NoFrontmatter,
    /// The opening `---` is never followed by a closing one (often a file cut short).
    #[error("the YAML frontmatter is never closed by a `---` line")]
    Unterminated,
    /// The YAML does not parse, or a value has the wrong type.
    #[error("the YAML frontmatter does not parse: {0}")]
    Yaml(#[source] serde_yaml::Error),
    /// The YAML parses but is a scalar or a list, not `key: value` pairs.
    #[error("the YAML frontmatter is not a mapping of keys to values")]
    NotAMapping,
    /// A required key is absent (or null).
    #[error("missing required field `{field}`")]
    Missing {
        /// The key as written on disk.
        field: &'static str,
    },
    /// The `id` is present but blank.
    #[error("`id` is empty")]
    EmptyId,
    /// The `id` (or `chain-parent`) holds what an id may not (`../../x`).
    #[error(transparent)]
    BadId(super::BadId),
    /// A routine's `cron` does not have five fields.
    #[error("`cron` {cron:?} must have 5 fields separated by spaces, found {found}")]
    CronFieldCount {
        /// The expression as written.
        cron: String,
        /// How many fields it has.
        found: usize,
    },
    /// `model` is not one of the known choices.
    #[error("`model` {value:?} is not one of opus, sonnet, haiku")]
    UnknownModel {
        /// The value as written.
        value: String,
    },
    /// `update-main-session` is not one of the four modes.
    #[error("`update-main-session` {value:?} is not one of always, on_ping, freely, blocked")]
    UnknownUpdateMode {
        /// The value as written.
        value: String,
    },
    /// `run-at` is not an ISO 8601 date and time.
    #[error("`run-at` {raw:?} is not an ISO 8601 date and time")]
    BadRunAt {
        /// The value as written.
        raw: String,
    },
    /// `run-at` is a valid date and time but has no UTC offset; the caller may interpret it in
    /// the configured zone (see `reminder::parse_in`).
    #[error("`run-at` {raw:?} has no UTC offset (write it like 2026-02-24T14:00:00-08:00)")]
    RunAtWithoutOffset {
        /// The value as written.
        raw: String,
        /// The wall-clock time it names.
        naive: NaiveDateTime,
    },
    /// A chain link claims a position past the chain's end.
    #[error("`chain-depth` {depth} is greater than `max-chain` {max}")]
    ChainTooDeep {
        /// `chain-depth` as written.
        depth: u32,
        /// `max-chain` as written.
        max: u32,
    },
    /// `subagent` names no possible subagent.
    #[error("`subagent` {name:?} may only hold letters, digits, '-' and '_'")]
    BadSubagent {
        /// The value as written.
        name: String,
    },
    /// A skill name holds characters other than lowercase letters, digits and hyphens.
    #[error("`name` {name:?} may only hold lowercase letters, digits and hyphens")]
    BadSkillName {
        /// The name as written.
        name: String,
    },
    /// A skill's `name` differs from the directory it lives in.
    #[error("`name` {name:?} does not match its directory {dir:?}")]
    SkillNameMismatch {
        /// The name as written.
        name: String,
        /// The directory's name.
        dir: String,
    },
    /// *(ours)* A `gate` that is not one plain command.
    #[error("`gate` {gate:?} is refused: {reason}")]
    BadGate {
        /// The value as written.
        gate: String,
        /// Why.
        reason: super::gate::GateError,
    },
    /// *(ours)* `retries` asks for more retries than allowed.
    #[error("`retries` {value} is more than 10 (write 0 to turn retries off)")]
    TooManyRetries {
        /// The value as written.
        value: u32,
    },
    /// *(ours)* `max-cost` or `max-turns` is not a usable bound.
    #[error(transparent)]
    BadRunLimit(#[from] super::run_limits::BadRunLimit),
    /// A routine's `catch-up` is not a window.
    #[error(transparent)]
    BadCatchUp(super::catch_up::BadCatchUp),
    /// A routine's `session` is unknown or does not fit its other keys.
    #[error(transparent)]
    BadSession(super::session_mode::BadSession),
    /// A webhook spec's `fields` is not a JSON Schema object.
    #[error("`fields` must be a JSON Schema object: {reason}")]
    BadWebhookFields {
        /// What is wrong with it.
        reason: String,
    },
    /// *(ours)* A webhook spec's `auth`, `secret-env` or `rate-limit` is unusable.
    #[error("{reason}")]
    BadWebhookAuth {
        /// What is wrong and how to fix it.
        reason: String,
    },
}

/// A file split into its two parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts<'a> {
    /// The YAML between the `---` lines.
    pub yaml: &'a str,
    /// The markdown after the closing `---`, trimmed of surrounding whitespace.
    pub body: &'a str,
}

/// Splits `---\n<yaml>\n---\n<body>` into its YAML and its trimmed body.
///
/// A byte-order mark and blank lines before the opening `---` are tolerated; both delimiters
/// must be lines of their own (trailing spaces allowed).
pub fn split(text: &str) -> Result<Parts<'_>, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.trim_start().split_inclusive('\n');
    let opening = lines.next().ok_or(ParseError::NoFrontmatter)?;
    if !is_delimiter(opening) {
        return Err(ParseError::NoFrontmatter);
    }
    let yaml_start = offset_in(text, opening) + opening.len();
    for line in lines {
        if is_delimiter(line) {
            let at = offset_in(text, line);
            return Ok(Parts {
                yaml: &text[yaml_start..at],
                body: text[at + line.len()..].trim(),
            });
        }
    }
    Err(ParseError::Unterminated)
}

/// A markdown file's body without its frontmatter (the whole text when it has none, or when
/// it is not closed), by [`split`]'s rules, and how many lines come before the body.
pub fn body_after(text: &str) -> (usize, &str) {
    match split(text) {
        Ok(parts) => (
            text[..offset_in(text, parts.body)].matches('\n').count(),
            parts.body,
        ),
        Err(_) => (0, text),
    }
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Byte offset of `part` (a sub-slice of `whole`) inside `whole`.
fn offset_in(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

/// Parses frontmatter YAML into a kind's raw struct. Empty YAML, a scalar or a list is
/// [`ParseError::NotAMapping`] (as in the original); other failures keep serde_yaml's message,
/// which names the key and the line.
pub fn parse_yaml<T: DeserializeOwned>(yaml: &str) -> Result<T, ParseError> {
    let value: serde_yaml::Value = serde_yaml::from_str(yaml).map_err(ParseError::Yaml)?;
    if !value.is_mapping() {
        return Err(ParseError::NotAMapping);
    }
    // Parsed again from the text rather than from `value`, so errors carry line numbers.
    serde_yaml::from_str(yaml).map_err(ParseError::Yaml)
}

/// Builds a file's bytes key by key, in the original's format.
#[derive(Debug)]
pub struct Writer {
    out: String,
}

impl Default for Writer {
    fn default() -> Self {
        Self::new()
    }
}

impl Writer {
    /// Starts a file with its opening `---`.
    pub fn new() -> Self {
        Self {
            out: String::from("---\n"),
        }
    }

    /// `key: "value"`.
    pub fn text(&mut self, key: &str, value: &str) -> &mut Self {
        self.out.push_str(key);
        self.out.push_str(": ");
        self.out.push_str(&quote(value));
        self.out.push('\n');
        self
    }

    /// `key: true` / `key: false`.
    pub fn flag(&mut self, key: &str, value: bool) -> &mut Self {
        self.out.push_str(&format!("{key}: {value}\n"));
        self
    }

    /// `key: 3`.
    pub fn number(&mut self, key: &str, value: u32) -> &mut Self {
        self.out.push_str(&format!("{key}: {value}\n"));
        self
    }

    /// `key:` then one `  - "entry"` line per entry; an empty list is written `key: []` so it
    /// reads back as empty rather than null (the original wrote a bare `key:`).
    pub fn list(&mut self, key: &str, entries: &[String]) -> &mut Self {
        if entries.is_empty() {
            self.out.push_str(&format!("{key}: []\n"));
            return self;
        }
        self.out.push_str(key);
        self.out.push_str(":\n");
        for entry in entries {
            self.out.push_str("  - ");
            self.out.push_str(&quote(entry));
            self.out.push('\n');
        }
        self
    }

    /// `key:` followed by an already-rendered YAML block, indented two spaces. A one-line
    /// block (a scalar or `{}`) goes on the key's line.
    pub fn block(&mut self, key: &str, yaml: &str) -> &mut Self {
        let yaml = yaml.trim_end_matches('\n');
        if !yaml.contains('\n') {
            self.out.push_str(&format!("{key}: {yaml}\n"));
            return self;
        }
        self.out.push_str(key);
        self.out.push_str(":\n");
        for line in yaml.lines() {
            if !line.is_empty() {
                self.out.push_str("  ");
                self.out.push_str(line);
            }
            self.out.push('\n');
        }
        self
    }

    /// Closes the frontmatter and appends the body and a final newline.
    pub fn finish(&mut self, body: &str) -> String {
        let mut out = std::mem::take(&mut self.out);
        out.push_str("---\n");
        out.push_str(body);
        out.push('\n');
        out
    }
}

/// A YAML double-quoted scalar holding exactly `value`: `"`, `\\` and the usual control
/// characters escaped by name, and as `\uXXXX` every other character a YAML reader would not
/// keep as it is — control characters, the line and paragraph separators U+2028 and U+2029
/// (read as line breaks and folded into a space), the byte-order mark U+FEFF and the
/// non-characters U+FFFE and U+FFFF (refused outright).
pub fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_unicode_escape(c) => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// True for characters [`quote`] writes as `\uXXXX`.
fn needs_unicode_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}'
        )
}

#[cfg(test)]
#[path = "frontmatter_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "frontmatter_props.rs"]
mod props;
