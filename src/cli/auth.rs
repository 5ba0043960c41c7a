//! `ollim-bot auth login|status|logout`: the Claude CLI's own sign-in, run in the foreground.
//!
//! ```text
//! ollim-bot auth login [--console | --sso | --email you@example.com]
//! ollim-bot auth status [--text]
//! ollim-bot auth logout
//! ```
//!
//! Each runs `claude auth <same words>` with this terminal's stdin, stdout and stderr, so the
//! user can follow the login link and paste the code, and exits with the CLI's exit code. The
//! binary is found the way the bot finds it (`OLLIM_CLAUDE_BIN`, then `PATH`); when there is none,
//! the error says how to install it and the exit code is 1.

use std::process::{Command, ExitCode};

use anyhow::Context;
use clap::Subcommand;
use ollim_actors::claude::brain::locate;

/// Auth subcommands.
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Sign in to your Anthropic account (Claude subscription by default).
    Login {
        /// Options passed on to `claude auth login` (--console, --sso, --email ADDRESS).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        options: Vec<String>,
    },
    /// Show whether Claude Code is signed in, and how.
    Status {
        /// Options passed on to `claude auth status` (--json, --text).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        options: Vec<String>,
    },
    /// Sign out of your Anthropic account.
    Logout,
}

impl AuthCommand {
    /// The words after `claude`.
    fn claude_args(&self) -> Vec<&str> {
        let (verb, options) = match self {
            AuthCommand::Login { options } => ("login", options.as_slice()),
            AuthCommand::Status { options } => ("status", options.as_slice()),
            AuthCommand::Logout => ("logout", &[][..]),
        };
        ["auth", verb]
            .into_iter()
            .chain(options.iter().map(String::as_str))
            .collect()
    }
}

/// Runs the matching `claude auth` command and returns its exit code.
pub fn run(cmd: &AuthCommand) -> anyhow::Result<ExitCode> {
    let binary = locate::find_claude()?;
    let args = cmd.claude_args();
    let status = Command::new(&binary)
        .args(&args)
        .status()
        .with_context(|| format!("running {} {}", binary.display(), args.join(" ")))?;
    Ok(ExitCode::from(exit_byte(status)))
}

/// The exit code to pass on: the CLI's own, or 128 + the signal that ended it.
fn exit_byte(status: std::process::ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return u8::try_from(128 + signal).unwrap_or(1);
        }
    }
    1
}
