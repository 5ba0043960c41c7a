//! The profile at the top of the system prompt (SPEC §14): `IDENTITY.md`, the bot's persona,
//! and `USER.md`, what the user chose to say about themselves, both in the data directory.
//!
//! `IDENTITY.md` is written from `config/identity-template.md` with the bot's and user's names
//! the first time the bot starts and is never overwritten afterwards: from then on it belongs
//! to the user (and the agent, which may edit it). `USER.md` is never created by the program.
//! Both are read verbatim, without placeholder substitution.

use std::io;
use std::path::Path;

use crate::base::data_dir::DataDir;
use crate::base::state_file;

use super::sections::fill;
use super::Names;

/// The persona file's name in the data directory.
pub const IDENTITY_FILE: &str = "IDENTITY.md";

/// The user's own file's name in the data directory.
pub const USER_FILE: &str = "USER.md";

const IDENTITY_TEMPLATE: &str = include_str!("../../../../config/identity-template.md");

/// The text a fresh `IDENTITY.md` gets for these names.
pub fn identity_text(names: &Names) -> String {
    fill(
        IDENTITY_TEMPLATE,
        &[("BOT_NAME", &names.bot), ("USER_NAME", &names.user)],
    )
}

/// Creates `IDENTITY.md` from the template when there is none (a dangling symlink counts as
/// present: it is the user's). Returns whether it was created; an existing file is never
/// touched. The new file is committed to the data directory's history.
pub fn ensure_identity(data: &DataDir, names: &Names) -> Result<bool, state_file::Error> {
    let path = data.root().join(IDENTITY_FILE);
    match path.symlink_metadata() {
        Ok(_) => return Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(state_file::Error::Io {
                action: "checking",
                path,
                source,
            })
        }
    }
    state_file::write_atomic(&path, identity_text(names).as_bytes())?;
    tracing::info!(file = %path.display(), "created the identity profile from the template");
    data.commit(&path, &format!("auto: write {IDENTITY_FILE}"));
    Ok(true)
}

/// `IDENTITY.md` then `USER.md`, each trimmed and separated by a blank line; `None` when
/// neither exists or both are empty. A file that cannot be read is logged and left out.
pub fn load_profile(data: &DataDir) -> Option<String> {
    let parts: Vec<String> = [IDENTITY_FILE, USER_FILE]
        .into_iter()
        .filter_map(|name| read_optional(&data.root().join(name)))
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

fn read_optional(path: &Path) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(cause) => {
            tracing::warn!(file = %path.display(), %cause, "profile file unreadable; left out of the prompt");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Names {
        Names {
            user: "Robin".to_owned(),
            bot: "Pip".to_owned(),
        }
    }

    #[test]
    fn identity_is_created_once_with_both_names() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        assert!(ensure_identity(&data, &names()).unwrap());
        let text = std::fs::read_to_string(tmp.path().join(IDENTITY_FILE)).unwrap();
        assert!(text.contains("I am Pip, Robin's personal assistant"));
        assert!(!text.contains("{BOT_NAME}") && !text.contains("{USER_NAME}"));
        assert!(!ensure_identity(&data, &names()).unwrap());
    }

    #[test]
    fn existing_identity_is_never_overwritten() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let path = tmp.path().join(IDENTITY_FILE);
        std::fs::write(&path, "my own persona\n").unwrap();
        let other = Names {
            user: "Someone".to_owned(),
            bot: "Else".to_owned(),
        };
        assert!(!ensure_identity(&data, &other).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "my own persona\n");
    }

    #[test]
    fn user_file_is_never_created() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        ensure_identity(&data, &names()).unwrap();
        assert!(!tmp.path().join(USER_FILE).exists());
    }

    #[test]
    fn profile_joins_identity_then_user_and_skips_missing_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        assert_eq!(load_profile(&data), None);
        std::fs::write(tmp.path().join(USER_FILE), "\nI like lists.\n").unwrap();
        assert_eq!(load_profile(&data).as_deref(), Some("I like lists."));
        std::fs::write(tmp.path().join(IDENTITY_FILE), "# Pip\n").unwrap();
        assert_eq!(
            load_profile(&data).as_deref(),
            Some("# Pip\n\nI like lists.")
        );
    }
}
