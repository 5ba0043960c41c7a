//! Google (SPEC §15): whether the client file and the grant are there and readable, and whether
//! the grant can be refreshed. From the files alone: no call to Google, so it stays fast and
//! works offline; an expired access token with a refresh token is fine (the next call refreshes).

use ollim_actors::google::{self, Connection, Paths};

use super::{Check, Inputs};

/// Where the guide explains the set-up from zero.
const HOW: &str = "follow docs/google.md (Connecting Google)";

/// The Google checks.
pub fn checks(inputs: &Inputs<'_>) -> Vec<Check> {
    let paths = Paths::in_data_dir(&inputs.data);
    let mut checks = vec![match google::connection(&inputs.data, inputs.now) {
        Connection::NoClientFile => Check::warn(
            "google",
            "not set up: `ollim-bot tasks`, `cal` and `gmail` will say so",
            format!(
                "to use Google Tasks, Calendar and Gmail, {HOW} (a client file at {})",
                paths.credentials.display()
            ),
        ),
        Connection::NotConnected => Check::warn(
            "google",
            "the client file is there, but Google is not connected",
            "run /google-auth in the DM or on the console",
        ),
        Connection::Connected {
            refreshable: true,
            expired,
        } => Check::pass(
            "google",
            if expired {
                "connected; the access token has expired and the next call refreshes it"
            } else {
                "connected, and the grant can be refreshed"
            },
        ),
        Connection::Connected {
            refreshable: false,
            expired: true,
        } => Check::fail(
            "google",
            "the access token has expired and token.json holds no way to refresh it",
            format!(
                "delete {} and run /google-auth to connect again",
                paths.token.display()
            ),
        ),
        Connection::Connected {
            refreshable: false,
            expired: false,
        } => Check::warn(
            "google",
            "connected, but token.json holds no way to refresh the access token once it expires",
            format!(
                "delete {} and run /google-auth to connect again",
                paths.token.display()
            ),
        ),
        Connection::Broken(why) => Check::fail(
            "google",
            why,
            "fix or delete the file named, then run /google-auth",
        ),
    }];
    if paths.revoked_marker.exists() {
        checks.push(Check::warn(
            "google_auth_revoked",
            "Google refused the grant (revoked or expired); the bot tells you once when it runs",
            "run /google-auth to connect again",
        ));
    }
    checks
}
