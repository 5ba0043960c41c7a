//! The claude CLI: found where the bot looks (`OLLIM_CLAUDE_BIN`, then `PATH`), its version
//! and where it stands against the releases the bot is tested with (warned about outside them),
//! and signed in.

use ollim_actors::claude::brain::auth::{self, AuthState};
use ollim_actors::claude::brain::releases::{self, Release, Standing, PINNED};
use ollim_actors::claude::brain::{cli_info, locate};

use super::{Check, Inputs};

/// The version check: PASS inside the tested range, WARN outside it or when the line does not
/// name a release.
pub fn version_check(line: String) -> Check {
    let range = releases::tested_range();
    let install = format!(
        "install the pinned release: `make claude`, or npm install -g @anthropic-ai/claude-code@{PINNED}"
    );
    match Release::parse(&line).map(Release::standing) {
        Some(Standing::Tested) => Check::pass("version", format!("{line}, tested ({range})")),
        Some(Standing::Older) => Check::warn(
            "version",
            format!("{line} is older than the releases the bot is tested with ({range})"),
            format!("update it (`claude update`), or {install}"),
        ),
        Some(Standing::Newer) => Check::warn(
            "version",
            format!("{line} is newer than the releases the bot is tested with ({range})"),
            format!("it likely works; if something misbehaves, {install}"),
        ),
        None => Check::warn(
            "version",
            format!("{line:?} does not name a release; the bot is tested with {range}"),
            install,
        ),
    }
}

/// The CLI checks.
pub fn checks(_inputs: &Inputs<'_>) -> Vec<Check> {
    let binary = match locate::find_claude() {
        Ok(b) => b,
        Err(e) => return vec![Check::fail("claude", "not found", format!("{e}"))],
    };
    let mut checks = vec![Check::pass("claude", binary.display().to_string())];
    checks.push(match cli_info::version(&binary) {
        Ok(v) => version_check(v),
        Err(why) => Check::fail(
            "version",
            why,
            "reinstall the CLI (`make claude`, or npm install -g @anthropic-ai/claude-code)",
        ),
    });
    checks.push(match auth::check(&binary) {
        AuthState::LoggedIn { method } => Check::pass("signed in", format!("yes ({method})")),
        AuthState::NotLoggedIn(_) => Check::fail(
            "signed in",
            "no: every answer would fail",
            "run `ollim-bot auth login` (or set ANTHROPIC_API_KEY); on Discord the bot also DMs you a sign-in link at start",
        ),
        AuthState::Unknown(why) => Check::warn(
            "signed in",
            format!("could not tell: {why}"),
            "run `ollim-bot auth status` to see what the CLI says",
        ),
    });
    checks
}
