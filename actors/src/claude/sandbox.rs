//! The CLI's own OS sandbox for the commands the agent runs (SPEC §20 "Enforcement is the
//! operating system's"): whether this machine can have it, what the owner's `sandbox` setting
//! asks, and what that means for one CLI child about to start.
//!
//! The CLI sandboxes its Bash commands itself when its settings say `sandbox.enabled`: with
//! bubblewrap (filesystem) and socat (the bridge to its network proxy) on Linux, with Seatbelt,
//! built in, on macOS. The rules themselves are generated per session by
//! `agent::sandbox_rules`; this module only decides whether they are handed over:
//!
//! - `auto` (the default): on where the machine allows it; where bubblewrap or socat is
//!   missing the CLI starts unsandboxed and the bot says so once ([`warn_once`]);
//! - `on`: a CLI that cannot be sandboxed is not started ([`Error::SandboxUnavailable`]);
//! - `off`: never.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

/// The owner's `sandbox` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxSetting {
    /// On where the machine allows it, warned about where not.
    #[default]
    Auto,
    /// Always; a CLI that cannot be sandboxed is not started.
    On,
    /// Never.
    Off,
}

impl SandboxSetting {
    /// Its name in `/config` and `config.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::On => "on",
            Self::Off => "off",
        }
    }

    /// Reads a name; `None` for anything else.
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(Self::Auto),
            "on" | "true" => Some(Self::On),
            "off" | "false" => Some(Self::Off),
            _ => None,
        }
    }
}

impl fmt::Display for SandboxSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether this machine can sandbox the CLI's commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// It can (`how`: `bubblewrap and socat`, `Seatbelt`).
    Available {
        /// What does it.
        how: &'static str,
    },
    /// Programs are missing; `install` says how to get them.
    Missing {
        /// The programs not found on `PATH`.
        programs: Vec<&'static str>,
        /// The command that installs them (Debian's; docs/sandbox.md has the others).
        install: &'static str,
    },
    /// This operating system has no sandbox the CLI can use.
    Unsupported {
        /// The operating system.
        os: &'static str,
    },
}

impl Support {
    /// True when the sandbox can be used.
    pub fn available(&self) -> bool {
        matches!(self, Self::Available { .. })
    }
}

impl fmt::Display for Support {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Available { how } => write!(f, "available ({how})"),
            Self::Missing { programs, install } => write!(
                f,
                "{} not installed (install with `{install}`; see docs/sandbox.md)",
                programs.join(" and ")
            ),
            Self::Unsupported { os } => write!(f, "the CLI has no sandbox on {os}"),
        }
    }
}

/// Debian's install command for what Linux needs.
pub const LINUX_INSTALL: &str = "sudo apt-get install bubblewrap socat";

/// Whether this machine can sandbox, judged from the programs on `path` (the `PATH` the CLI
/// children get: the bot's own).
pub fn support_on(path: Option<&std::ffi::OsStr>) -> Support {
    match std::env::consts::OS {
        "linux" => {
            let missing: Vec<&'static str> = [("bubblewrap", "bwrap"), ("socat", "socat")]
                .into_iter()
                .filter(|(_, program)| find_program(path, program).is_none())
                .map(|(package, _)| package)
                .collect();
            if missing.is_empty() {
                Support::Available {
                    how: "bubblewrap and socat",
                }
            } else {
                Support::Missing {
                    programs: missing,
                    install: LINUX_INSTALL,
                }
            }
        }
        "macos" => Support::Available { how: "Seatbelt" },
        os => Support::Unsupported { os },
    }
}

/// [`support_on`] this process's `PATH`.
pub fn support() -> Support {
    support_on(std::env::var_os("PATH").as_deref())
}

fn find_program(path: Option<&std::ffi::OsStr>, program: &str) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// What one CLI child is to get: the owner's setting and the rules generated for its session
/// (the `--settings` object, `{"sandbox": {...}}`).
#[derive(Debug, Clone, PartialEq)]
pub struct Sandboxing {
    /// The owner's setting.
    pub setting: SandboxSetting,
    /// The generated settings.
    pub rules: Value,
}

/// Why a CLI child was not started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `sandbox: on`, and this machine cannot sandbox.
    #[error("the sandbox is on (/config sandbox) but {support}; the assistant's commands would run unsandboxed, so it was not started")]
    SandboxUnavailable {
        /// Why it cannot.
        support: String,
    },
}

/// True when a child started under `setting` on a machine with `support` runs its commands in
/// the sandbox: the owner did not turn it off and the machine has it (under `on` without it the
/// child is not started at all). Which Bash checks of `agent::permissions` apply depends on it.
pub fn in_force(setting: SandboxSetting, support: &Support) -> bool {
    setting != SandboxSetting::Off && support.available()
}

/// The `--settings` value for a child, or `None` when it runs unsandboxed; an error when the
/// setting is `on` and `support` says it cannot be had.
pub fn settings_for(sandboxing: &Sandboxing, support: &Support) -> Result<Option<Value>, Error> {
    match (sandboxing.setting, support.available()) {
        (SandboxSetting::Off, _) => Ok(None),
        (_, true) => Ok(Some(sandboxing.rules.clone())),
        (SandboxSetting::Auto, false) => {
            warn_once(support);
            Ok(None)
        }
        (SandboxSetting::On, false) => Err(Error::SandboxUnavailable {
            support: support.to_string(),
        }),
    }
}

static WARNED: AtomicBool = AtomicBool::new(false);

/// The one warning of a bot whose commands run unsandboxed under `auto`.
pub fn warn_once(support: &Support) {
    if !WARNED.swap(true, Ordering::SeqCst) {
        tracing::warn!(
            "sandbox: auto, but {support}: the assistant's commands run without the OS sandbox"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_print() {
        for s in [
            SandboxSetting::Auto,
            SandboxSetting::On,
            SandboxSetting::Off,
        ] {
            assert_eq!(SandboxSetting::parse(s.as_str()), Some(s));
        }
        assert_eq!(SandboxSetting::parse(" ON "), Some(SandboxSetting::On));
        assert_eq!(SandboxSetting::parse("maybe"), None);
    }

    #[test]
    fn a_path_without_bwrap_is_missing_it() {
        if std::env::consts::OS != "linux" {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let socat = dir.path().join("socat");
        std::fs::write(&socat, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&socat, std::fs::Permissions::from_mode(0o755)).unwrap();
        let support = support_on(Some(dir.path().as_os_str()));
        assert_eq!(
            support,
            Support::Missing {
                programs: vec!["bubblewrap"],
                install: LINUX_INSTALL
            }
        );
        assert!(support
            .to_string()
            .contains("apt-get install bubblewrap socat"));
    }

    #[test]
    fn the_setting_decides_what_an_unavailable_sandbox_means() {
        let missing = Support::Missing {
            programs: vec!["bubblewrap"],
            install: LINUX_INSTALL,
        };
        let ok = Support::Available { how: "test" };
        let rules = serde_json::json!({"sandbox": {"enabled": true}});
        let with = |setting| Sandboxing {
            setting,
            rules: rules.clone(),
        };
        assert_eq!(
            settings_for(&with(SandboxSetting::Auto), &ok),
            Ok(Some(rules.clone()))
        );
        assert_eq!(
            settings_for(&with(SandboxSetting::Auto), &missing),
            Ok(None)
        );
        assert_eq!(settings_for(&with(SandboxSetting::Off), &ok), Ok(None));
        assert!(in_force(SandboxSetting::Auto, &ok) && in_force(SandboxSetting::On, &ok));
        assert!(!in_force(SandboxSetting::Off, &ok) && !in_force(SandboxSetting::Auto, &missing));
        let refused = settings_for(&with(SandboxSetting::On), &missing).unwrap_err();
        assert!(
            refused.to_string().contains("bubblewrap not installed"),
            "{refused}"
        );
    }
}
