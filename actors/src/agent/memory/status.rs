//! What `/memory` and `ollim-bot memory show` say about `context.md`: its size against the
//! limit and its last change — and the answer to an undo — in the same words on every surface.

use chrono_tz::Tz;

use super::versions::{last_change, Change, Error, Undone};
use super::{read, PROMPT_CAP};
use crate::base::data_dir::DataDir;
use crate::records::usage::render::count;

/// `context.md` as it is now.
#[derive(Debug, Clone)]
pub struct Status {
    /// Its characters; `None` when there is no file.
    pub chars: Option<usize>,
    /// Its last recorded change.
    pub last: Option<Change>,
}

/// Reads the file's size and last change (an unreadable file counts as none, logged).
pub fn status(data: &DataDir) -> Status {
    let text = read(data).unwrap_or_else(|cause| {
        tracing::warn!(%cause, "context.md unreadable");
        None
    });
    Status {
        chars: text.map(|t| t.chars().count()),
        last: last_change(data),
    }
}

/// `1234` → `1,234`, as `/usage` writes counts.
fn grouped(n: usize) -> String {
    count(u64::try_from(n).unwrap_or(u64::MAX))
}

/// One line for a change: `2026-02-24 14:30  a1b2c3d  auto: memory: write context.md  (+2 −1)`.
pub fn change_line(change: &Change, tz: Tz) -> String {
    format!(
        "{}  {}  {}  (+{} -{})",
        change.when.with_timezone(&tz).format("%Y-%m-%d %H:%M"),
        change.short(),
        change.subject,
        change.added,
        change.removed
    )
}

impl Status {
    /// The size line: `context.md: 1,234 characters (limit 12,000)`, with how far over it is.
    pub fn size_line(&self) -> String {
        match self.chars {
            None => "context.md: not written yet — nothing remembered".to_owned(),
            Some(n) => {
                let mut line = format!(
                    "context.md: {} characters (limit {})",
                    grouped(n),
                    grouped(PROMPT_CAP)
                );
                if let Some(over) = n.checked_sub(PROMPT_CAP).filter(|o| *o > 0) {
                    line.push_str(&format!(
                        " — {} over: sessions see only the first {}",
                        grouped(over),
                        grouped(PROMPT_CAP)
                    ));
                }
                line
            }
        }
    }

    /// The last change's line, or that there is none.
    pub fn last_line(&self, tz: Tz) -> String {
        match &self.last {
            Some(change) => format!("last change: {}", change_line(change, tz)),
            None => "last change: none recorded".to_owned(),
        }
    }

    /// Both lines.
    pub fn describe(&self, tz: Tz) -> String {
        format!("{}\n{}", self.size_line(), self.last_line(tz))
    }
}

/// What an undo did, or why it could not.
pub fn undo_answer(result: &Result<Undone, Error>) -> String {
    match result {
        Ok(undone) => {
            let now = match &undone.restored {
                Some(text) => format!(
                    "context.md has {} characters again",
                    grouped(text.chars().count())
                ),
                None => "context.md is gone again (that change created it)".to_owned(),
            };
            let mut answer = format!(
                "undid {} ({}): {now}",
                undone.reverted.short(),
                undone.reverted.subject
            );
            if let Some(why) = &undone.unrecorded {
                answer.push_str(&format!(
                    " — but the undo could not be recorded in its history ({why}); /memory log \
                     will not show it until the next change of context.md is recorded"
                ));
            }
            answer
        }
        Err(e) => format!("nothing undone: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_grouped_and_over_the_limit_is_said() {
        assert_eq!(grouped(12_000), "12,000");
        assert_eq!(grouped(999), "999");
        let over = Status {
            chars: Some(13_000),
            last: None,
        };
        assert_eq!(
            over.size_line(),
            "context.md: 13,000 characters (limit 12,000) — 1,000 over: sessions see only the first 12,000"
        );
        assert_eq!(over.last_line(chrono_tz::UTC), "last change: none recorded");
        let none = Status {
            chars: None,
            last: None,
        };
        assert!(none.size_line().contains("not written yet"));
    }

    #[test]
    fn an_undo_missing_from_the_history_says_so() {
        let undone = |unrecorded: Option<&str>| Undone {
            reverted: Change {
                hash: "a1b2c3d4e5".into(),
                when: chrono::Utc::now(),
                subject: "auto: memory: second".into(),
                added: 1,
                removed: 0,
            },
            restored: Some("keep\n".into()),
            unrecorded: unrecorded.map(str::to_owned),
        };
        let fine = undo_answer(&Ok(undone(None)));
        assert_eq!(
            fine,
            "undid a1b2c3d (auto: memory: second): context.md has 5 characters again"
        );
        let unrecorded = undo_answer(&Ok(undone(Some("git commit failed: hook says no"))));
        assert!(
            unrecorded.starts_with(&fine)
                && unrecorded.contains(
                    "could not be recorded in its history (git commit failed: hook says no)"
                ),
            "{unrecorded}"
        );
    }
}
