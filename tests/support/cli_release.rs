//! The release of the `claude` under test ([`super::claude_cli::binary`]), read once from its
//! `--version`, so a test can pin what that release does by the driver's table
//! (`ollim_actors::claude::brain::releases`).

use std::sync::OnceLock;

use ollim_actors::claude::brain::releases::Release;

/// The release under test; a CLI whose version line names none fails the test.
pub fn under_test() -> Release {
    static RELEASE: OnceLock<Release> = OnceLock::new();
    *RELEASE.get_or_init(|| {
        let binary = super::claude_cli::binary();
        let version = super::claude_cli::version(&binary);
        Release::parse(&version)
            .unwrap_or_else(|| panic!("{}: {version:?} names no release", binary.display()))
    })
}
