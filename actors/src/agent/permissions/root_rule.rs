//! The CLI's root rule (SPEC §11): run as uid 0, `claude` refuses `bypassPermissions` (it prints
//! an error and exits) unless `IS_SANDBOX=1` is in its environment. Checked before switching to
//! that mode so the user is told why instead of watching the session fail, and before starting
//! a process in it: a bypass kept in `state/config.json` would otherwise fail every message, so
//! the session starts in `dontAsk` instead and says so, with the fix ([`launch_mode`]).

use crate::claude::brain::PermissionMode;

/// What the user is told when `bypassPermissions` would be refused.
pub const BYPASS_REFUSED_AS_ROOT: &str = "bypassPermissions isn't available: the bot runs as \
root, and Claude Code refuses that mode for root unless IS_SANDBOX=1 is set in its environment. \
Set IS_SANDBOX=1 if this machine is a disposable sandbox, or run the bot as a regular user.";

/// The mode to start the CLI in for `configured`: itself, or `dontAsk` with what to tell the
/// user when `configured` is `bypassPermissions` and `refused` (from [`bypass_refused_as_root`])
/// says the CLI would not start in it.
pub fn launch_mode(
    configured: PermissionMode,
    refused: Option<&str>,
) -> (PermissionMode, Option<String>) {
    match (configured, refused) {
        (PermissionMode::BypassPermissions, Some(why)) => (
            PermissionMode::DontAsk,
            Some(format!(
                "{why} Using dontAsk for now; to choose another mode for good: /config permission_mode dontAsk (or default, acceptEdits)."
            )),
        ),
        (mode, _) => (mode, None),
    }
}

/// The explanation when this process runs as root without `IS_SANDBOX=1`, else `None`.
pub fn bypass_refused_as_root() -> Option<&'static str> {
    let status = std::fs::read_to_string("/proc/self/status").ok();
    let uid = status.as_deref().and_then(uid_from_status);
    let sandbox = std::env::var("IS_SANDBOX").ok();
    bypass_refused(uid, sandbox.as_deref())
}

/// The rule itself: `uid` of the process (unknown = not root) and the value of `IS_SANDBOX` the
/// CLI will see.
pub fn bypass_refused(uid: Option<u32>, is_sandbox: Option<&str>) -> Option<&'static str> {
    let root = uid == Some(0);
    let sandboxed = is_sandbox.map(str::trim) == Some("1");
    (root && !sandboxed).then_some(BYPASS_REFUSED_AS_ROOT)
}

/// The real uid from the `Uid:` line of `/proc/<pid>/status` (`Uid: real effective saved fs`).
fn uid_from_status(status: &str) -> Option<u32> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|uid| uid.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_without_sandbox_is_refused() {
        assert_eq!(bypass_refused(Some(0), None), Some(BYPASS_REFUSED_AS_ROOT));
        assert_eq!(
            bypass_refused(Some(0), Some("0")),
            Some(BYPASS_REFUSED_AS_ROOT)
        );
        assert_eq!(
            bypass_refused(Some(0), Some("true")),
            Some(BYPASS_REFUSED_AS_ROOT)
        );
    }

    #[test]
    fn sandbox_or_ordinary_user_is_fine() {
        assert_eq!(bypass_refused(Some(0), Some("1")), None);
        assert_eq!(bypass_refused(Some(1000), None), None);
        assert_eq!(bypass_refused(None, None), None);
    }

    #[test]
    fn a_refused_bypass_starts_in_dont_ask_and_says_how_to_fix_it() {
        let (mode, notice) = launch_mode(
            PermissionMode::BypassPermissions,
            Some(BYPASS_REFUSED_AS_ROOT),
        );
        assert_eq!(mode, PermissionMode::DontAsk);
        let notice = notice.expect("the user is told");
        assert!(notice.contains("IS_SANDBOX=1") && notice.contains("/config permission_mode"));
        assert_eq!(
            launch_mode(PermissionMode::BypassPermissions, None),
            (PermissionMode::BypassPermissions, None)
        );
        assert_eq!(
            launch_mode(PermissionMode::Default, Some(BYPASS_REFUSED_AS_ROOT)),
            (PermissionMode::Default, None)
        );
    }

    #[test]
    fn explanation_names_the_fix() {
        assert!(BYPASS_REFUSED_AS_ROOT.contains("IS_SANDBOX=1"));
        assert!(BYPASS_REFUSED_AS_ROOT.contains("root"));
    }

    #[test]
    fn uid_is_read_from_the_status_file() {
        let status = "Name:\tclaude\nUmask:\t0022\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\n";
        assert_eq!(uid_from_status(status), Some(1000));
        assert_eq!(uid_from_status("Uid:\t0\t0\t0\t0\n"), Some(0));
        assert_eq!(uid_from_status("Name: x\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_a_readable_uid() {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        assert!(uid_from_status(&status).is_some());
    }
}
