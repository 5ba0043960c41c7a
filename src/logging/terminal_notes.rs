//! On the console the log goes to a file; warnings and errors still deserve a word in the
//! terminal. This layer writes one short line to stderr for each: `warning: <message>` (with
//! the `file` field when the rest does not already name it, and the `cause` or `reason` field
//! when there is one), cut to fit a line.

use std::fmt::Write as _;
use std::io::Write as _;

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::Layer;

/// Longest note, in characters.
const MAX_CHARS: usize = 200;

/// The layer.
pub struct TerminalNotes;

#[derive(Default)]
struct Fields {
    message: String,
    file: Option<String>,
    why: Option<String>,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "message" => {
                let _ = write!(self.message, "{value:?}");
            }
            "cause" | "reason" if self.why.is_none() => self.why = Some(format!("{value:?}")),
            "file" => self.file = Some(format!("{value:?}")),
            _ => {}
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "message" => self.message.push_str(value),
            "cause" | "reason" if self.why.is_none() => self.why = Some(value.to_owned()),
            "file" => self.file = Some(value.to_owned()),
            _ => {}
        }
    }
}

/// The note for one event: `warning: message (file): cause`, one line, at most
/// [`MAX_CHARS`]. The file is left out when the message or cause already names it.
pub fn note(level: Level, message: &str, file: Option<&str>, why: Option<&str>) -> String {
    let label = if level == Level::ERROR {
        "error"
    } else {
        "warning"
    };
    let mut text = format!("{label}: {message}");
    if let Some(file) = file
        .filter(|f| !f.is_empty() && !message.contains(f) && !why.is_some_and(|w| w.contains(f)))
    {
        text.push_str(" (");
        text.push_str(file);
        text.push(')');
    }
    if let Some(why) = why.filter(|w| !w.is_empty()) {
        text.push_str(": ");
        text.push_str(why);
    }
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > MAX_CHARS {
        let cut: String = one_line.chars().take(MAX_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}

impl<S: Subscriber> Layer<S> for TerminalNotes {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let level = *event.metadata().level();
        if level > Level::WARN {
            return;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        let line = note(
            level,
            &fields.message,
            fields.file.as_deref(),
            fields.why.as_deref(),
        );
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", ollim_actors::base::redaction::redact(&line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_one_short_line() {
        assert_eq!(
            note(Level::WARN, "skipping file", None, Some("bad cron")),
            "warning: skipping file: bad cron"
        );
        assert_eq!(
            note(Level::ERROR, "it broke\nbadly", None, None),
            "error: it broke badly"
        );
        let long = note(Level::WARN, &"x".repeat(500), None, None);
        assert_eq!(long.chars().count(), MAX_CHARS);
        assert!(long.ends_with('…'));
    }

    #[test]
    fn a_note_names_the_file_once() {
        assert_eq!(
            note(
                Level::WARN,
                "skipping routine with an invalid cron",
                Some("/d/routines/bad.md"),
                Some("minute: 60 is out of range 0-59")
            ),
            "warning: skipping routine with an invalid cron (/d/routines/bad.md): minute: 60 is out of range 0-59"
        );
        assert_eq!(
            note(
                Level::WARN,
                "skipping file",
                Some("/d/routines/x.md"),
                Some("/d/routines/x.md: no YAML frontmatter")
            ),
            "warning: skipping file: /d/routines/x.md: no YAML frontmatter"
        );
    }
}
