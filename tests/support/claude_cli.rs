//! Finding the real `claude` CLI for tier-2 tests and benchmarks: `OLLIM_CLAUDE_BIN`, else the
//! pinned copy `make claude` installs into `.tools/` (the package for this machine, as
//! `tools/install-claude.sh` chooses it), else `claude` on `PATH`. `make test-cli` points
//! `OLLIM_CLAUDE_BIN` at another release and names it in `OLLIM_TEST_CLAUDE_VERSION`.

use std::path::{Path, PathBuf};
use std::process::Command;

use ollim_actors::claude::brain::locate;

/// The variable `make test-cli` sets to the release `OLLIM_CLAUDE_BIN` is.
pub const EXPECTED_VERSION_VAR: &str = "OLLIM_TEST_CLAUDE_VERSION";

/// What the installer says for `args` (`--print-binary`, `--print-version`).
fn installer(args: &[&str]) -> Option<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/install-claude.sh");
    let out = Command::new("bash").arg(script).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Where the pinned release is, when the installer knows this machine.
fn pinned() -> Option<PathBuf> {
    installer(&["--print-binary"]).map(PathBuf::from)
}

/// The binary, if there is one.
pub fn find() -> Option<PathBuf> {
    if std::env::var_os(locate::BINARY_VAR).is_some() {
        return locate::find_claude().ok();
    }
    if let Some(pinned) = pinned().filter(|p| p.is_file()) {
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

/// The release the binary says it is (`claude --version` prints `2.1.330 (Claude Code)`).
pub fn version(binary: &Path) -> String {
    let out = Command::new(binary)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("{} --version: {e}", binary.display()));
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .next()
        .unwrap_or_else(|| panic!("{} --version printed {text:?}", binary.display()))
        .to_owned()
}

/// The release the tests were asked to run against: the one `make test-cli` names, or the pinned
/// one when the binary is the pinned copy; `None` for a `claude` found otherwise.
pub fn expected_version(binary: &Path) -> Option<String> {
    if std::env::var_os(locate::BINARY_VAR).is_some() {
        return std::env::var(EXPECTED_VERSION_VAR).ok();
    }
    (pinned().as_deref() == Some(binary))
        .then(|| installer(&["--print-version"]))
        .flatten()
}
