//! `ollim-bot doctor` (SPEC §16): is everything in place for the bot to run? One line per
//! check — PASS, WARN or FAIL — and for each WARN and FAIL what to do about it; exit code 1
//! when anything failed.
//!
//! It only reads (files, the environment, `claude --version`, `claude auth status`), makes no
//! model call, no call to Google and starts nothing, so it is quick and safe beside a running
//! bot.
//!
//! | module | checks |
//! | --- | --- |
//! | [`environment`] | `.env`, the variables a start needs, the zone, the Discord token's shape |
//! | [`data`] | the data directory: present, writable, a git repository |
//! | [`state`] | every file under `state/` parses as a start would read it |
//! | [`jobs`] | routines (and their next fire time), reminders (and overdue ones), webhook specs, skills |
//! | [`references`] | the skills and subagent each job names exist |
//! | [`tool_policy`] | `tool-policy.yaml`: usable, its keys, its patterns |
//! | [`claude`] | the claude CLI: found, its version, signed in |
//! | [`google`] | Google: the client file and the grant readable, the grant refreshable |

mod claude;
mod data;
mod environment;
mod google;
mod jobs;
mod references;
mod state;
mod tool_policy;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::base::settings;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Fine.
    Pass,
    /// Works, but worth a look.
    Warn,
    /// The bot will not work as it should.
    Fail,
}

impl Status {
    /// `PASS`, `WARN` or `FAIL`.
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Warn => "WARN",
            Status::Fail => "FAIL",
        }
    }
}

/// One check's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// How it came out.
    pub status: Status,
    /// What was checked (`OLLIM_TIMEZONE`, `routines/morning.md`).
    pub name: String,
    /// What was found.
    pub detail: String,
    /// What to do (every WARN and FAIL has one).
    pub fix: Option<String>,
}

impl Check {
    /// A passed check.
    pub fn pass(name: impl Into<String>, detail: impl Into<String>) -> Self {
        Check {
            status: Status::Pass,
            name: name.into(),
            detail: detail.into(),
            fix: None,
        }
    }

    /// A warning, with what to do.
    pub fn warn(
        name: impl Into<String>,
        detail: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Check {
            status: Status::Warn,
            name: name.into(),
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }

    /// A failure, with what to do.
    pub fn fail(
        name: impl Into<String>,
        detail: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Check {
            status: Status::Fail,
            name: name.into(),
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
}

/// A group of checks under a heading.
#[derive(Debug, Clone)]
pub struct Section {
    /// The heading.
    pub title: &'static str,
    /// Its checks, in order.
    pub checks: Vec<Check>,
}

/// What the checks look at.
pub struct Inputs<'a> {
    /// The environment (after `.env` was loaded).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The working directory, where `.env` is read from.
    pub cwd: PathBuf,
    /// The data directory.
    pub data: DataDir,
    /// The zone in effect (the system's when `OLLIM_TIMEZONE` is unusable).
    pub tz: Tz,
    /// Now.
    pub now: DateTime<Utc>,
}

/// Runs every check.
pub fn sections(inputs: &Inputs<'_>) -> Vec<Section> {
    vec![
        Section {
            title: "environment",
            checks: environment::checks(inputs),
        },
        Section {
            title: "data directory",
            checks: data::checks(inputs),
        },
        Section {
            title: "state files",
            checks: state::checks(inputs),
        },
        Section {
            title: "routines and reminders",
            checks: jobs::schedule_checks(inputs),
        },
        Section {
            title: "webhooks and skills",
            checks: jobs::spec_checks(inputs),
        },
        Section {
            title: "tool policy",
            checks: tool_policy::checks(inputs),
        },
        Section {
            title: "claude cli",
            checks: claude::checks(inputs),
        },
        Section {
            title: "google",
            checks: google::checks(inputs),
        },
    ]
}

/// The report as printed, and whether anything failed.
pub fn report(sections: &[Section]) -> (String, bool) {
    let mut out = String::new();
    let (mut passed, mut warned, mut failed) = (0, 0, 0);
    for section in sections {
        let _ = writeln!(out, "\n{}", section.title);
        for check in &section.checks {
            match check.status {
                Status::Pass => passed += 1,
                Status::Warn => warned += 1,
                Status::Fail => failed += 1,
            }
            let _ = writeln!(
                out,
                "  {}  {}: {}",
                check.status.label(),
                check.name,
                check.detail
            );
            if let Some(fix) = &check.fix {
                let _ = writeln!(out, "        → {fix}");
            }
        }
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let _ = writeln!(
        out,
        "\n{}, {}, {}",
        plural(passed, "passed", "passed"),
        plural(warned, "warning", "warnings"),
        plural(failed, "failure", "failures")
    );
    (out, failed > 0)
}

/// Whether the owner's shell runs this program as `ollim-bot`.
fn own_command() -> Check {
    let invocation = crate::own_path::invocation();
    match crate::own_path::other_on_path_note(&invocation) {
        Some(note) => Check::warn("ollim-bot on PATH", "another program", note),
        None if invocation.command == ollim_actors::base::own_command::NAME => {
            Check::pass("ollim-bot on PATH", "this program")
        }
        None => Check::pass(
            "ollim-bot on PATH",
            "not this program, so the commands below name its path (`make install` puts it on \
             PATH)",
        ),
    }
}

/// Every check, as `ollim-bot doctor` runs them, on this process's environment and working
/// directory now; with the data directory they looked at. The dashboard's Health page shows the
/// same. It reads files and runs `claude --version`: call it off an async thread.
pub fn current() -> anyhow::Result<(DataDir, Vec<Section>)> {
    let env = |k: &str| std::env::var(k).ok();
    let inputs = Inputs {
        env: &env,
        cwd: std::env::current_dir()?,
        data: settings::data_dir_from(&env),
        tz: settings::zone_from(&env).unwrap_or_else(|_| settings::system_zone()),
        now: Utc::now(),
    };
    let mut sections = sections(&inputs);
    if let Some(environment) = sections.first_mut() {
        environment.checks.push(own_command());
    }
    Ok((inputs.data, sections))
}

/// `ollim-bot doctor`: prints the report; exit code 1 when a check failed.
pub fn run() -> anyhow::Result<ExitCode> {
    let (data, sections) = current()?;
    let (text, failed) = report(&sections);
    // Each `ollim-bot …` it names is the command that runs from this shell.
    let text = ollim_actors::base::own_command::in_text(&text);
    println!(
        "ollim-bot doctor — data directory {}\n{}",
        data.root().display(),
        text.trim_end()
    );
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
