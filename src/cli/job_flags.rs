//! The flags routines and reminders share, their translation into job settings, and what both
//! listings show.

use std::path::PathBuf;

use clap::Args;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::jobs::duplicates::Duplicate;
use ollim_actors::jobs::gate::Gate;
use ollim_actors::jobs::run_limits::RunLimits;
use ollim_actors::jobs::yaml_scalars::{Count, Text};
use ollim_actors::jobs::{JobSettings, ModelChoice, UpdateMode};

/// Options every job accepts.
#[derive(Debug, Args)]
pub struct JobFlags {
    /// The prompt the agent receives when the job fires.
    #[arg(short = 'm', long = "message")]
    pub message: String,
    /// Short summary shown in listings.
    #[arg(short = 'd', long = "description", default_value = "")]
    pub description: String,
    /// Model for background runs: opus, sonnet or haiku.
    #[arg(long, value_parser = parse_model)]
    pub model: Option<ModelChoice>,
    /// Turn extended thinking off (background runs).
    #[arg(long)]
    pub no_thinking: bool,
    /// Start from a fresh session instead of a fork of the conversation (background runs).
    #[arg(long)]
    pub isolated: bool,
    /// When a background run reports back: always, on_ping, freely or blocked.
    #[arg(long, value_parser = parse_mode, default_value = "on_ping")]
    pub update_main_session: UpdateMode,
    /// Take ping_user and discord_embed away from background runs.
    #[arg(long)]
    pub no_ping: bool,
    /// Extra tools a background run may use (patterns such as "Bash(git status:*)").
    #[arg(long, num_args = 1..)]
    pub allowed_tools: Option<Vec<String>>,
    /// Skills whose instructions are loaded when the job fires.
    #[arg(long, num_args = 1..)]
    pub skills: Option<Vec<String>>,
    /// A command run before the model is woken (one command, no shell): exit 0 runs the job
    /// with its output in the prompt, anything else skips this run.
    #[arg(long, value_parser = parse_gate)]
    pub gate: Option<Gate>,
    /// Most one run may cost, in US dollars (default: `job_max_cost` in /config).
    #[arg(long, value_parser = parse_max_cost)]
    pub max_cost: Option<u64>,
    /// Most model turns one run may take (default: `job_max_turns` in /config).
    #[arg(long, value_parser = parse_max_turns)]
    pub max_turns: Option<u32>,
}

fn parse_max_cost(s: &str) -> Result<u64, String> {
    let text = Text(s.to_owned());
    RunLimits::parse(Some(text), None)
        .map(|l| l.max_cost_cents.unwrap_or_default())
        .map_err(|e| e.to_string())
}

fn parse_max_turns(s: &str) -> Result<u32, String> {
    let n: u32 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a whole number"))?;
    RunLimits::parse(None, Some(Count(n)))
        .map(|_| n)
        .map_err(|e| e.to_string())
}

fn parse_gate(s: &str) -> Result<Gate, String> {
    Gate::parse(s).map_err(|e| e.to_string())
}

fn parse_model(s: &str) -> Result<ModelChoice, String> {
    s.parse()
}

fn parse_mode(s: &str) -> Result<UpdateMode, String> {
    s.parse()
}

impl JobFlags {
    /// The settings these flags describe, running in the background or not.
    pub fn settings(&self, background: bool) -> JobSettings {
        JobSettings {
            background,
            model: self.model,
            thinking: !self.no_thinking,
            isolated: self.isolated,
            description: self.description.clone(),
            update_main_session: self.update_main_session,
            allow_ping: !self.no_ping,
            allowed_tools: self.allowed_tools.clone(),
            skills: self.skills.clone(),
            gate: self.gate.clone(),
            limits: RunLimits {
                max_cost_cents: self.max_cost,
                max_turns: self.max_turns,
            },
            ..JobSettings::default()
        }
    }

    /// Rejects a message that is empty once trimmed (the file's body would be blank).
    pub fn checked_message(&self) -> Result<String, String> {
        let m = self.message.trim();
        if m.is_empty() {
            Err("the message (-m) must not be empty".to_owned())
        } else {
            Ok(m.to_owned())
        }
    }
}

/// The schedule column shared by both listings: `[bg,isolated] <when>  (model: x)  (no-thinking)`;
/// with `tag_foreground` (reminders, which run in the background unless they say otherwise) a
/// foreground job reads `[fg] <when>`.
pub fn describe_schedule(when: String, s: &JobSettings, tag_foreground: bool) -> String {
    let mut out = if s.background {
        let tag = if s.isolated { "[bg,isolated]" } else { "[bg]" };
        format!("{tag} {when}")
    } else if tag_foreground {
        format!("[fg] {when}")
    } else {
        when
    };
    if let Some(m) = s.model {
        out.push_str(&format!("  (model: {m})"));
    }
    if !s.thinking {
        out.push_str("  (no-thinking)");
    }
    if let Some(agent) = &s.subagent {
        out.push_str(&format!("  (subagent: {agent})"));
    }
    if s.background && !s.reflect {
        out.push_str("  (no-reflect)");
    }
    if let Some(gate) = &s.gate {
        out.push_str(&format!("  (gate: {gate})"));
    }
    if let Some(cents) = s.limits.max_cost_cents {
        out.push_str(&format!(
            "  (max-cost: {})",
            ollim_actors::base::usd::shown(cents)
        ));
    }
    if let Some(turns) = s.limits.max_turns {
        out.push_str(&format!("  (max-turns: {turns})"));
    }
    out
}

/// What a listing shows for a job: its description, else its message.
pub fn summary<'a>(s: &'a JobSettings, message: &'a str) -> &'a str {
    if s.description.is_empty() {
        message
    } else {
        &s.description
    }
}

/// For each file the scheduler ignores (another file, earlier by name, holds its id), what a
/// listing adds to its line: the mark, `  [ignored: duplicate id of routines/a.md]`, then on a
/// line of its own the file to fix, `      ignored file: routines/b.md` (the item's line shows
/// the same id and may show the same words as the file kept).
pub fn ignored_marks(
    data: &DataDir,
    duplicates: Vec<Duplicate>,
) -> std::collections::HashMap<PathBuf, String> {
    let shown = |path: &PathBuf| {
        path.strip_prefix(data.root())
            .unwrap_or(path)
            .display()
            .to_string()
    };
    duplicates
        .into_iter()
        .map(|d| {
            let mark = format!(
                "  [ignored: duplicate id of {}]\n      ignored file: {}",
                shown(&d.kept),
                shown(&d.ignored)
            );
            (d.ignored, mark)
        })
        .collect()
}
