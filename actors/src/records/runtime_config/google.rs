//! The two Google keys of `/config` (SPEC §17): `google_calendars`, the calendars `ollim-bot cal`
//! reads (comma-separated ids; the first is where writes go; empty falls back to `primary`),
//! and `google_task_list`, the list `ollim-bot tasks` and the task buttons use (`@default`).
//! Ids, not small values, so they live beside the copyable [`super::RuntimeConfig`]. The
//! command line and the Google buttons read them from `state/config.json` with [`read`], which
//! never moves or writes the file.

use std::path::Path;

use serde_json::{Map, Value};

use crate::base::data_dir::DataDir;

/// The calendar queried when none is configured.
pub const DEFAULT_CALENDAR: &str = "primary";
/// The task list used when none is configured.
pub const DEFAULT_TASK_LIST: &str = "@default";
/// Most calendars `google_calendars` may name.
pub const MAX_CALENDARS: usize = 20;
/// Longest id accepted.
const MAX_ID_CHARS: usize = 300;

/// Which calendars and which task list Google commands use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoogleTargets {
    calendars: Vec<String>,
    task_list: String,
}

impl Default for GoogleTargets {
    fn default() -> Self {
        GoogleTargets {
            calendars: vec![DEFAULT_CALENDAR.to_owned()],
            task_list: DEFAULT_TASK_LIST.to_owned(),
        }
    }
}

impl GoogleTargets {
    /// The calendars to read, in the configured order; never empty.
    pub fn calendars(&self) -> &[String] {
        &self.calendars
    }

    /// Where writes go when no calendar is named: the first configured one.
    pub fn write_calendar(&self) -> &str {
        self.calendars
            .first()
            .map_or(DEFAULT_CALENDAR, String::as_str)
    }

    /// The task list.
    pub fn task_list(&self) -> &str {
        &self.task_list
    }

    /// `google_calendars` as shown and stored: the ids joined by commas.
    pub(super) fn calendars_label(&self) -> String {
        self.calendars.join(",")
    }

    /// Sets `google_calendars` from a typed value.
    pub(super) fn set_calendars(&mut self, value: &str) -> Result<(), ()> {
        self.calendars = parse_calendars(value.split(','))?;
        Ok(())
    }

    /// Sets `google_task_list` from a typed value; empty means the default list.
    pub(super) fn set_task_list(&mut self, value: &str) -> Result<(), ()> {
        let value = value.trim();
        self.task_list = if value.is_empty() {
            DEFAULT_TASK_LIST.to_owned()
        } else {
            valid_id(value, false)?.to_owned()
        };
        Ok(())
    }

    /// The two fields of the file's object, leniently: a comma-separated string or a list for
    /// the calendars; an unusable value keeps its default with a warning.
    pub(super) fn from_object(path: &Path, object: &Map<String, Value>) -> Self {
        let mut targets = GoogleTargets::default();
        if let Some(value) = object.get("google_calendars") {
            let parsed = match value {
                Value::String(s) => parse_calendars(s.split(',')),
                Value::Array(items) => items
                    .iter()
                    .map(|v| v.as_str().ok_or(()))
                    .collect::<Result<Vec<_>, ()>>()
                    .and_then(|ids| parse_calendars(ids.into_iter())),
                Value::Null => Ok(GoogleTargets::default().calendars),
                _ => Err(()),
            };
            match parsed {
                Ok(calendars) => targets.calendars = calendars,
                Err(()) => unusable(path, "google_calendars", value),
            }
        }
        if let Some(value) = object.get("google_task_list") {
            let parsed = match value {
                Value::String(s) => targets.set_task_list(s),
                Value::Null => Ok(()),
                _ => Err(()),
            };
            if parsed.is_err() {
                unusable(path, "google_task_list", value);
            }
        }
        targets
    }
}

fn unusable(path: &Path, field: &str, value: &Value) {
    tracing::warn!(
        file = %path.display(),
        field,
        %value,
        "unusable runtime config value; using the default"
    );
}

/// An id as typed: no spaces or control characters, not too long (a comma only where the value
/// is one id).
fn valid_id(id: &str, in_list: bool) -> Result<&str, ()> {
    let bad = |c: char| c.is_whitespace() || c.is_control() || (!in_list && c == ',');
    if id.is_empty() || id.chars().count() > MAX_ID_CHARS || id.chars().any(bad) {
        return Err(());
    }
    Ok(id)
}

/// The calendar ids of a list: trimmed, blanks dropped, repeats removed; none at all falls back
/// to `primary` (so `cal calendars` stays usable to recover).
fn parse_calendars<'a>(items: impl Iterator<Item = &'a str>) -> Result<Vec<String>, ()> {
    let mut ids: Vec<String> = Vec::new();
    for item in items.map(str::trim).filter(|i| !i.is_empty()) {
        let id = valid_id(item, true)?;
        if !ids.iter().any(|known| known == id) {
            ids.push(id.to_owned());
        }
    }
    if ids.len() > MAX_CALENDARS {
        return Err(());
    }
    if ids.is_empty() {
        ids.push(DEFAULT_CALENDAR.to_owned());
    }
    Ok(ids)
}

/// The Google keys of `data`'s `state/config.json`, read without moving or writing anything: a
/// missing file gives the defaults; an unreadable one is an error naming it (callers warn and
/// use the defaults).
pub fn read(data: &DataDir) -> Result<GoogleTargets, String> {
    read_file(&data.state_file(super::FILE_NAME))
}

/// [`read`] for the config file at `path`.
pub fn read_file(path: &Path) -> Result<GoogleTargets, String> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(GoogleTargets::default()),
        Err(e) => return Err(format!("reading {}: {e}", path.display())),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(GoogleTargets::default());
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(object)) => Ok(GoogleTargets::from_object(path, &object)),
        Ok(_) => Err(format!("{} is not a JSON object", path.display())),
        Err(e) => Err(format!("{} does not parse: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendars_are_a_comma_list_and_an_empty_one_means_primary() {
        let mut t = GoogleTargets::default();
        assert_eq!(t.calendars(), ["primary"]);
        t.set_calendars(" primary , work@example.com,,primary ")
            .unwrap();
        assert_eq!(t.calendars(), ["primary", "work@example.com"]);
        assert_eq!(t.write_calendar(), "primary");
        t.set_calendars("  , ").unwrap();
        assert_eq!(t.calendars(), ["primary"]);
        assert!(t.set_calendars("work calendar").is_err());
        let many: Vec<String> = (0..21).map(|n| format!("c{n}")).collect();
        assert!(t.set_calendars(&many.join(",")).is_err());
    }

    #[test]
    fn the_task_list_is_one_id_and_empty_means_the_default() {
        let mut t = GoogleTargets::default();
        t.set_task_list("MDc3NDk2NzQ3MTE0MTI2NjU5NzU6MDow").unwrap();
        assert_eq!(t.task_list(), "MDc3NDk2NzQ3MTE0MTI2NjU5NzU6MDow");
        t.set_task_list(" ").unwrap();
        assert_eq!(t.task_list(), "@default");
        assert!(t.set_task_list("a,b").is_err());
        assert!(t.set_task_list("two words").is_err());
    }

    #[test]
    fn the_file_is_read_leniently_and_never_moved() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        assert_eq!(read(&data).unwrap(), GoogleTargets::default());
        std::fs::create_dir_all(data.state()).unwrap();
        let path = data.state_file(super::super::FILE_NAME);
        std::fs::write(
            &path,
            r#"{"google_calendars": ["work@example.com", "primary"], "google_task_list": 7}"#,
        )
        .unwrap();
        let t = read(&data).unwrap();
        assert_eq!(t.calendars(), ["work@example.com", "primary"]);
        assert_eq!(t.task_list(), "@default");
        std::fs::write(&path, "{nope").unwrap();
        assert!(read(&data).unwrap_err().contains("config.json"));
        assert!(path.exists(), "a reader leaves a broken file where it is");
    }
}
