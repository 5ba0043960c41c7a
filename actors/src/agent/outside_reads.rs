//! Which background forks read outside text (SPEC §20, the "second hop"): an update reported by
//! a fork that printed an email, an event or a task — or that ran for a webhook — reaches the
//! main session marked [`SECOND_HOP_MARK`].
//!
//! How the bot learns it: each background fork's CLI gets a fresh token in [`TOKEN_ENV`], which
//! its shell commands inherit. Our `gmail`/`cal`/`tasks` commands, before they print any outside
//! text, create `state/outside_reads/<token>` ([`note`]); when they cannot, they print nothing
//! and fail, so a read is never shown unrecorded. The fork checks the file when the agent calls
//! `report_updates` ([`was_noted`]) and removes it when it stops ([`forget`]). Run by hand (no
//! token), the commands print as usual. Only a token of letters, digits and `-` is accepted, so
//! the variable cannot point a write outside that directory.

use std::io;
use std::path::{Path, PathBuf};

use crate::base::data_dir::DataDir;

/// The variable a background fork's CLI (and every command it runs) carries.
pub const TOKEN_ENV: &str = "OLLIM_OUTSIDE_READ_TOKEN";

/// What an update from such a fork is prefixed with when the main session receives it.
pub const SECOND_HOP_MARK: &str = "(from a background job that read outside content)";

/// The directory of notes inside `state/`.
pub const DIR: &str = "outside_reads";

/// A fresh token for one fork.
pub fn new_token() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The note's path for `token`, or `None` when the token is not one we hand out.
pub fn note_path(state_dir: &Path, token: &str) -> Option<PathBuf> {
    let valid = !token.is_empty()
        && token.len() <= 64
        && token.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    valid.then(|| state_dir.join(DIR).join(token))
}

/// Records that the fork holding `token` read outside text.
pub fn note(state_dir: &Path, token: &str) -> io::Result<()> {
    let path = note_path(state_dir, token).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{TOKEN_ENV} is not a token the bot hands out"),
        )
    })?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&path, b"")
}

/// True when the fork holding `token` read outside text.
pub fn was_noted(data_dir: &DataDir, token: &str) -> bool {
    note_path(&data_dir.state(), token).is_some_and(|p| p.exists())
}

/// Removes the fork's note (it has stopped); a missing note is fine.
pub fn forget(data_dir: &DataDir, token: &str) {
    if let Some(path) = note_path(&data_dir.state(), token) {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(file = %path.display(), cause = %e, "could not remove an outside-read note")
            }
        }
    }
}

/// `message` as the main session should receive it from a fork that read outside text.
pub fn marked(message: &str) -> String {
    format!("{SECOND_HOP_MARK} {message}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_seen_until_forgotten() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let token = new_token();
        assert!(!was_noted(&data, &token));
        note(&data.state(), &token).unwrap();
        assert!(was_noted(&data, &token));
        forget(&data, &token);
        assert!(!was_noted(&data, &token));
    }

    #[test]
    fn tokens_that_could_leave_the_directory_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        for bad in ["", "../x", "a/b", ".", "a b"] {
            assert!(note(tmp.path(), bad).is_err(), "{bad:?}");
        }
    }
}
