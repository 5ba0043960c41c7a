//! The claude CLI: found where the bot looks (`OLLIM_CLAUDE_BIN`, then `PATH`), its version
//! and where it stands against the releases the bot is tested with (warned about outside them),
//! signed in, and the OS sandbox for the agent's commands: the `sandbox` setting, and whether
//! this machine has what it takes (SPEC §20; docs/sandbox.md).

use ollim_actors::claude::brain::auth::{self, AuthState};
use ollim_actors::claude::brain::releases::{self, Release, Standing, PINNED};
use ollim_actors::claude::brain::{cli_info, locate};
use ollim_actors::claude::sandbox::{self, SandboxSetting, Support};
use ollim_actors::records::runtime_config::sandbox_setting_in;

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
pub fn checks(inputs: &Inputs<'_>) -> Vec<Check> {
    let setting = sandbox_setting_in(&inputs.data);
    let sandbox_check = sandbox_check(setting, &sandbox::support());
    let binary = match locate::find_claude() {
        Ok(b) => b,
        Err(e) => {
            return vec![
                Check::fail("claude", "not found", format!("{e}")),
                sandbox_check,
            ]
        }
    };
    let mut checks = vec![Check::pass("claude", binary.display().to_string())];
    checks.push(sandbox_check);
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

/// The `sandbox` line: which it is and why.
pub fn sandbox_check(setting: SandboxSetting, support: &Support) -> Check {
    let install = match support {
        Support::Missing { install, .. } => format!("install them: `{install}` (docs/sandbox.md)"),
        _ => "see docs/sandbox.md".to_owned(),
    };
    match (setting, support.available()) {
        (SandboxSetting::Off, _) => Check::warn(
            "sandbox",
            "off (/config sandbox): the assistant's commands run without the OS sandbox; only the text checks stand between them and your secrets",
            "`/config sandbox auto` turns it on where this machine allows it",
        ),
        (_, true) => Check::pass("sandbox", format!("on ({setting}): {support}")),
        (SandboxSetting::Auto, false) => Check::warn(
            "sandbox",
            format!("auto, but off: {support}"),
            install,
        ),
        (SandboxSetting::On, false) => Check::fail(
            "sandbox",
            format!("on, but {support}: the assistant will not start"),
            install,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_line_says_which_and_why() {
        let missing = Support::Missing {
            programs: vec!["bubblewrap", "socat"],
            install: sandbox::LINUX_INSTALL,
        };
        let auto = sandbox_check(SandboxSetting::Auto, &missing);
        assert_eq!(auto.status, super::super::Status::Warn);
        assert!(
            auto.detail.contains("bubblewrap and socat not installed"),
            "{auto:?}"
        );
        assert!(auto
            .fix
            .unwrap()
            .contains("apt-get install bubblewrap socat"));
        let on = sandbox_check(SandboxSetting::On, &missing);
        assert_eq!(on.status, super::super::Status::Fail);
        let ok = sandbox_check(
            SandboxSetting::Auto,
            &Support::Available { how: "Seatbelt" },
        );
        assert_eq!(ok.status, super::super::Status::Pass);
        assert_eq!(ok.detail, "on (auto): available (Seatbelt)");
    }
}
