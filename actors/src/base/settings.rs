//! Settings from the environment (SPEC §2): names, time zone, data directory, tokens.
//!
//! Read once at start-up from a lookup function (the process environment after `.env` was
//! loaded), so tests can pass their own. Every problem is collected and reported together,
//! each naming its variable and where to get a value.

use std::fmt;
use std::path::PathBuf;

use chrono_tz::Tz;

use crate::base::data_dir::DataDir;
use crate::base::home_path;

/// Google's REST base; `OLLIM_GOOGLE_API_BASE` replaces it.
pub const DEFAULT_API_BASE: &str = "https://www.googleapis.com";

/// The variable that replaces [`DEFAULT_API_BASE`].
pub const API_BASE_VARIABLE: &str = "OLLIM_GOOGLE_API_BASE";

/// Where every REST call goes: `https://www.googleapis.com` unless replaced; no trailing slash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiBase(url::Url);

impl ApiBase {
    /// Parses a base URL (http or https, no query).
    pub fn parse(text: &str) -> Result<Self, String> {
        let url = url::Url::parse(text.trim())
            .map_err(|e| format!("{text:?} is not a URL ({e}); example: {DEFAULT_API_BASE}"))?;
        if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
            return Err(format!("{text:?} must be an http:// or https:// URL"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(format!("{text:?} must not carry a query or a fragment"));
        }
        Ok(ApiBase(url))
    }

    /// The URL of `segments` under the base, each segment percent-encoded (an id can never
    /// reach another path).
    pub fn url(&self, segments: &[&str]) -> url::Url {
        let mut url = self.0.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments);
        }
        url
    }
}

impl Default for ApiBase {
    fn default() -> Self {
        // A constant that parses; checked by a unit test.
        ApiBase(url::Url::parse(DEFAULT_API_BASE).expect("the default API base is a URL"))
    }
}

/// One problem with one variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The variable's name.
    pub variable: &'static str,
    /// What is wrong and how to fix it.
    pub detail: String,
}

/// Every problem found in the environment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Error(pub Vec<Problem>);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "the environment is not set up:")?;
        for p in &self.0 {
            writeln!(f, "  {}: {}", p.variable, p.detail)?;
        }
        write!(
            f,
            "set these in the environment or in a .env file in the working directory"
        )
    }
}

/// Which surface the bot runs on; decides which variables are required.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceKind {
    /// The terminal: nothing is required.
    Console,
    /// Discord DMs: the token and both names are required.
    Discord,
}

/// The webhook server's settings (both variables set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookSettings {
    /// Port on 127.0.0.1.
    pub port: u16,
    /// The bearer token callers must present.
    pub secret: String,
}

/// Everything read from the environment.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The data directory.
    pub data_dir: DataDir,
    /// The configured time zone (`OLLIM_TIMEZONE`, else the system's, else UTC).
    pub tz: Tz,
    /// The user's name as the agent addresses them.
    pub user_name: String,
    /// The bot's name.
    pub bot_name: String,
    /// The Discord bot token, when the Discord surface is wanted.
    pub discord_token: Option<String>,
    /// The webhook server, when both its variables are set.
    pub webhook: Option<WebhookSettings>,
    /// Google's REST base (`OLLIM_GOOGLE_API_BASE`, else Google's).
    pub google_api: ApiBase,
}

/// The system's IANA zone, or UTC when it cannot be found or is unknown to chrono-tz.
pub fn system_zone() -> Tz {
    iana_time_zone::get_timezone()
        .ok()
        .and_then(|name| name.parse().ok())
        .unwrap_or(Tz::UTC)
}

/// Parses an IANA zone name, naming the variable when it is wrong.
pub fn parse_zone(name: &str) -> Result<Tz, Problem> {
    name.trim().parse::<Tz>().map_err(|_| Problem {
        variable: "OLLIM_TIMEZONE",
        detail: format!(
            "{name:?} is not an IANA time zone (examples: America/Los_Angeles, Europe/Berlin, UTC)"
        ),
    })
}

/// The data directory: `OLLIM_DATA_DIR` (`~` and `$HOME` at its start meaning the home), else
/// `~/.ollim-bot`.
pub fn data_dir_from(get: &dyn Fn(&str) -> Option<String>) -> DataDir {
    let non_empty = |k: &str| get(k).filter(|v| !v.trim().is_empty());
    let home = non_empty("HOME").map(PathBuf::from);
    let root = non_empty("OLLIM_DATA_DIR")
        .map(|dir| home_path::expand(&dir, home.as_deref()))
        .or_else(|| home.map(|h| h.join(".ollim-bot")))
        .unwrap_or_else(|| PathBuf::from(".ollim-bot"));
    DataDir::new(root)
}

/// `OLLIM_GOOGLE_API_BASE` when set, else Google's own REST base.
pub fn google_api_from(get: &dyn Fn(&str) -> Option<String>) -> Result<ApiBase, Problem> {
    match get(API_BASE_VARIABLE).filter(|v| !v.trim().is_empty()) {
        None => Ok(ApiBase::default()),
        Some(v) => ApiBase::parse(&v).map_err(|detail| Problem {
            variable: API_BASE_VARIABLE,
            detail,
        }),
    }
}

/// The time zone: `OLLIM_TIMEZONE` when set (and valid), else the system's.
pub fn zone_from(get: &dyn Fn(&str) -> Option<String>) -> Result<Tz, Problem> {
    match get("OLLIM_TIMEZONE").filter(|v| !v.trim().is_empty()) {
        Some(name) => parse_zone(&name),
        None => Ok(system_zone()),
    }
}

impl Settings {
    /// Reads the settings a run on `surface` needs, collecting every problem.
    pub fn from_lookup(
        get: &dyn Fn(&str) -> Option<String>,
        surface: SurfaceKind,
    ) -> Result<Self, Error> {
        let non_empty = |k: &str| get(k).filter(|v| !v.trim().is_empty());
        let mut problems = Vec::new();
        let tz = zone_from(get).unwrap_or_else(|p| {
            problems.push(p);
            Tz::UTC
        });
        let mut required = |var: &'static str, how: &str| {
            let v = non_empty(var);
            if v.is_none() && surface == SurfaceKind::Discord {
                problems.push(Problem {
                    variable: var,
                    detail: format!("missing; {how}"),
                });
            }
            v
        };
        let discord_token = required(
            "DISCORD_TOKEN",
            "the bot token from https://discord.com/developers/applications → your app → Bot → Reset Token",
        );
        let user_name = required(
            "OLLIM_USER_NAME",
            "your name, as the bot should address you",
        )
        .or_else(|| non_empty("USER"))
        .unwrap_or_else(|| "you".to_owned());
        let bot_name = required("OLLIM_BOT_NAME", "the name your assistant goes by")
            .unwrap_or_else(|| "ollim".to_owned());
        let webhook = match (non_empty("WEBHOOK_PORT"), non_empty("WEBHOOK_SECRET")) {
            (Some(port), Some(secret)) => match port.trim().parse::<u16>() {
                Ok(port) if port > 0 => Some(WebhookSettings { port, secret }),
                _ => {
                    problems.push(Problem {
                        variable: "WEBHOOK_PORT",
                        detail: format!("{port:?} is not a port number (1-65535)"),
                    });
                    None
                }
            },
            (Some(_), None) => {
                tracing::error!(
                    "WEBHOOK_PORT is set but WEBHOOK_SECRET is not: the webhook server stays off"
                );
                None
            }
            _ => None,
        };
        let google_api = google_api_from(get).unwrap_or_else(|p| {
            problems.push(p);
            ApiBase::default()
        });
        if !problems.is_empty() {
            return Err(Error(problems));
        }
        Ok(Settings {
            data_dir: data_dir_from(get),
            tz,
            user_name,
            bot_name,
            discord_token,
            webhook,
            google_api,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn discord_surface_lists_every_missing_variable() {
        let err = Settings::from_lookup(&env(&[]), SurfaceKind::Discord).unwrap_err();
        let vars: Vec<_> = err.0.iter().map(|p| p.variable).collect();
        assert_eq!(vars, ["DISCORD_TOKEN", "OLLIM_USER_NAME", "OLLIM_BOT_NAME"]);
        assert!(err.to_string().contains("DISCORD_TOKEN: missing"));
    }

    #[test]
    fn a_bad_google_api_base_names_the_variable() {
        let problem = google_api_from(&env(&[("OLLIM_GOOGLE_API_BASE", "ftp://x")])).unwrap_err();
        assert_eq!(problem.variable, "OLLIM_GOOGLE_API_BASE");
        assert!(google_api_from(&env(&[])).is_ok());
    }

    #[test]
    fn console_surface_needs_nothing_and_invalid_zone_names_the_variable() {
        let ok = Settings::from_lookup(&env(&[("OLLIM_DATA_DIR", "/tmp/x")]), SurfaceKind::Console)
            .unwrap();
        assert_eq!(ok.data_dir.root(), std::path::Path::new("/tmp/x"));
        let err = Settings::from_lookup(
            &env(&[("OLLIM_TIMEZONE", "Mars/Base")]),
            SurfaceKind::Console,
        )
        .unwrap_err();
        assert_eq!(err.0[0].variable, "OLLIM_TIMEZONE");
        let tz = Settings::from_lookup(
            &env(&[("OLLIM_TIMEZONE", "Europe/Berlin")]),
            SurfaceKind::Console,
        )
        .unwrap()
        .tz;
        assert_eq!(tz, chrono_tz::Europe::Berlin);
    }

    #[test]
    fn a_data_dir_under_the_home_is_written_with_a_tilde_or_home() {
        for written in ["~/x", "$HOME/x", "${HOME}/x"] {
            let dir = data_dir_from(&env(&[("OLLIM_DATA_DIR", written), ("HOME", "/home/me")]));
            assert_eq!(dir.root(), std::path::Path::new("/home/me/x"), "{written}");
        }
        let default = data_dir_from(&env(&[("HOME", "/home/me")]));
        assert_eq!(default.root(), std::path::Path::new("/home/me/.ollim-bot"));
    }

    #[test]
    fn webhook_port_without_secret_leaves_the_server_off() {
        let s =
            Settings::from_lookup(&env(&[("WEBHOOK_PORT", "8080")]), SurfaceKind::Console).unwrap();
        assert!(s.webhook.is_none());
        let err = Settings::from_lookup(
            &env(&[("WEBHOOK_PORT", "eighty"), ("WEBHOOK_SECRET", "s")]),
            SurfaceKind::Console,
        )
        .unwrap_err();
        assert_eq!(err.0[0].variable, "WEBHOOK_PORT");
    }
}
