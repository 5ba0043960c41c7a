//! A log file that starts afresh every day: `ollim-bot.log` holds today's lines; at the first
//! line of a new day (in the configured zone) it is renamed to `ollim-bot.log.<YYYY-MM-DD>` and
//! only the newest [`KEEP`] dated files stay. A file left by an earlier run is rotated the same
//! way when it belongs to an earlier day.
//!
//! Our own small writer rather than `tracing-appender`: this is all we need of it, and every
//! crate costs build time.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use parking_lot::Mutex;
use tracing_subscriber::fmt::MakeWriter;

/// How many dated files are kept beside the current one.
pub const KEEP: usize = 7;

/// The log file; shared by every thread that logs.
pub struct DailyFile {
    state: Mutex<State>,
}

struct State {
    path: PathBuf,
    zone: Tz,
    day: NaiveDate,
    file: File,
}

impl DailyFile {
    /// Opens (creating it and its directory) the log at `path`, first rotating a file left from
    /// an earlier day.
    pub fn open(path: &Path, zone: Tz) -> io::Result<Self> {
        Self::open_at(path, zone, Utc::now())
    }

    fn open_at(path: &Path, zone: Tz, now: DateTime<Utc>) -> io::Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)?;
        }
        let today = day_in(zone, now);
        if let Some(written) = day_written(path, zone) {
            if written < today {
                rotate(path, written)?;
            }
        }
        let file = append(path)?;
        Ok(DailyFile {
            state: Mutex::new(State {
                path: path.to_path_buf(),
                zone,
                day: today,
                file,
            }),
        })
    }

    /// Writes `bytes` as of `now`, rotating first when the day has changed.
    fn write_at(&self, bytes: &[u8], now: DateTime<Utc>) -> io::Result<()> {
        let mut state = self.state.lock();
        let today = day_in(state.zone, now);
        if today > state.day {
            // A failed rotation keeps writing to the old file rather than losing lines.
            if rotate(&state.path, state.day).is_ok() {
                if let Ok(file) = append(&state.path) {
                    state.file = file;
                }
            }
            state.day = today;
        }
        state.file.write_all(bytes)
    }
}

fn day_in(zone: Tz, at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&zone).date_naive()
}

/// The day the file at `path` was last written, if it exists.
fn day_written(path: &Path, zone: Tz) -> Option<NaiveDate> {
    let modified = fs::metadata(path).ok()?.modified().ok()?;
    Some(day_in(zone, DateTime::<Utc>::from(modified)))
}

fn append(path: &Path) -> io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

/// Renames the current file to its dated name (never over an existing one), then prunes.
fn rotate(path: &Path, day: NaiveDate) -> io::Result<()> {
    let base = format!("{}.{}", path.display(), day.format("%Y-%m-%d"));
    let mut target = PathBuf::from(&base);
    let mut n = 1;
    while target.exists() {
        target = PathBuf::from(format!("{base}.{n}"));
        n += 1;
    }
    fs::rename(path, &target)?;
    prune(path);
    Ok(())
}

/// Deletes all but the newest [`KEEP`] dated files of `path`.
fn prune(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let prefix = format!("{}.", name.to_string_lossy());
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut dated: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        })
        .collect();
    // Dated names sort by day (and `.1`, `.2` after their day).
    dated.sort();
    let excess = dated.len().saturating_sub(KEEP);
    for old in &dated[..excess] {
        let _ = fs::remove_file(old);
    }
}

/// One event's writer: the formatted line goes out in one `write_all`.
pub struct Handle<'a>(&'a DailyFile);

impl Write for Handle<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write_at(buf, Utc::now())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for DailyFile {
    type Writer = Handle<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        Handle(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_new_day_moves_the_file_aside_and_keeps_seven() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("logs").join("ollim-bot.log");
        let zone: Tz = "Europe/Berlin".parse().unwrap();
        // 23:30 in Berlin on 1 March.
        let start = Utc.with_ymd_and_hms(2026, 3, 1, 22, 30, 0).unwrap();
        let log = DailyFile::open_at(&path, zone, start).unwrap();
        log.write_at(b"day 1\n", start).unwrap();
        for day in 1..=9 {
            let at = start + chrono::Duration::days(day);
            log.write_at(format!("day {}\n", day + 1).as_bytes(), at)
                .unwrap();
        }
        let dir = path.parent().unwrap();
        let kept = names(dir);
        assert_eq!(kept.len(), KEEP + 1, "{kept:?}");
        assert_eq!(kept[0], "ollim-bot.log");
        assert_eq!(kept[1], "ollim-bot.log.2026-03-03");
        assert_eq!(kept[KEEP], "ollim-bot.log.2026-03-09");
        assert_eq!(fs::read_to_string(&path).unwrap(), "day 10\n");
        assert_eq!(
            fs::read_to_string(dir.join("ollim-bot.log.2026-03-09")).unwrap(),
            "day 9\n"
        );
    }

    #[test]
    fn the_day_follows_the_zone_not_utc() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("ollim-bot.log");
        let zone: Tz = "America/Los_Angeles".parse().unwrap();
        // 20:00 and 23:59 on 1 March in Los Angeles are already 2 March in UTC.
        let evening = Utc.with_ymd_and_hms(2026, 3, 2, 4, 0, 0).unwrap();
        let log = DailyFile::open_at(&path, zone, evening).unwrap();
        log.write_at(b"a\n", evening).unwrap();
        log.write_at(b"b\n", evening + chrono::Duration::minutes(239))
            .unwrap();
        assert_eq!(names(tmp.path()), ["ollim-bot.log"]);
        log.write_at(b"c\n", evening + chrono::Duration::minutes(241))
            .unwrap();
        assert_eq!(
            names(tmp.path()),
            ["ollim-bot.log", "ollim-bot.log.2026-03-01"]
        );
    }

    #[test]
    fn a_file_from_an_earlier_run_and_day_is_rotated_at_open() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("ollim-bot.log");
        fs::write(&path, "old run\n").unwrap();
        let written = fs::metadata(&path).unwrap().modified().unwrap();
        let later = DateTime::<Utc>::from(written) + chrono::Duration::days(2);
        let log = DailyFile::open_at(&path, Tz::UTC, later).unwrap();
        log.write_at(b"new run\n", later).unwrap();
        let day = DateTime::<Utc>::from(written).date_naive();
        assert_eq!(
            fs::read_to_string(tmp.path().join(format!("ollim-bot.log.{day}"))).unwrap(),
            "old run\n"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "new run\n");
    }

    #[test]
    fn a_file_from_today_is_appended_to() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("ollim-bot.log");
        fs::write(&path, "earlier today\n").unwrap();
        let log = DailyFile::open(&path, Tz::UTC).unwrap();
        log.make_writer().write_all(b"now\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "earlier today\nnow\n");
    }
}
