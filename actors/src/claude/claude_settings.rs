//! The CLI's project settings in the data directory, `.claude/settings.json` (SPEC §17, as
//! the original since 2026-04-19): at start the bot turns the CLI's auto-memory off there, since
//! the bot keeps its memory in its own files and never reads the CLI's parallel notes — unless
//! the owner has set `autoMemoryEnabled` either way.
//!
//! The file is edited as text so everything else in it (keys, order, formatting) stays as the
//! owner left it. A file that is not a JSON object is left alone with a warning.

use std::path::PathBuf;

use serde_json::Value;

use crate::base::data_dir::DataDir;
use crate::base::state_file;

/// The file, relative to the data directory.
pub const SETTINGS_FILE: &str = ".claude/settings.json";

/// The key the bot sets.
pub const AUTO_MEMORY_KEY: &str = "autoMemoryEnabled";

/// What [`turn_auto_memory_off`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AutoMemory {
    /// The key was missing: set to `false` (the file created if need be).
    TurnedOff,
    /// The owner set the key: left as it is.
    OwnerSet,
    /// The file is not a JSON object: left alone (the reason).
    Unreadable(String),
}

/// What went wrong writing the file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file exists but could not be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// It could not be written.
    #[error(transparent)]
    Write(#[from] state_file::Error),
}

/// Sets `autoMemoryEnabled: false` in the data directory's CLI settings unless the key is
/// there already.
pub fn turn_auto_memory_off(data: &DataDir) -> Result<AutoMemory, Error> {
    let path = data.root().join(SETTINGS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(Error::Read { path, source }),
    };
    let updated = match text.as_deref() {
        None => format!("{{\n  \"{AUTO_MEMORY_KEY}\": false\n}}\n"),
        Some(text) => match with_key_added(text) {
            Ok(Some(updated)) => updated,
            Ok(None) => return Ok(AutoMemory::OwnerSet),
            Err(why) => {
                tracing::warn!(file = %path.display(), %why, "the claude settings are not a JSON object; auto-memory left as it is");
                return Ok(AutoMemory::Unreadable(why));
            }
        },
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| Error::Read {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    state_file::write_atomic(&path, updated.as_bytes())?;
    data.commit(&path, &format!("auto: write {SETTINGS_FILE}"));
    tracing::info!(file = %path.display(), "claude auto-memory turned off for the data directory");
    Ok(AutoMemory::TurnedOff)
}

/// `text` with the key added as the object's first member; `Ok(None)` when the key is set
/// already; `Err` with the reason when `text` is not a JSON object.
fn with_key_added(text: &str) -> Result<Option<String>, String> {
    let parsed: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let Some(object) = parsed.as_object() else {
        return Err("the file is JSON but not an object".to_owned());
    };
    if object.contains_key(AUTO_MEMORY_KEY) {
        return Ok(None);
    }
    let open = text
        .find('{')
        .ok_or_else(|| "no opening brace".to_owned())?;
    let member = format!("\n  \"{AUTO_MEMORY_KEY}\": false");
    let separator = if object.is_empty() { "\n" } else { "," };
    let mut out = String::with_capacity(text.len() + member.len() + 1);
    out.push_str(&text[..=open]);
    out.push_str(&member);
    out.push_str(separator);
    let rest = &text[open + 1..];
    out.push_str(if object.is_empty() {
        rest.trim_start()
    } else {
        rest
    });
    // The edit must leave the same object plus the key; anything else is a bug here.
    match serde_json::from_str::<Value>(&out) {
        Ok(Value::Object(edited)) if edited.len() == object.len() + 1 => Ok(Some(out)),
        _ => Err("the file could not be edited safely".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(text: Option<&str>) -> (tempfile::TempDir, DataDir) {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        if let Some(text) = text {
            std::fs::create_dir_all(tmp.path().join(".claude")).unwrap();
            std::fs::write(tmp.path().join(SETTINGS_FILE), text).unwrap();
        }
        (tmp, data)
    }

    fn read(data: &DataDir) -> String {
        std::fs::read_to_string(data.root().join(SETTINGS_FILE)).unwrap()
    }

    fn json(data: &DataDir) -> Value {
        serde_json::from_str(&read(data)).unwrap()
    }

    #[test]
    fn a_missing_file_is_created_with_auto_memory_off() {
        let (_tmp, data) = setup(None);
        assert_eq!(turn_auto_memory_off(&data).unwrap(), AutoMemory::TurnedOff);
        assert_eq!(json(&data), serde_json::json!({"autoMemoryEnabled": false}));
    }

    #[test]
    fn other_keys_stay_as_they_were_written() {
        let original =
            "{\n    \"permissions\": {\"allow\": [\"Bash(ls)\"]},\n    \"model\": \"sonnet\"\n}\n";
        let (_tmp, data) = setup(Some(original));
        assert_eq!(turn_auto_memory_off(&data).unwrap(), AutoMemory::TurnedOff);
        let text = read(&data);
        assert!(text.ends_with(&original[1..]), "{text}");
        let value = json(&data);
        assert_eq!(value["autoMemoryEnabled"], false);
        assert_eq!(value["model"], "sonnet");
        assert_eq!(value["permissions"]["allow"][0], "Bash(ls)");
        // Once set, the next start changes nothing.
        assert_eq!(turn_auto_memory_off(&data).unwrap(), AutoMemory::OwnerSet);
        assert_eq!(read(&data), text);
    }

    #[test]
    fn an_empty_object_gets_the_key() {
        let (_tmp, data) = setup(Some("{}"));
        turn_auto_memory_off(&data).unwrap();
        assert_eq!(json(&data), serde_json::json!({"autoMemoryEnabled": false}));
    }

    #[test]
    fn the_owners_choice_is_kept_either_way() {
        for text in [
            "{\"autoMemoryEnabled\": true}",
            "{\"autoMemoryEnabled\": false, \"x\": 1}",
        ] {
            let (_tmp, data) = setup(Some(text));
            assert_eq!(turn_auto_memory_off(&data).unwrap(), AutoMemory::OwnerSet);
            assert_eq!(read(&data), text);
        }
    }

    #[test]
    fn a_malformed_file_is_left_alone() {
        for text in ["{\"model\": ", "[1, 2]", ""] {
            let (_tmp, data) = setup(Some(text));
            assert!(matches!(
                turn_auto_memory_off(&data).unwrap(),
                AutoMemory::Unreadable(_)
            ));
            assert_eq!(read(&data), text);
        }
    }
}
