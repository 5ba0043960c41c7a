//! The one tracing subscriber: level from `RUST_LOG` (default `info`), human-readable lines on
//! stderr, or JSON lines with `--log-json` / `OLLIM_LOG_FORMAT=json`.

use tracing_subscriber::EnvFilter;

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

/// Installs the global subscriber. `default_level` applies when `RUST_LOG` is unset.
pub fn init(format: LogFormat, default_level: &str) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_level));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // A second init (tests) is harmless: keep the first subscriber.
    let _ = match format {
        LogFormat::Human => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
