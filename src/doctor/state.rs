//! Every file under `state/`, read as a start would read it — but without the start's
//! remedy: a start sets a file that does not parse aside and begins from defaults, `doctor`
//! only says so. Files set aside earlier (`*.corrupt-*`) are pointed out.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use ollim_actors::records::pending_updates::PendingUpdate;
use ollim_actors::records::ping_budget::sent::SentLog;
use ollim_actors::records::ping_budget::BucketFile;
use ollim_actors::records::sessions::{main_id, SessionEvent};
use serde_json::Value;

use super::{Check, Inputs};

/// A parser: what the file holds (for the PASS line), or why it does not parse.
type Parse = fn(&[u8]) -> Result<String, String>;

/// The state files, each with how it is read.
const FILES: [(&str, Parse); 10] = [
    ("ping_budget.json", ping_budget),
    ("pending_updates.json", pending_updates),
    ("sessions.json", session_id),
    ("session_history.jsonl", session_history),
    ("fork_messages.json", json_list),
    ("inquiries.json", json_object),
    ("config.json", json_object),
    ("agents.json", json_object),
    ("snoozes.json", json_object),
    ("sent_pings.json", sent_pings),
];

/// The state file checks.
pub fn checks(inputs: &Inputs<'_>) -> Vec<Check> {
    let dir = inputs.data.state();
    if !dir.is_dir() {
        return vec![Check::pass(
            "state/",
            "not created yet; every file starts from its defaults",
        )];
    }
    let mut checks = Vec::new();
    for (name, parse) in FILES {
        let path = dir.join(name);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                checks.push(Check::fail(
                    name,
                    format!("cannot be read: {e}"),
                    "give the user running the bot read access to state/",
                ));
                continue;
            }
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            checks.push(Check::pass(name, "empty (defaults)"));
            continue;
        }
        checks.push(match parse(&bytes) {
            Ok(what) => Check::pass(name, what),
            Err(why) => Check::fail(
                name,
                format!("does not parse: {why}"),
                format!(
                    "the next start sets it aside as {name}.corrupt-<time> and starts from \
                     defaults; fix or delete {} to keep control",
                    path.display()
                ),
            ),
        });
    }
    if checks.is_empty() {
        checks.push(Check::pass(
            "state/",
            "no state files yet; each starts from its defaults",
        ));
    }
    checks.push(match crate::original_bot::running(&dir) {
        Some(original) => Check::fail(
            "bot.pid",
            format!("the Python ollim-bot is running (pid {})", original.pid),
            format!(
                "stop it first ({}): two bots on one data directory would both run every \
                 routine, and this one refuses to start beside it",
                original.how_to_stop()
            ),
        ),
        None => pid_file(&dir.join("bot.pid")),
    });
    checks.extend(set_aside(&dir));
    checks
}

fn ping_budget(bytes: &[u8]) -> Result<String, String> {
    BucketFile::parse(bytes)
        .map(|_| "the ping budget".to_owned())
        .map_err(|e| e.to_string())
}

fn pending_updates(bytes: &[u8]) -> Result<String, String> {
    serde_json::from_slice::<Vec<PendingUpdate>>(bytes)
        .map(|q| format!("{} pending updates", q.len()))
        .map_err(|e| e.to_string())
}

fn session_id(bytes: &[u8]) -> Result<String, String> {
    match main_id::parse(bytes) {
        Ok(Some(id)) => Ok(format!("resumes session {id}")),
        Ok(None) => Ok("the original's older layout: starts a new session".to_owned()),
        Err(e) => Err(e.to_string()),
    }
}

fn session_history(bytes: &[u8]) -> Result<String, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
    let mut count = 0;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        serde_json::from_str::<SessionEvent>(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        count += 1;
    }
    Ok(format!("{count} events"))
}

fn json_list(bytes: &[u8]) -> Result<String, String> {
    serde_json::from_slice::<Vec<Value>>(bytes)
        .map(|l| format!("{} records", l.len()))
        .map_err(|e| e.to_string())
}

fn sent_pings(bytes: &[u8]) -> Result<String, String> {
    SentLog::parse(bytes)
        .map(|log| format!("recent pings of {} jobs", log.jobs()))
        .map_err(|e| e.to_string())
}

fn json_object(bytes: &[u8]) -> Result<String, String> {
    serde_json::from_slice::<BTreeMap<String, Value>>(bytes)
        .map(|m| match m.len() {
            1 => "1 entry".to_owned(),
            n => format!("{n} entries"),
        })
        .map_err(|e| e.to_string())
}

/// `bot.pid`: whose it is, and whether that bot still runs.
fn pid_file(path: &Path) -> Check {
    let Ok(text) = fs::read_to_string(path) else {
        return Check::pass("bot.pid", "no bot is running on this data directory");
    };
    match text.trim().parse::<u32>() {
        Ok(pid) if is_running_bot(pid) => {
            Check::pass("bot.pid", format!("the bot is running (pid {pid})"))
        }
        Ok(pid) => Check::pass(
            "bot.pid",
            format!(
                "left by a bot that is no longer running (pid {pid}); the next start replaces it"
            ),
        ),
        Err(_) => Check::warn(
            "bot.pid",
            format!("holds {:?}, not a process id", text.trim()),
            format!("delete {} (no bot is using it)", path.display()),
        ),
    }
}

fn is_running_bot(pid: u32) -> bool {
    fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|c| String::from_utf8_lossy(&c).contains("ollim-bot"))
}

/// Files a start set aside because they did not parse.
fn set_aside(dir: &Path) -> Vec<Check> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".corrupt-"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            Check::warn(
                name.clone(),
                "a damaged state file an earlier start set aside",
                format!(
                    "look inside for anything worth keeping, then delete {}",
                    dir.join(&name).display()
                ),
            )
        })
        .collect()
}
