//! `ollim-bot history …` (SPEC §16): the Claude Code transcripts, read natively — the bot's own
//! sessions by default, every project with `--all-projects`. It replaces the separate
//! `claude-history` program the history-reviewer, responsiveness-reviewer and user-proxy
//! subagents used.
//!
//! ```text
//! ollim-bot history sessions [--since 24h|3d|1w|today|yesterday|2026-11-20[T08:00]] [--page N] [-t]
//! ollim-bot history prompts [-v] [-t] SESSION
//! ollim-bot history response UUID
//! ollim-bot history transcript [-v] [-t] SESSION
//! ollim-bot history search [-p|-r] [--since P] [-t] "QUERY"
//! ollim-bot history subagents [AGENT_ID]
//! ```
//! SESSION is `prev` (the latest session but the one asking), `prev-2`, `prev-3`…, or the start
//! of a session id. Files: [`store`] (where transcripts are), [`transcript`] (reading one,
//! damaged lines skipped; [`said`] what a text is), [`library`] (ordering, `prev`), [`period`]
//! (`--since`), [`scan`] (reading files in parallel), [`query`] (the case-folded query),
//! [`listing`], [`search`], [`response`] and [`show`] (the output).

mod library;
mod listing;
mod period;
mod query;
mod response;
mod said;
mod scan;
mod search;
mod show;
mod store;
mod transcript;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use clap::{Args, Subcommand};

use library::Library;
use show::Layout;

/// Options every history command takes.
#[derive(Debug, Args)]
pub struct Scope {
    /// Read every project's sessions, not only the bot's.
    #[arg(long, global = true)]
    pub all_projects: bool,
    /// Which page of a long listing (1 = the newest).
    #[arg(long, default_value_t = 1, global = true)]
    pub page: usize,
    /// Show times on every line.
    #[arg(short = 't', long = "timestamps", global = true)]
    pub timestamps: bool,
}

/// `history` and its options.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The options every subcommand takes.
    #[command(flatten)]
    pub scope: Scope,
    /// What to read.
    #[command(subcommand)]
    pub command: HistoryCommand,
}

/// History subcommands.
#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Recent sessions, newest first.
    Sessions {
        /// Only sessions whose transcript changed since: 30m, 24h, 3d, 1w, today, yesterday,
        /// or a local date or time (2026-11-20, 2026-11-20T08:00).
        #[arg(long)]
        since: Option<String>,
    },
    /// The user's prompts in a session (-v adds the tool results).
    Prompts {
        /// prev, prev-N, or the start of a session id.
        session: String,
    },
    /// The answer to one prompt (or one answer in full), by message uuid.
    Response {
        /// The message's uuid, or its start (from prompts or search).
        uuid: String,
    },
    /// A whole conversation (-v adds the tool calls and their results).
    Transcript {
        /// prev, prev-N, or the start of a session id.
        session: String,
    },
    /// Search prompts and answers for a phrase (case-insensitive).
    Search {
        /// Prompts only.
        #[arg(short = 'p', long, conflicts_with = "responses")]
        prompts: bool,
        /// Answers only.
        #[arg(short = 'r', long)]
        responses: bool,
        /// Only messages since: 30m, 24h, 3d, 1w, today, yesterday, or a local date or time
        /// (2026-11-20, 2026-11-20T08:00).
        #[arg(long)]
        since: Option<String>,
        /// What to look for.
        query: String,
    },
    /// Subagent transcripts: all of them, or one by id.
    Subagents {
        /// The agent's id, or its start.
        agent_id: Option<String>,
    },
}

/// Runs a history command (see [`run_command`]); a reader that stopped early (`| head`) is
/// not an error.
pub fn run(
    args: HistoryArgs,
    verbose: bool,
    data_root: &std::path::Path,
    get: &dyn Fn(&str) -> Option<String>,
    tz: Tz,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    match run_command(args, verbose, data_root, get, tz, now) {
        Err(e) if show::finished_early(&e) => Ok(()),
        other => other,
    }
}

/// One session's transcript as `history transcript -v -t` lists it — its heading, then its
/// lines from `since` on (a background fork's transcript starts with a copy of the conversation
/// it branched from) — for the dashboard's Runs page. `None` when the bot's project has no
/// transcript with exactly that id. Unreadable lines are skipped and logged.
pub fn session_lines(
    data_root: &std::path::Path,
    get: &dyn Fn(&str) -> Option<String>,
    session: &str,
    since: Option<DateTime<Utc>>,
    tz: Tz,
) -> anyhow::Result<Option<(String, Vec<String>)>> {
    let config = store::config_dir(get)?;
    let projects = store::projects(&config, data_root, false)?;
    let library = Library::open(&projects, None);
    let Some(index) = library.sessions.iter().position(|s| s.id == session) else {
        return Ok(None);
    };
    let file = library.sessions[index].clone();
    let transcript = transcript::Transcript::read(&file.path)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", file.path.display()))?;
    if transcript.skipped_lines > 0 {
        tracing::warn!(
            session,
            skipped = transcript.skipped_lines,
            "transcript lines that do not read were left out"
        );
    }
    let loaded = library::Loaded {
        label: library.label(index),
        file,
        transcript,
    };
    let layout = Layout {
        tz,
        timestamps: true,
        page: 1,
    };
    Ok(Some((
        show::heading(&loaded, tz),
        show::transcript_lines(&loaded, true, &layout, since),
    )))
}

/// The ids of the bot's sessions that have a transcript (the dashboard links only those).
pub fn session_ids(
    data_root: &std::path::Path,
    get: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<std::collections::HashSet<String>> {
    let config = store::config_dir(get)?;
    let projects = store::projects(&config, data_root, false)?;
    Ok(Library::open(&projects, None)
        .sessions
        .into_iter()
        .map(|s| s.id)
        .collect())
}

/// Runs a history command for the data directory `data_root`, with `now` in zone `tz`;
/// `verbose` is the command line's `-v` (tool calls and results in `prompts` and `transcript`).
fn run_command(
    args: HistoryArgs,
    verbose: bool,
    data_root: &std::path::Path,
    get: &dyn Fn(&str) -> Option<String>,
    tz: Tz,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let config = store::config_dir(get)?;
    let projects = store::projects(&config, data_root, args.scope.all_projects)?;
    let library = Library::open(&projects, get("CLAUDE_CODE_SESSION_ID"));
    let layout = Layout {
        tz,
        timestamps: args.scope.timestamps,
        page: args.scope.page,
    };
    let since = |text: &Option<String>| {
        text.as_deref()
            .map(|t| period::since(t, now, tz).map_err(anyhow::Error::msg))
            .transpose()
    };
    if projects.is_empty() {
        let place = config.join("projects");
        return show::emit(format!(
            "no sessions: no transcripts of {} under {}",
            data_root.display(),
            place.display()
        ));
    }
    match args.command {
        HistoryCommand::Sessions { since: period } => {
            listing::sessions(&library, since(&period)?, &layout)
        }
        HistoryCommand::Prompts { session } => {
            let loaded = library.load(library.resolve(&session)?)?;
            show::prompts(&loaded, verbose, &layout)
        }
        HistoryCommand::Response { uuid } => response::response(&library, &uuid, tz),
        HistoryCommand::Transcript { session } => {
            let loaded = library.load(library.resolve(&session)?)?;
            show::transcript(&loaded, verbose, &layout)
        }
        HistoryCommand::Search {
            prompts,
            responses,
            since: period,
            query,
        } => {
            let scope = match (prompts, responses) {
                (true, _) => search::Scope::Prompts,
                (_, true) => search::Scope::Responses,
                _ => search::Scope::Both,
            };
            search::search(&library, &query, scope, since(&period)?, &layout)
        }
        HistoryCommand::Subagents { agent_id } => {
            show::subagents(&library, agent_id.as_deref(), &layout)
        }
    }
}
