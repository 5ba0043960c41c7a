//! What is running (SPEC §16): the bot's version, the git commit it was built from (embedded
//! by `build.rs`), and the claude CLI's version. `ollim-bot --version` and `/version` on both
//! surfaces print [`report`].

use ollim_actors::brain::{cli_info, locate};

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

/// Both lines. Blocking: from async code use [`report_async`].
pub fn report() -> String {
    format!("{}\n{}", bot_line(), claude_line())
}

/// [`report`] off the async threads.
pub async fn report_async() -> String {
    tokio::task::spawn_blocking(report)
        .await
        .unwrap_or_else(|e| format!("{}\nclaude: version unknown ({e})", bot_line()))
}
