//! `context.md`'s history in the data directory's git (SPEC §18): every change is a commit whose
//! message starts `auto: memory`, and [`undo`] reverts the last one as a new commit, so the log
//! shows both the change and its undoing.
//!
//! Changes are committed by the file hook after the agent's Write or Edit (the permissions'
//! `file_hooks`) and, for anything else (a shell command, a hand edit),
//! by [`commit`] when a conversation's turn ends and before an undo.

use chrono::{DateTime, Utc};

use super::{path, FILE_NAME};
use crate::base::data_dir::{CommitError, DataDir};
use crate::base::state_file;

/// How every memory commit's message starts.
pub const COMMIT_PREFIX: &str = "auto: memory";

/// What went wrong reading or changing the history.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The data directory has no git history of `context.md` to read.
    #[error("context.md has no recorded changes (is git installed, and has the bot run?)")]
    NoHistory,
    /// The restored text could not be written.
    #[error(transparent)]
    Write(#[from] state_file::Error),
    /// The file could not be removed.
    #[error("could not remove {FILE_NAME}: {0}")]
    Remove(std::io::Error),
    /// The change a button offered to undo is no longer the last one.
    #[error("context.md has changed since ({0} is not its last change any more); /memory shows the last one")]
    Moved(String),
    /// An edit not yet in the history could not be recorded, so undoing would lose it.
    #[error("its latest edit is not in its history yet and could not be recorded ({0}), so undoing now would lose it")]
    Unrecorded(CommitError),
}

/// How an Undo button's custom id starts; the rest is the change's short hash.
pub const UNDO_BUTTON_PREFIX: &str = "act:memory_undo:";

/// The custom id of the button that undoes `change`.
pub fn undo_button_id(change: &Change) -> String {
    format!("{UNDO_BUTTON_PREFIX}{}", change.short())
}

/// The change an Undo button's custom id names; `None` for any other custom id.
pub fn undo_button_change(custom_id: &str) -> Option<&str> {
    custom_id
        .strip_prefix(UNDO_BUTTON_PREFIX)
        .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
}

/// One recorded change of `context.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The commit.
    pub hash: String,
    /// When it was committed.
    pub when: DateTime<Utc>,
    /// Its message's first line.
    pub subject: String,
    /// Lines added and removed in `context.md`.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
}

impl Change {
    /// The commit's first seven characters.
    pub fn short(&self) -> &str {
        self.hash.get(..7).unwrap_or(&self.hash)
    }
}

/// The commit message of a memory change, `auto: memory: <what>`.
pub fn message(what: &str) -> String {
    format!("{COMMIT_PREFIX}: {what}")
}

/// Commits `context.md` as it is now when it differs from the last commit (no-op otherwise);
/// failures are logged.
pub fn commit(data: &DataDir, what: &str) {
    data.commit(&path(data), &message(what));
}

/// The last `limit` changes, newest first; empty when there is no history.
pub fn changes(data: &DataDir, limit: usize) -> Vec<Change> {
    let n = format!("-n{}", limit.max(1));
    let Some(out) = data.git_read(&["log", &n, "--format=%H%x1f%cI%x1f%s", "--", FILE_NAME]) else {
        return Vec::new();
    };
    out.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, '\u{1f}');
            let hash = parts.next()?.to_owned();
            let when = DateTime::parse_from_rfc3339(parts.next()?)
                .ok()?
                .with_timezone(&Utc);
            let subject = parts.next().unwrap_or_default().to_owned();
            let (added, removed) = counts(data, &hash);
            Some(Change {
                hash,
                when,
                subject,
                added,
                removed,
            })
        })
        .collect()
}

/// The last change, if any.
pub fn last_change(data: &DataDir) -> Option<Change> {
    changes(data, 1).into_iter().next()
}

/// Lines added and removed in `context.md` by `hash`.
fn counts(data: &DataDir, hash: &str) -> (usize, usize) {
    let out = data
        .git_read(&["show", "--format=", "--numstat", hash, "--", FILE_NAME])
        .unwrap_or_default();
    out.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
        })
        .fold((0, 0), |(a, r), (x, y): (usize, usize)| (a + x, r + y))
}

/// The change's diff of `context.md` (one line of context), without git's headers.
pub fn diff(data: &DataDir, change: &Change) -> String {
    let out = data
        .git_read(&[
            "show",
            "--format=",
            "--unified=1",
            "--no-color",
            &change.hash,
            "--",
            FILE_NAME,
        ])
        .unwrap_or_default();
    out.lines()
        .skip_while(|l| !l.starts_with("@@"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What [`undo`] did.
#[derive(Debug, Clone)]
pub struct Undone {
    /// The change it reverted.
    pub reverted: Change,
    /// The text now in the file; `None` when the change created it and it is gone again.
    pub restored: Option<String>,
    /// Why the undoing itself is not in the history, when git could not record it (the file
    /// is restored all the same; the next commit of `context.md` records it).
    pub unrecorded: Option<String>,
}

/// Reverts the last change of `context.md` as a new commit. An uncommitted edit is committed
/// first, so it is the change undone and never lost; when that commit fails nothing is changed
/// ([`Error::Unrecorded`]). When only the undo's own commit fails, the file stays restored and
/// [`Undone::unrecorded`] says why the history does not show it.
pub fn undo(data: &DataDir) -> Result<Undone, Error> {
    undo_if_last(data, None)
}

/// [`undo`], only when the last change is still `expected` (a short hash, from a button);
/// otherwise [`Error::Moved`] and nothing changes.
pub fn undo_if_last(data: &DataDir, expected: Option<&str>) -> Result<Undone, Error> {
    data.try_commit(&path(data), &message("edited outside the file tools"))
        .map_err(Error::Unrecorded)?;
    let reverted = last_change(data).ok_or(Error::NoHistory)?;
    if let Some(expected) = expected.filter(|e| !reverted.hash.starts_with(e)) {
        return Err(Error::Moved(expected.to_owned()));
    }
    let before = format!("{}^:{FILE_NAME}", reverted.hash);
    let restored = data.git_read(&["show", &before]);
    let file = path(data);
    match &restored {
        Some(text) => state_file::write_atomic(&file, text.as_bytes())?,
        None => match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::Remove(e)),
        },
    }
    let what = format!("undo {} ({})", reverted.short(), reverted.subject);
    let unrecorded = match data.try_commit(&file, &message(&what)) {
        Ok(()) => None,
        Err(e) => {
            tracing::warn!(reverted = %reverted.short(), cause = %e, "restored context.md, but its history does not record the undo");
            Some(e.to_string())
        }
    };
    tracing::info!(reverted = %reverted.short(), "undid the last change of context.md");
    Ok(Undone {
        reverted,
        restored,
        unrecorded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> (tempfile::TempDir, DataDir) {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path().join("d"));
        data.ensure().unwrap();
        (tmp, data)
    }

    /// Makes every commit in `data` fail, as a broken repository would: a pre-commit hook that
    /// says no.
    fn refuse_commits(data: &DataDir) {
        use std::os::unix::fs::PermissionsExt;
        let hook = data.root().join(".git/hooks/pre-commit");
        std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
        std::fs::write(&hook, "#!/bin/sh\necho 'hook says no' >&2\nexit 1\n").unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn subjects(data: &DataDir) -> Vec<String> {
        changes(data, 10).into_iter().map(|c| c.subject).collect()
    }

    #[test]
    fn changes_are_committed_and_listed_newest_first_with_counts() {
        let (_tmp, data) = repo();
        assert!(changes(&data, 5).is_empty());
        std::fs::write(path(&data), "one\n").unwrap();
        commit(&data, "first");
        commit(&data, "unchanged: nothing to commit");
        std::fs::write(path(&data), "one\ntwo\n").unwrap();
        commit(&data, "second");
        assert_eq!(
            subjects(&data),
            ["auto: memory: second", "auto: memory: first"]
        );
        let last = last_change(&data).unwrap();
        assert_eq!((last.added, last.removed), (1, 0));
        assert_eq!(diff(&data, &last), "@@ -1 +1,2 @@\n one\n+two");
    }

    #[test]
    fn undo_restores_the_previous_text_as_a_new_commit() {
        let (_tmp, data) = repo();
        std::fs::write(path(&data), "keep\n").unwrap();
        commit(&data, "first");
        std::fs::write(path(&data), "keep\nmistake\n").unwrap();
        commit(&data, "second");
        let undone = undo(&data).unwrap();
        assert_eq!(undone.reverted.subject, "auto: memory: second");
        assert_eq!(std::fs::read_to_string(path(&data)).unwrap(), "keep\n");
        let log = subjects(&data);
        assert_eq!(log.len(), 3, "{log:?}");
        assert!(log[0].starts_with("auto: memory: undo "), "{log:?}");
        assert_eq!(log[1], "auto: memory: second");
    }

    #[test]
    fn a_button_undoes_only_the_change_it_was_shown_with() {
        let (_tmp, data) = repo();
        std::fs::write(path(&data), "one\n").unwrap();
        commit(&data, "first");
        let shown = last_change(&data).unwrap();
        let id = undo_button_id(&shown);
        assert_eq!(undo_button_change(&id), Some(shown.short()));
        assert_eq!(undo_button_change("act:routine_run:a1b2c3d4"), None);
        std::fs::write(path(&data), "one\ntwo\n").unwrap();
        commit(&data, "second");
        assert!(matches!(
            undo_if_last(&data, Some(shown.short())),
            Err(Error::Moved(_))
        ));
        assert_eq!(std::fs::read_to_string(path(&data)).unwrap(), "one\ntwo\n");
    }

    #[test]
    fn undoing_the_creation_removes_the_file_and_an_outside_edit_is_kept_in_history() {
        let (_tmp, data) = repo();
        assert!(matches!(undo(&data), Err(Error::NoHistory)));
        std::fs::write(path(&data), "hand written\n").unwrap();
        let undone = undo(&data).unwrap();
        assert_eq!(undone.restored, None);
        assert!(!path(&data).exists());
        assert_eq!(
            subjects(&data)[1],
            "auto: memory: edited outside the file tools"
        );
    }

    #[test]
    fn an_undo_git_cannot_record_restores_the_file_and_says_the_history_lacks_it() {
        let (_tmp, data) = repo();
        std::fs::write(path(&data), "keep\n").unwrap();
        commit(&data, "first");
        std::fs::write(path(&data), "keep\nmistake\n").unwrap();
        commit(&data, "second");
        refuse_commits(&data);
        let result = undo(&data);
        let answer = super::super::status::undo_answer(&result);
        assert!(
            answer.starts_with("undid ")
                && answer.contains("could not be recorded in its history")
                && answer.contains("hook says no"),
            "{answer}"
        );
        assert_eq!(std::fs::read_to_string(path(&data)).unwrap(), "keep\n");
        assert_eq!(
            subjects(&data)[0],
            "auto: memory: second",
            "nothing recorded"
        );
    }

    #[test]
    fn an_outside_edit_git_cannot_record_is_not_undone_over() {
        let (_tmp, data) = repo();
        std::fs::write(path(&data), "keep\n").unwrap();
        commit(&data, "first");
        refuse_commits(&data);
        std::fs::write(path(&data), "keep\nby hand\n").unwrap();
        let result = undo(&data);
        assert!(matches!(result, Err(Error::Unrecorded(_))), "{result:?}");
        let answer = super::super::status::undo_answer(&result);
        assert!(
            answer.starts_with("nothing undone:") && answer.contains("hook says no"),
            "{answer}"
        );
        assert_eq!(
            std::fs::read_to_string(path(&data)).unwrap(),
            "keep\nby hand\n",
            "the hand edit is kept"
        );
    }
}
