//! `response UUID`: the answer to one prompt (or one answer in full), with what the bot sent
//! the owner through its Discord tools. Only files holding the uuid's bytes are parsed. A fork's
//! transcript carries copies of its parent's records, so the same uuid can be in several
//! sessions: the newest that holds an answer to it wins.

use std::ops::ControlFlow;

use chrono_tz::Tz;

use super::library::Library;
use super::scan;
use super::show::{emit, one_line, short, time, LINE_CHARS};
use super::transcript::{Entry, Kind, Transcript};

/// The longest answer `response` prints.
const MAX_RESPONSE: usize = 8000;

/// The answer to the prompt `uuid` (or the answer `uuid` itself) and what follows it up to the
/// next prompt.
pub fn response_text(transcript: &Transcript, uuid: &str) -> Option<(Entry, String)> {
    let entries = &transcript.entries;
    let at = entries.iter().position(|e| e.uuid.starts_with(uuid))?;
    let anchor = entries[at].clone();
    let start = if anchor.kind == Kind::Prompt {
        entries[at..]
            .iter()
            .position(|e| e.uuid != anchor.uuid)
            .map_or(entries.len(), |p| at + p)
    } else {
        at
    };
    let answer: Vec<&str> = entries[start..]
        .iter()
        .take_while(|e| e.kind != Kind::Prompt)
        .filter(|e| e.kind.is_answer())
        .map(|e| e.text.as_str())
        .collect();
    Some((anchor, answer.join("\n\n")))
}

/// Prints the answer, looked for in every session in scope.
pub fn response(library: &Library, uuid: &str, tz: Tz) -> anyhow::Result<()> {
    let uuid = uuid.trim();
    if uuid.len() < 4 {
        anyhow::bail!("give at least 4 characters of the message's uuid");
    }
    let all: Vec<usize> = (0..library.sessions.len()).collect();
    let mut first: Option<(usize, Entry, String)> = None;
    scan::in_order(
        &all,
        |&index| {
            let bytes = std::fs::read(&library.sessions[index].path).ok()?;
            memchr::memmem::find(&bytes, uuid.as_bytes())?;
            let (anchor, answer) = response_text(&Transcript::parse_bytes(&bytes), uuid)?;
            Some((index, anchor, answer))
        },
        |_, found| match found {
            Some(found) if !found.2.trim().is_empty() => {
                first = Some(found);
                ControlFlow::Break(())
            }
            Some(found) => {
                first.get_or_insert(found);
                ControlFlow::Continue(())
            }
            None => ControlFlow::Continue(()),
        },
    );
    let Some((index, anchor, answer)) = first else {
        anyhow::bail!("no message has a uuid starting with {uuid:?}")
    };
    let when = anchor.at.map(|at| time(at, tz)).unwrap_or_default();
    emit(format!(
        "{} {} in session {} ({}) {when}:",
        anchor.kind.word(),
        short(&anchor.uuid),
        short(&library.sessions[index].id),
        library.label(index)
    ))?;
    if anchor.kind == Kind::Prompt {
        emit(format!("> {}", one_line(&anchor.text, LINE_CHARS)))?;
    }
    if answer.trim().is_empty() {
        emit("(no answer text)")
    } else if answer.chars().count() > MAX_RESPONSE {
        let cut: String = answer.chars().take(MAX_RESPONSE).collect();
        emit(format!("{cut}\n… (cut at {MAX_RESPONSE} characters)"))
    } else {
        emit(&answer)
    }
}
