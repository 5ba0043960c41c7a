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
        let line = ollim_actors::claude::brain::cli_info::version(&binary)
            .unwrap_or_else(|why| panic!("{}: {why}", binary.display()));
        Release::parse(&line)
            .unwrap_or_else(|| panic!("{}: {line:?} names no release", binary.display()))
    })
}
