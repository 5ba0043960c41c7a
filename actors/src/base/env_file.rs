//! Changing variables in a `.env` file (the `update_names` tool, SPEC §17): each variable named
//! gets one `KEY=value` line, in place of its existing line (an `export KEY=` line too), or
//! appended; every other line — comments, blank lines, other variables, their order — stays
//! as it was. The file is replaced atomically (it holds the bot's secrets: never half-written).

use std::path::Path;

use crate::base::state_file;

/// Why a `.env` file could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum EnvFileError {
    /// It exists but could not be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Writing it failed.
    #[error(transparent)]
    Write(#[from] state_file::Error),
}

/// A value as a `.env` line carries it: bare when it is plain, else double-quoted with `\` and
/// `"` escaped.
fn quoted(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '@' | '/' | ':'));
    if plain {
        return value.to_owned();
    }
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{escaped}\"")
}

/// The variable a line sets, if any (`KEY=…` or `export KEY=…`).
fn key_of(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
    let (key, _) = line.split_once('=')?;
    let key = key.trim_end();
    (!key.is_empty() && !key.starts_with('#')).then_some(key)
}

/// `text` with each of `vars` set (values are single-line; the caller checks).
pub fn with_vars(text: &str, vars: &[(&str, &str)]) -> String {
    let mut done = vec![false; vars.len()];
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.lines() {
        let replaced = key_of(line).and_then(|k| vars.iter().position(|(name, _)| *name == k));
        match replaced {
            // A second line for the same key goes: the first one now says it.
            Some(i) if done[i] => continue,
            Some(i) => {
                done[i] = true;
                out.push_str(&format!("{}={}\n", vars[i].0, quoted(vars[i].1)));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    for (i, (name, value)) in vars.iter().enumerate() {
        if !done[i] {
            out.push_str(&format!("{name}={}\n", quoted(value)));
        }
    }
    out
}

/// Sets `vars` in the `.env` file at `path` (created when missing).
pub fn set_vars(path: &Path, vars: &[(&str, &str)]) -> Result<(), EnvFileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(EnvFileError::Read {
                path: path.display().to_string(),
                source,
            })
        }
    };
    state_file::write_atomic(path, with_vars(&text, vars).as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_variables_are_replaced_in_place_and_every_other_line_kept() {
        let text = "# my bot\nDISCORD_TOKEN=abc\nexport OLLIM_USER_NAME=Old\n\nOLLIM_TIMEZONE=Europe/Paris\n";
        let out = with_vars(
            text,
            &[("OLLIM_USER_NAME", "Sam"), ("OLLIM_BOT_NAME", "Ollie")],
        );
        assert_eq!(
            out,
            "# my bot\nDISCORD_TOKEN=abc\nOLLIM_USER_NAME=Sam\n\nOLLIM_TIMEZONE=Europe/Paris\nOLLIM_BOT_NAME=Ollie\n"
        );
    }

    #[test]
    fn values_with_spaces_or_quotes_are_quoted_and_read_back_the_same() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(".env");
        std::fs::write(&path, "OLLIM_BOT_NAME=x\nOLLIM_BOT_NAME=y\n").unwrap();
        set_vars(
            &path,
            &[
                ("OLLIM_BOT_NAME", "Mr \"B\" \\ Bot"),
                ("OLLIM_USER_NAME", ""),
            ],
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches("OLLIM_BOT_NAME=").count(), 1, "{text}");
        let read: std::collections::HashMap<String, String> = dotenvy::from_path_iter(&path)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(read["OLLIM_BOT_NAME"], "Mr \"B\" \\ Bot");
        assert_eq!(read["OLLIM_USER_NAME"], "");
    }

    #[test]
    fn a_missing_file_is_created() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(".env");
        set_vars(&path, &[("OLLIM_USER_NAME", "Sam")]).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "OLLIM_USER_NAME=Sam\n"
        );
    }
}
