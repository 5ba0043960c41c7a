//! The claude CLI: found where the bot looks (`OLLIM_CLAUDE_BIN`, then `PATH`), its version
//! (warned about when it is not the 2.1 line the bot is tested against), and signed in.

use ollim_actors::claude::brain::auth::{self, AuthState};
use ollim_actors::claude::brain::{cli_info, locate};

use super::{Check, Inputs};

/// The CLI line the bot is built and tested against (`tools/install-claude.sh` pins it).
pub const TESTED_LINE: &str = "2.1.";

/// The CLI checks.
pub fn checks(_inputs: &Inputs<'_>) -> Vec<Check> {
    let binary = match locate::find_claude() {
        Ok(b) => b,
        Err(e) => return vec![Check::fail("claude", "not found", format!("{e}"))],
    };
    let mut checks = vec![Check::pass("claude", binary.display().to_string())];
    checks.push(match cli_info::version(&binary) {
        Ok(v) if v.starts_with(TESTED_LINE) => Check::pass("version", v),
        Ok(v) => Check::warn(
            "version",
            format!("{v}; the bot is tested with {TESTED_LINE}x"),
            "if something misbehaves, install the tested version: `make claude` (or npm install -g @anthropic-ai/claude-code@2.1)",
        ),
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
