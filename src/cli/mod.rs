//! The command line (SPEC §4): `ollim-bot` runs the bot; subcommands manage routines and
//! reminders, and reach Google Tasks, Calendar and Gmail. The agent itself uses these commands through its Bash tool, so output is short,
//! human-readable lines, errors go to stderr, and every rejected input exits 1 having written
//! nothing.

pub mod auth;
pub mod cal;
pub mod dashboard;
pub mod delete_ask;
pub mod gmail;
pub mod google;
pub mod history;
pub mod job_flags;
pub mod memory;
pub mod reminder;
pub mod routine;
pub mod run_history;
pub mod tasks;
pub mod usage;

use clap::{Parser, Subcommand};

/// ollim-bot: an ADHD-friendly personal assistant in your Discord DMs, powered by Claude Code.
#[derive(Debug, Parser)]
#[command(
    name = "ollim-bot",
    about = "ollim-bot -- ADHD-friendly Discord assistant",
    long_about = "ollim-bot -- ADHD-friendly Discord assistant: one persistent conversation in your \
                  Discord DMs, powered by Claude Code, that reaches out on its own through routines \
                  and reminders",
    disable_version_flag = true,
    after_help = EXAMPLES,
    disable_help_subcommand = true
)]
pub struct Cli {
    /// Log as JSON lines instead of readable text (also OLLIM_LOG_FORMAT=json).
    #[arg(long, global = true)]
    pub log_json: bool,

    /// Print the bot's version and commit and the claude CLI's version.
    #[arg(short = 'V', long)]
    pub version: bool,

    /// Console: show every log line on the terminal too (they always go to logs/ollim-bot.log);
    /// history: add tool calls and results.
    #[arg(short, long, global = true)]
    pub verbose: bool,

    /// What to do; nothing runs the bot.
    #[command(subcommand)]
    pub command: Option<Command>,
}

const EXAMPLES: &str = "\
examples:
  ollim-bot                                   run the bot (console when DISCORD_TOKEN is unset)
  ollim-bot routine add --cron \"30 8 * * *\" -m \"Morning briefing\"
  ollim-bot reminder add --delay 30 -m \"take a break\"
  ollim-bot reminder add --delay 60 -m \"did you send the invoice?\" --max-chain 3
  ollim-bot reminder add --delay 5 -m \"stretch with me\" --foreground
  ollim-bot tasks add \"Buy milk\" --due 2026-02-24
  ollim-bot cal today
  ollim-bot gmail unread --max 10
  ollim-bot history search -p --since 3d \"dentist\"
  ollim-bot usage --by-job --days 7
  ollim-bot memory show
  ollim-bot memory search dentist appointment --limit 5
  ollim-bot dashboard";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show this help.
    Help,
    /// Run the bot with the terminal as the DM channel.
    Console,
    /// Talk to the agent from the terminal: the running bot's conversation when one runs,
    /// else a conversation of its own.
    Chat {
        /// The model for this chat (e.g. `opus`, or a local model's name) when chat runs the
        /// conversation itself.
        #[arg(long)]
        model: Option<String>,
    },
    /// Recurring, cron-scheduled prompts.
    #[command(subcommand)]
    Routine(routine::RoutineCommand),
    /// One-shot prompts after a delay, optionally as a follow-up chain.
    #[command(subcommand)]
    Reminder(reminder::ReminderCommand),
    /// Google Tasks (connect with /google-auth in the bot).
    #[command(subcommand)]
    Tasks(tasks::TasksCommand),
    /// Google Calendar, times in OLLIM_TIMEZONE.
    #[command(subcommand)]
    Cal(cal::CalCommand),
    /// Gmail, read-only.
    #[command(subcommand)]
    Gmail(gmail::GmailCommand),
    /// Sign Claude Code in or out (runs `claude auth ...`).
    #[command(subcommand)]
    Auth(auth::AuthCommand),
    /// Check the set-up: environment, data directory, state files, jobs, the claude CLI.
    Doctor,
    /// Claude Code's transcripts of the bot's sessions: list, read, search.
    History(history::HistoryArgs),
    /// What the assistant cost: today, 7 and 30 days, conversation and jobs, tokens.
    Usage(usage::UsageArgs),
    /// The assistant's memory, context.md: show it, its changes, undo the last; search it.
    #[command(subcommand)]
    Memory(memory::MemoryCommand),
    /// A one-time login link to the running bot's dashboard (works once, for 10 minutes).
    Dashboard,
}
