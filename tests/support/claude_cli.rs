//! Finding the real `claude` CLI for tier-2 tests and benchmarks: `OLLIM_CLAUDE_BIN`, else the
//! pinned copy `make claude` installs into `.tools/`, else `claude` on `PATH`.

use std::path::PathBuf;

use ollim_actors::claude::brain::locate;

/// The binary, if there is one.
pub fn find() -> Option<PathBuf> {
    if std::env::var_os(locate::BINARY_VAR).is_some() {
        return locate::find_claude().ok();
    }
    let pinned = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(".tools/node_modules/@anthropic-ai/claude-code-linux-x64/claude");
    if pinned.is_file() {
        return Some(pinned);
    }
    locate::find_claude().ok()
}

/// The binary; a missing one fails the test with how to get it (never a silent skip).
pub fn binary() -> PathBuf {
    find().unwrap_or_else(|| {
        panic!(
            "tier-2 tests need the real claude CLI: run `make claude` (tools/install-claude.sh) \
             or set OLLIM_CLAUDE_BIN"
        )
    })
}
