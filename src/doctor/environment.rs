//! The environment: `.env`, what a start on the chosen surface needs, the zone, and the
//! Discord token's shape (three dot-separated base64url parts, the first the bot's numeric id).

use base64::Engine as _;
use ollim_actors::base::settings::{self, Settings, SurfaceKind};

use super::{Check, Inputs};

/// What the Discord guide says about getting a token.
const TOKEN_HELP: &str =
    "copy it again from https://discord.com/developers/applications → your app → Bot → Reset Token";

/// The environment checks.
pub fn checks(inputs: &Inputs<'_>) -> Vec<Check> {
    let get = inputs.env;
    let mut checks = vec![dot_env(inputs)];
    let token = get("DISCORD_TOKEN").filter(|t| !t.trim().is_empty());
    let surface = if token.is_some() {
        SurfaceKind::Discord
    } else {
        SurfaceKind::Console
    };
    checks.push(match &token {
        None => Check::warn(
            "DISCORD_TOKEN",
            "not set: `ollim-bot` runs on the console",
            "to run on Discord put DISCORD_TOKEN in .env (see docs/discord.md)",
        ),
        Some(token) => discord_token(token),
    });
    match Settings::from_lookup(get, surface) {
        Ok(_) => checks.push(Check::pass(
            "variables",
            match surface {
                SurfaceKind::Discord => "everything Discord needs is set",
                SurfaceKind::Console => "everything the console needs is set",
            },
        )),
        Err(e) => {
            // The zone is checked on its own below.
            for p in e.0.iter().filter(|p| p.variable != "OLLIM_TIMEZONE") {
                checks.push(Check::fail(
                    p.variable,
                    p.detail.clone(),
                    "set it in .env or the environment",
                ));
            }
        }
    }
    checks.push(zone(get));
    checks.extend(webhook_pair(get));
    checks.push(dashboard(get));
    checks.extend(hang_timeout(get));
    checks
}

/// The dashboard's address (SPEC §21): a warning when `DASHBOARD_BIND` leaves loopback.
fn dashboard(get: &dyn Fn(&str) -> Option<String>) -> Check {
    use crate::dashboard::{host_port, DashboardSettings};
    match DashboardSettings::from_lookup(get) {
        Ok(None) => Check::pass("dashboard", "off (DASHBOARD_PORT=off)"),
        Ok(Some(s)) if s.is_loopback() => Check::pass(
            "dashboard",
            format!(
                "http://{} (`ollim-bot dashboard` gives a login link)",
                host_port(s.bind, s.port)
            ),
        ),
        Ok(Some(s)) => Check::warn(
            "dashboard",
            format!(
                "DASHBOARD_BIND={} puts the dashboard beyond this machine: anyone who can reach {} \
                 can try to sign in, over plain HTTP",
                s.bind,
                host_port(s.bind, s.port)
            ),
            "unset DASHBOARD_BIND (127.0.0.1), and reach it from elsewhere through an SSH tunnel",
        ),
        Err(e) => Check::fail(
            "dashboard",
            format!("{e}, so the dashboard stays off"),
            "set DASHBOARD_PORT to a port number or off, DASHBOARD_BIND to an IP address",
        ),
    }
}

fn dot_env(inputs: &Inputs<'_>) -> Check {
    let path = inputs.cwd.join(".env");
    if !path.exists() {
        return Check::pass(
            ".env",
            format!(
                "none in {}; variables come from the environment",
                inputs.cwd.display()
            ),
        );
    }
    let iter = match dotenvy::from_path_iter(&path) {
        Ok(iter) => iter,
        Err(e) => {
            return Check::fail(
                ".env",
                format!("{} cannot be read: {e}", path.display()),
                "fix its permissions, or remove it",
            )
        }
    };
    let mut count = 0;
    for item in iter {
        match item {
            Ok(_) => count += 1,
            Err(e) => {
                return Check::fail(
                    ".env",
                    format!("{}: {e}", path.display()),
                    "each line is NAME=value; quote values with spaces or #",
                )
            }
        }
    }
    Check::pass(".env", format!("{count} variables from {}", path.display()))
}

/// Whether `token` looks like a Discord bot token: `<base64url id>.<timestamp>.<hmac>`.
pub fn token_shape(token: &str) -> Result<u64, String> {
    let token = token.trim();
    if token.to_ascii_lowercase().starts_with("bot ") {
        return Err("it starts with \"Bot \"; give the token alone".into());
    }
    if token.chars().any(char::is_whitespace) {
        return Err("it contains spaces".into());
    }
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 || parts.iter().any(|p| p.is_empty()) {
        return Err(format!(
            "it has {} dot-separated parts; a bot token has 3",
            parts.len()
        ));
    }
    let url_safe = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if !parts.iter().all(|p| p.chars().all(url_safe)) {
        return Err("it has characters a token never has".into());
    }
    let id = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(parts[0].trim_end_matches('='))
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| text.parse::<u64>().ok());
    id.ok_or_else(|| "its first part is not a bot id".into())
}

fn discord_token(token: &str) -> Check {
    match token_shape(token) {
        Ok(id) => Check::pass(
            "DISCORD_TOKEN",
            format!("well-formed (bot {id}); Discord itself is not asked"),
        ),
        Err(why) => Check::fail(
            "DISCORD_TOKEN",
            format!("does not look like a bot token: {why}"),
            TOKEN_HELP,
        ),
    }
}

fn zone(get: &dyn Fn(&str) -> Option<String>) -> Check {
    match get("OLLIM_TIMEZONE").filter(|v| !v.trim().is_empty()) {
        Some(name) => match settings::parse_zone(&name) {
            Ok(tz) => Check::pass("zone", format!("{tz} (OLLIM_TIMEZONE)")),
            Err(p) => Check::fail(
                "OLLIM_TIMEZONE",
                p.detail,
                "use an IANA name (`timedatectl list-timezones` lists them)",
            ),
        },
        None => match iana_zone() {
            Some(name) => Check::pass("zone", format!("{name} (the system's)")),
            None => Check::warn(
                "zone",
                "the system's zone is unknown, so UTC is used",
                "set OLLIM_TIMEZONE (for example Europe/Berlin)",
            ),
        },
    }
}

/// The system's zone name when it can be found and chrono-tz knows it.
fn iana_zone() -> Option<String> {
    iana_time_zone::get_timezone()
        .ok()
        .filter(|name| name.parse::<chrono_tz::Tz>().is_ok())
}

fn webhook_pair(get: &dyn Fn(&str) -> Option<String>) -> Option<Check> {
    let set = |k: &str| get(k).is_some_and(|v| !v.trim().is_empty());
    match (set("WEBHOOK_PORT"), set("WEBHOOK_SECRET")) {
        (true, true) => Some(Check::pass(
            "webhooks",
            "WEBHOOK_PORT and WEBHOOK_SECRET are set",
        )),
        (true, false) => Some(Check::warn(
            "webhooks",
            "WEBHOOK_PORT is set without WEBHOOK_SECRET, so the webhook server stays off",
            "set WEBHOOK_SECRET too (or unset WEBHOOK_PORT)",
        )),
        (false, true) => Some(Check::warn(
            "webhooks",
            "WEBHOOK_SECRET is set without WEBHOOK_PORT, so the webhook server stays off",
            "set WEBHOOK_PORT too (or unset WEBHOOK_SECRET)",
        )),
        (false, false) => None,
    }
}

fn hang_timeout(get: &dyn Fn(&str) -> Option<String>) -> Option<Check> {
    let raw = get("OLLIM_HANG_TIMEOUT_SECS")?;
    Some(match raw.trim().parse::<u64>() {
        Ok(n) if n > 0 => Check::pass("OLLIM_HANG_TIMEOUT_SECS", format!("{n}s")),
        _ => Check::fail(
            "OLLIM_HANG_TIMEOUT_SECS",
            format!("{raw:?} is not a number of seconds, so the bot will not start"),
            "set a whole number of seconds (default 600), or unset it",
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dashboard_warns_off_loopback() {
        use super::super::Status;
        let with = |pairs: &'static [(&'static str, &'static str)]| {
            dashboard(&move |k| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            })
        };
        assert_eq!(with(&[]).status, Status::Pass);
        assert_eq!(with(&[("DASHBOARD_BIND", "::1")]).status, Status::Pass);
        assert_eq!(with(&[("DASHBOARD_BIND", "0.0.0.0")]).status, Status::Warn);
        assert_eq!(with(&[("DASHBOARD_PORT", "nope")]).status, Status::Fail);
    }

    #[test]
    fn token_shapes() {
        // The id part is base64url of the bot's id.
        let good = "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gabcde.fakefakefakefakefakefakefakefakefake00";
        assert_eq!(token_shape(good), Ok(123456789012345678));
        assert!(token_shape("Bot abc.def.ghi")
            .unwrap_err()
            .contains("\"Bot \""));
        assert!(token_shape("abc.def")
            .unwrap_err()
            .contains("2 dot-separated"));
        assert!(token_shape("bm90IGFuIGlk.a.b")
            .unwrap_err()
            .contains("not a bot id"));
        assert!(token_shape("abc.d$f.ghi")
            .unwrap_err()
            .contains("characters"));
    }
}
