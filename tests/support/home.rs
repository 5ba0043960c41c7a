//! A bot's directories for one test: a data directory and a HOME for the bot and its CLI (where
//! the CLI keeps its transcripts). Both outlive one bot process, so a restart reuses them.

use std::path::PathBuf;

/// The directories, removed when dropped.
pub struct Home {
    _tmp: tempfile::TempDir,
    /// The bot's data directory.
    pub data: PathBuf,
    /// HOME for the bot and its CLI.
    pub home: PathBuf,
}

impl Home {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().expect("temp dir");
        let data = tmp.path().join("data");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&home).expect("home");
        Home {
            _tmp: tmp,
            data,
            home,
        }
    }

    /// A file under `state/`.
    pub fn state(&self, name: &str) -> PathBuf {
        self.data.join("state").join(name)
    }

    /// Writes a file under the data directory.
    pub fn write(&self, rel: &str, text: &str) {
        let path = self.data.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

/// A background reminder file due `seconds` from now (America/New_York offsets, as the test bots
/// run in that zone), reporting `freely`.
pub fn background_reminder(seconds: i64, id: &str, body: &str) -> String {
    let at = (chrono::Utc::now() + chrono::Duration::seconds(seconds))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    format!("---\nid: \"{id}\"\nrun-at: \"{at}\"\nbackground: true\nupdate-main-session: \"freely\"\n---\n{body}\n")
}
