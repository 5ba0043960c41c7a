//! What the history commands print: short lines a model can page through. Sessions and
//! messages are named by the first 8 characters of their ids (any unique start is accepted
//! back); times are in the configured zone.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use super::library::{Library, Loaded};
use super::transcript::{Entry, Kind, Transcript};

/// Sessions per page of `sessions`.
pub const SESSIONS_PER_PAGE: usize = 20;
/// Lines per page of `prompts` and `transcript`.
pub const LINES_PER_PAGE: usize = 60;
/// The longest text shown for one entry (`response` shows it whole, up to [`MAX_RESPONSE`]).
pub const LINE_CHARS: usize = 300;

/// How the output is laid out.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// The zone times are shown in.
    pub tz: Tz,
    /// Put each line's time in front of it.
    pub timestamps: bool,
    /// 1-based page.
    pub page: usize,
}

/// Prints one line; a reader that went away (`| head`) ends the output quietly, through
/// [`finished_early`].
pub fn emit(text: impl std::fmt::Display) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    Ok(())
}

/// Whether an error only says that the reader stopped reading.
pub fn finished_early(error: &anyhow::Error) -> bool {
    error
        .downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// `1 prompt`, `3 prompts`.
pub fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The first 8 characters of an id.
pub fn short(id: &str) -> String {
    id.chars().take(8).collect()
}

/// `text` on one line, cut at `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    }
}

/// `2026-03-02 09:14` in `tz`.
pub fn time(at: DateTime<Utc>, tz: Tz) -> String {
    at.with_timezone(&tz).format("%Y-%m-%d %H:%M").to_string()
}

fn stamp(entry: &Entry, layout: &Layout) -> String {
    match (layout.timestamps, entry.at) {
        (true, Some(at)) => format!("{}  ", time(at, layout.tz)),
        (true, None) => " ".repeat(18),
        (false, _) => String::new(),
    }
}

/// Prints the part of `lines` on the layout's page, then where the rest is.
pub fn paged(lines: &[String], per_page: usize, page: usize) -> anyhow::Result<()> {
    let pages = lines.len().div_ceil(per_page).max(1);
    if page == 0 || page > pages {
        anyhow::bail!("page {page} is past the end ({pages} page(s))");
    }
    for line in lines.iter().skip((page - 1) * per_page).take(per_page) {
        emit(line)?;
    }
    if page < pages {
        emit(format!(
            "-- page {page} of {pages}; --page {} for more",
            page + 1
        ))?;
    }
    Ok(())
}

/// A session's heading line.
pub fn heading(loaded: &Loaded, tz: Tz) -> String {
    let span = match loaded.transcript.span() {
        Some((first, last)) => format!("{} – {}", time(first, tz), time(last, tz)),
        None => "no messages".to_owned(),
    };
    format!(
        "session {} ({}) · {span} · {}",
        short(&loaded.file.id),
        loaded.label,
        count(loaded.transcript.prompts().count(), "prompt")
    )
}

/// `prompts`: the user's prompts of one session (`verbose`: with the tool results).
pub fn prompts(loaded: &Loaded, verbose: bool, layout: &Layout) -> anyhow::Result<()> {
    emit(heading(loaded, layout.tz))?;
    let lines: Vec<String> = loaded
        .transcript
        .entries
        .iter()
        .filter_map(|e| match e.kind {
            Kind::Prompt => Some(format!(
                "{}{}  {}",
                stamp(e, layout),
                short(&e.uuid),
                one_line(&e.text, LINE_CHARS)
            )),
            Kind::ToolResult if verbose => Some(format!(
                "{}          ↳ result: {}",
                stamp(e, layout),
                one_line(&e.text, LINE_CHARS)
            )),
            _ => None,
        })
        .collect();
    paged(&lines, LINES_PER_PAGE, layout.page)
}

/// `transcript`: the whole conversation (`verbose`: with tool calls and results).
pub fn transcript(loaded: &Loaded, verbose: bool, layout: &Layout) -> anyhow::Result<()> {
    emit(heading(loaded, layout.tz))?;
    let lines = transcript_lines(loaded, verbose, layout, None);
    paged(&lines, LINES_PER_PAGE, layout.page)
}

/// The lines `transcript` prints, only those at or after `since` when given (an entry without
/// a time goes with the ones before it).
pub fn transcript_lines(
    loaded: &Loaded,
    verbose: bool,
    layout: &Layout,
    since: Option<DateTime<Utc>>,
) -> Vec<String> {
    let mut seen_since = since.is_none();
    loaded
        .transcript
        .entries
        .iter()
        .filter(|e| {
            if let (Some(since), Some(at)) = (since, e.at) {
                seen_since = at >= since;
            }
            seen_since
        })
        .filter(|e| verbose || e.kind == Kind::Prompt || e.kind.is_answer())
        .map(|e| {
            let who = match e.kind {
                Kind::Prompt => format!("[user {}]", short(&e.uuid)),
                Kind::Answer | Kind::Sent => format!("[assistant {}]", short(&e.uuid)),
                other => format!("[{}]", other.word()),
            };
            format!(
                "{}{who} {}",
                stamp(e, layout),
                one_line(&e.text, LINE_CHARS)
            )
        })
        .collect()
}

/// `subagents`: every subagent transcript, or one in full.
pub fn subagents(library: &Library, id: Option<&str>, layout: &Layout) -> anyhow::Result<()> {
    let agents = library.agents();
    let Some(id) = id.map(str::trim) else {
        if agents.is_empty() {
            emit("no subagent transcripts")?;
            return Ok(());
        }
        let mut lines = Vec::new();
        for agent in &agents {
            let Ok(t) = Transcript::read(&agent.path) else {
                continue;
            };
            let when = t.span().map(|(first, _)| time(first, layout.tz));
            lines.push((
                t.span().map(|(first, _)| first),
                format!(
                    "{}  session {}  {}  {}  {}  · {}",
                    agent.id,
                    agent.session.as_deref().map(short).unwrap_or("?".into()),
                    when.unwrap_or_else(|| "(empty)".into()),
                    agent.agent_type.as_deref().unwrap_or("agent"),
                    one_line(agent.description.as_deref().unwrap_or(""), 60),
                    count(t.entries.len(), "message")
                ),
            ));
        }
        lines.sort_by_key(|line| std::cmp::Reverse(line.0));
        let lines: Vec<String> = lines.into_iter().map(|(_, l)| l).collect();
        return paged(&lines, SESSIONS_PER_PAGE, layout.page);
    };
    let found: Vec<_> = agents
        .iter()
        .filter(|a| !id.is_empty() && a.id.starts_with(id))
        .collect();
    let agent = match found.as_slice() {
        [one] => one,
        [] => anyhow::bail!("no subagent transcript has an id starting with {id:?}"),
        many => anyhow::bail!(
            "{id:?} matches {} subagents; give more of the id",
            many.len()
        ),
    };
    let t = Transcript::read(&agent.path)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", agent.path.display()))?;
    super::library::note_skipped(&agent.id, t.skipped_lines);
    emit(format!(
        "subagent {} ({}) · {}",
        agent.id,
        agent.agent_type.as_deref().unwrap_or("agent"),
        one_line(agent.description.as_deref().unwrap_or(""), 80)
    ))?;
    let lines: Vec<String> = t
        .entries
        .iter()
        .map(|e| {
            format!(
                "{}[{}] {}",
                stamp(e, layout),
                e.kind.word(),
                one_line(&e.text, LINE_CHARS)
            )
        })
        .collect();
    paged(&lines, LINES_PER_PAGE, layout.page)
}
