//! Paths a person writes: a setting such as `OLLIM_DATA_DIR=~/.ollim-bot` means the directory in
//! the owner's home, as a shell would read it, whether it came from `.env` (which no shell reads)
//! or from the environment (a systemd `Environment=` line is not a shell either).
//!
//! A value that starts with `~`, `$HOME` or `${HOME}`, alone or followed by `/`, starts at the
//! home; anything else (`~jo/x`, `a/~/b`, `$HOMEDIR`) is kept as written, and so is everything
//! when there is no home to put in. The same home stands for `~` in the words of a job's gate and
//! a skill's command (split by the `shell_words` module, which links here).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The settings that name a file or a directory, expanded at start-up before anything reads them
/// (the CLI's `CLAUDE_CONFIG_DIR` too: the bot reads the transcripts there, and the CLI children
/// inherit the expanded value).
pub const PATH_SETTINGS: [&str; 5] = [
    "OLLIM_DATA_DIR",
    "OLLIM_PROJECT_DIR",
    "OLLIM_CLAUDE_BIN",
    "OLLIM_LOG_FILE",
    "CLAUDE_CONFIG_DIR",
];

/// The owner's home: `HOME` of the bot's environment (`None` when unset or empty).
pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// `text` as a path, a leading `~`, `$HOME` or `${HOME}` replaced by `home`.
pub fn expand(text: &str, home: Option<&Path>) -> PathBuf {
    let Some(home) = home else {
        return PathBuf::from(text);
    };
    for prefix in ["~", "${HOME}", "$HOME"] {
        if let Some(rest) = text.strip_prefix(prefix) {
            if rest.is_empty() {
                return home.to_path_buf();
            }
            if let Some(below) = rest.strip_prefix('/') {
                return home.join(below.trim_start_matches('/'));
            }
        }
    }
    PathBuf::from(text)
}

/// The value of each of [`PATH_SETTINGS`] in the process environment that needs expanding, with
/// what it becomes: the caller sets them before any thread starts.
pub fn expanded_environment() -> Vec<(&'static str, OsString)> {
    let home = home();
    PATH_SETTINGS
        .iter()
        .filter_map(|&name| {
            let value = std::env::var(name).ok()?;
            let path = expand(&value, home.as_deref());
            (path.as_os_str() != value.as_str()).then(|| (name, path.into_os_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_home(text: &str) -> PathBuf {
        expand(text, Some(Path::new("/home/me")))
    }

    #[test]
    fn a_leading_tilde_or_home_variable_is_the_home() {
        for text in ["~/x", "$HOME/x", "${HOME}/x", "~//x"] {
            assert_eq!(at_home(text), Path::new("/home/me/x"), "{text}");
        }
        for text in ["~", "$HOME", "${HOME}", "~/"] {
            assert_eq!(at_home(text), Path::new("/home/me"), "{text}");
        }
        assert_eq!(
            at_home("~/.ollim-bot/state"),
            Path::new("/home/me/.ollim-bot/state")
        );
    }

    #[test]
    fn anything_else_is_kept_as_written() {
        for text in [
            "/srv/bot",
            "~jo/x",
            "a/~/b",
            "$HOMEDIR/x",
            "${HOME}x",
            "relative",
            "",
        ] {
            assert_eq!(at_home(text), Path::new(text), "{text}");
        }
        // No home to put in.
        assert_eq!(expand("~/x", None), Path::new("~/x"));
    }
}
