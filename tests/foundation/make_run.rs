//! `make run` uses the claude the owner has — `OLLIM_CLAUDE_BIN` from the environment or `.env`,
//! else `claude` on `PATH` — and reaches for npm (to install the pinned release) only when there
//! is none; with neither a claude nor npm it says how to get one. The real Makefile and installer
//! run in a copy of the checkout, with a `PATH` of the few tools they use plus fakes: a `cargo`
//! that records how it was called (where the real one would build and start the bot), and an
//! `npm` that records being called.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The programs the Makefile's `run` and the installer call.
const TOOLS: [&str; 11] = [
    "bash", "sh", "sed", "tail", "uname", "dirname", "basename", "cut", "ls", "grep", "mkdir",
];

struct Checkout {
    tmp: tempfile::TempDir,
}

fn script(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

impl Checkout {
    /// A copy of the Makefile and the installer, a `bin/` of tools and fakes, and no claude.
    fn new(with_npm: bool) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let copy = tmp.path().join("repo");
        fs::create_dir_all(copy.join("tools")).unwrap();
        fs::copy(repo.join("Makefile"), copy.join("Makefile")).unwrap();
        fs::copy(
            repo.join("tools/install-claude.sh"),
            copy.join("tools/install-claude.sh"),
        )
        .unwrap();
        let bin = tmp.path().join("bin");
        fs::create_dir_all(&bin).unwrap();
        for tool in TOOLS {
            let found = on_path(tool).unwrap_or_else(|| panic!("{tool} is on PATH"));
            std::os::unix::fs::symlink(found, bin.join(tool)).unwrap();
        }
        let log = tmp.path().join("log");
        script(
            &bin.join("cargo"),
            &format!(
                "#!/bin/sh\necho \"cargo $* OLLIM_CLAUDE_BIN=${{OLLIM_CLAUDE_BIN:-}}\" >> '{}'\n",
                log.display()
            ),
        );
        if with_npm {
            script(
                &bin.join("npm"),
                &format!(
                    "#!/bin/sh\necho \"npm $*\" >> '{}'\necho 'npm: offline' >&2\nexit 1\n",
                    log.display()
                ),
            );
        }
        Checkout { tmp }
    }

    /// A `claude` in a directory of its own, which `make run` finds when it is on `PATH`.
    fn claude(&self) -> PathBuf {
        let path = self.tmp.path().join("claude-home").join("claude");
        script(&path, "#!/bin/sh\necho '2.1.330 (Claude Code)'\n");
        path
    }

    fn make_run(&self, extra_path: Option<&Path>, env: &[(&str, &str)]) -> Output {
        let mut path = self.tmp.path().join("bin").display().to_string();
        if let Some(dir) = extra_path {
            path = format!("{}:{path}", dir.display());
        }
        let make = on_path("make").expect("make is on PATH");
        Command::new(make)
            .arg("run")
            .current_dir(self.tmp.path().join("repo"))
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.tmp.path())
            .envs(env.iter().copied())
            .output()
            .expect("run make")
    }

    fn log(&self) -> String {
        fs::read_to_string(self.tmp.path().join("log")).unwrap_or_default()
    }
}

#[test]
fn a_claude_on_path_is_used_without_npm() {
    let checkout = Checkout::new(true);
    let claude = checkout.claude();
    let out = checkout.make_run(claude.parent(), &[]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        checkout.log(),
        "cargo run --release --bin ollim-bot -- OLLIM_CLAUDE_BIN=\n",
        "the bot found claude on PATH itself; npm was never called"
    );
}

#[test]
fn a_configured_claude_is_used_without_npm() {
    let checkout = Checkout::new(true);
    let claude = checkout.claude().display().to_string();
    let out = checkout.make_run(None, &[("OLLIM_CLAUDE_BIN", &claude)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        checkout.log(),
        format!("cargo run --release --bin ollim-bot -- OLLIM_CLAUDE_BIN={claude}\n")
    );
    // The same from .env, which the bot reads itself.
    let checkout = Checkout::new(true);
    let claude = checkout.claude().display().to_string();
    fs::write(
        checkout.tmp.path().join("repo/.env"),
        format!("DISCORD_TOKEN=\nexport OLLIM_CLAUDE_BIN={claude}\n"),
    )
    .unwrap();
    let out = checkout.make_run(None, &[]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        checkout.log(),
        "cargo run --release --bin ollim-bot -- OLLIM_CLAUDE_BIN=\n"
    );
}

#[test]
fn with_no_claude_npm_installs_the_pinned_release() {
    let checkout = Checkout::new(true);
    let out = checkout.make_run(None, &[]);
    assert!(!out.status.success(), "the fake npm fails: {out:?}");
    let log = checkout.log();
    assert!(
        log.starts_with("npm install ") && log.contains("@anthropic-ai/claude-code@"),
        "{log}"
    );
    assert!(!log.contains("cargo"), "no start without a CLI: {log}");
}

#[test]
fn with_no_claude_and_no_npm_it_says_how_to_get_one() {
    let checkout = Checkout::new(false);
    let out = checkout.make_run(None, &[]);
    assert!(!out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("https://claude.ai/install.sh") && said.contains("Node.js 22+"),
        "{said}"
    );
    assert_eq!(checkout.log(), "", "nothing built or installed");
}
