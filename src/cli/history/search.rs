//! `search [-p|-r] [--since P] "QUERY"`: every prompt and answer (or only prompts, or only
//! answers) containing the query, case-insensitively, newest session first. A message copied
//! into a fork's transcript (a fork starts with its parent's history) is shown once.

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use super::library::Library;
use super::show::{emit, one_line, paged, short, time, Layout};
use super::transcript::Kind;

/// Hits per page.
const HITS_PER_PAGE: usize = 30;
/// Characters of context on each side of a match.
const CONTEXT: usize = 60;

/// What to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Prompts and answers.
    Both,
    /// The user's prompts.
    Prompts,
    /// The assistant's answers.
    Responses,
}

/// Prints the hits.
pub fn search(
    library: &Library,
    query: &str,
    scope: Scope,
    since: Option<DateTime<Utc>>,
    layout: &Layout,
) -> anyhow::Result<()> {
    let needle = query.trim();
    if needle.is_empty() {
        anyhow::bail!("give something to search for");
    }
    let mut seen = HashSet::new();
    let mut lines = Vec::new();
    for loaded in library.load_all(&library.since(since)) {
        for entry in &loaded.transcript.entries {
            let wanted = matches!(
                (entry.kind, scope),
                (Kind::Prompt, Scope::Both | Scope::Prompts)
                    | (Kind::Answer, Scope::Both | Scope::Responses)
            );
            let recent = match (since, entry.at) {
                (Some(since), Some(at)) => at >= since,
                _ => true,
            };
            if !wanted || !recent || seen.contains(&(entry.uuid.clone(), entry.kind)) {
                continue;
            }
            let Some(snippet) = snippet(&entry.text, needle) else {
                continue;
            };
            seen.insert((entry.uuid.clone(), entry.kind));
            let when = match (layout.timestamps, entry.at) {
                (true, Some(at)) => format!("{}  ", time(at, layout.tz)),
                _ => String::new(),
            };
            lines.push(format!(
                "{when}{}  {}  {:<9}  {snippet}",
                short(&loaded.file.id),
                short(&entry.uuid),
                entry.kind.word()
            ));
        }
    }
    if lines.is_empty() {
        emit(format!("no matches for {query:?}"))?;
        return Ok(());
    }
    emit(format!(
        "{} match(es) for {query:?} (session  message  who  text):",
        lines.len()
    ))?;
    paged(&lines, HITS_PER_PAGE, layout.page)
}

/// Lowercase, one character for one (so positions line up with the original text).
fn folded(text: &str) -> Vec<char> {
    text.chars()
        .map(|c| c.to_lowercase().next().unwrap_or(c))
        .collect()
}

/// The text around the first match of `needle` in `text`, on one line.
fn snippet(text: &str, needle: &str) -> Option<String> {
    let chars: Vec<char> = one_line(text, usize::MAX).chars().collect();
    let hay = folded(&chars.iter().collect::<String>());
    let needle = folded(needle);
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    let at = (0..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()] == needle[..])?;
    let start = at.saturating_sub(CONTEXT);
    let end = (at + needle.len() + CONTEXT).min(chars.len());
    let mut out: String = chars[start..end].iter().collect();
    if start > 0 {
        out.insert(0, '…');
    }
    if end < chars.len() {
        out.push('…');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_show_the_match_in_context() {
        let text = format!(
            "{} the Dentist at nine {}",
            "a".repeat(100),
            "b".repeat(100)
        );
        let s = snippet(&text, "dentist").unwrap();
        assert!(s.starts_with('…') && s.ends_with('…'));
        assert!(s.contains("the Dentist at nine"));
        assert_eq!(snippet("short one", "one").as_deref(), Some("short one"));
        assert_eq!(snippet("nothing here", "dentist"), None);
        assert_eq!(
            snippet("İstanbul trip", "trip").as_deref(),
            Some("İstanbul trip")
        );
    }
}
