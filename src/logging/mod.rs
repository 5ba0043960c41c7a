//! The one tracing subscriber: level from `RUST_LOG` (default `info` for the bot, `warn` for
//! commands), readable lines or JSON lines (`--log-json` / `OLLIM_LOG_FORMAT=json`), and where
//! they go:
//!
//! | run | log lines | terminal |
//! | --- | --- | --- |
//! | the console | `logs/ollim-bot.log` in the data directory (or `OLLIM_LOG_FILE`), a new file every day, 7 kept | one short line per warning or error ([`terminal_notes`]); `-v`: every line |
//! | Discord | stderr (journald under systemd), or `OLLIM_LOG_FILE` when set | — |
//! | a command | stderr | — |
//!
//! Every line passes through [`redacting`] first: the Discord token and webhook secrets never
//! reach the log (SPEC §20).

mod daily_file;
mod redacting;
mod terminal_notes;

use std::path::PathBuf;

use chrono_tz::Tz;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer};

pub use daily_file::DailyFile;

/// The variable naming a log file (any surface).
pub const FILE_VAR: &str = "OLLIM_LOG_FILE";

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// One readable line per event.
    Human,
    /// One JSON object per event.
    Json,
}

impl LogFormat {
    /// `Json` when asked by flag or by `OLLIM_LOG_FORMAT=json`.
    pub fn choose(flag: bool) -> Self {
        let env_json = std::env::var("OLLIM_LOG_FORMAT")
            .map(|v| v.eq_ignore_ascii_case("json"))
            .unwrap_or(false);
        if flag || env_json {
            LogFormat::Json
        } else {
            LogFormat::Human
        }
    }
}

/// Where the log goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    /// A daily file, when there is one.
    pub file: Option<PathBuf>,
    /// Every line on stderr too (else, with a file, only short notes of warnings and errors).
    pub stderr: bool,
    /// The zone whose midnight starts a new file.
    pub zone: Tz,
}

impl Destination {
    /// A command's log: stderr only.
    pub fn stderr() -> Self {
        Destination {
            file: None,
            stderr: true,
            zone: Tz::UTC,
        }
    }

    /// The bot's log on its surface. `console_file` is the console's default file;
    /// `explicit` is `OLLIM_LOG_FILE`; `verbose` is `-v`.
    pub fn for_bot(
        console_file: Option<PathBuf>,
        explicit: Option<PathBuf>,
        verbose: bool,
        zone: Tz,
    ) -> Self {
        let file = explicit.or(console_file);
        Destination {
            stderr: verbose || file.is_none(),
            file,
            zone,
        }
    }
}

/// Installs the global subscriber. `default_level` applies when `RUST_LOG` is unset. A file
/// that cannot be opened falls back to stderr, saying so.
pub fn init(format: LogFormat, default_level: &str, to: &Destination) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_level));
    let mut stderr = to.stderr;
    let mut notes = false;
    let file = to
        .file
        .as_ref()
        .and_then(|path| match DailyFile::open(path, to.zone) {
            Ok(file) => {
                notes = !stderr;
                Some(file)
            }
            Err(e) => {
                eprintln!(
                    "warning: cannot write the log to {}: {e}; logging to the terminal instead",
                    path.display()
                );
                stderr = true;
                None
            }
        });
    let mut layers: Vec<BoxedLayer> = Vec::new();
    if let Some(file) = file {
        layers.push(line_layer(format, file, false));
    }
    if stderr {
        layers.push(line_layer(format, std::io::stderr, true));
    }
    if notes {
        layers.push(terminal_notes::TerminalNotes.boxed());
    }
    // A second init (tests) is harmless: keep the first subscriber.
    let _ = tracing_subscriber::registry()
        .with(layers)
        .with(filter)
        .try_init();
}

type BoxedLayer = Box<dyn Layer<tracing_subscriber::Registry> + Send + Sync>;

fn line_layer<W>(format: LogFormat, writer: W, ansi: bool) -> BoxedLayer
where
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(redacting::Redacting(writer))
        .with_ansi(ansi && std::io::IsTerminal::is_terminal(&std::io::stderr()));
    match format {
        LogFormat::Human => layer.boxed(),
        LogFormat::Json => layer.json().boxed(),
    }
}
