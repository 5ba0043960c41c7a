//! What is running (SPEC §16, §17): the bot's release (`ollim-bot v0.2.0`, or
//! `ollim-bot v0.1.0+dev (abc1234)` between releases; embedded by `build.rs`), which `/version`
//! on both surfaces and the greeting show; `ollim-bot --version` prints the exact commit and the
//! claude CLI's version instead ([`report`]).

use ollim_actors::claude::brain::{cli_info, locate};

/// `ollim-bot v0.2.0` on a tagged release, `ollim-bot v0.1.0+dev (abc1234)` otherwise.
pub fn release() -> &'static str {
    concat!("ollim-bot ", env!("OLLIM_VERSION"))
}

/// `ollim-bot 0.1.0 (commit 1a2b3c4d5e6f)`.
pub fn bot_line() -> String {
    format!(
        "ollim-bot {} (commit {})",
        env!("CARGO_PKG_VERSION"),
        env!("OLLIM_GIT_COMMIT")
    )
}

/// `claude 2.1.330 (Claude Code)`, or what stands in the way. Runs the CLI briefly (blocking).
pub fn claude_line() -> String {
    match locate::find_claude() {
        Err(e) => format!("claude: not found — {e}"),
        Ok(binary) => match cli_info::version(&binary) {
            Ok(v) => format!("claude {v}"),
            Err(why) => format!("claude: version unknown ({why})"),
        },
    }
}

/// What `ollim-bot --version` prints: the exact commit and the claude CLI (blocking: it runs
/// the CLI briefly).
pub fn report() -> String {
    format!("{}\n{}", bot_line(), claude_line())
}
