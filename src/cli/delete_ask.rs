//! `tasks delete` and `cal delete` run by the agent ask the owner first (SPEC §20). The bot
//! marks its agent sessions with `OLLIM_AGENT_SESSION`: a background job's delete is refused;
//! the conversation's (or an interactive fork's) asks the running bot over the control socket,
//! which posts the Delete / Keep question and deletes only when the owner clicks Delete. The
//! owner's own shell has no mark, and deletes at once.
//!
//! The mark is read from this process's environment *and* from its ancestors' (the `claude`
//! process the bot started, and the shell it ran the command in), whose environment the agent
//! cannot change: `env -u OLLIM_AGENT_SESSION ollim-bot tasks delete …` in a background job is
//! still refused, and the strictest mark found wins.
//!
//! A process that detaches (a double fork, `setsid`) and drops the mark from its own
//! environment leaves no ancestor carrying one: the mark cannot hold it. The OS sandbox does:
//! such a process is one of the sandboxed command's, where the Google grant is unreadable and a
//! background job has no network, and it cannot open the control socket (Unix sockets are
//! refused there). With the sandbox off it deletes unasked (docs/sandbox.md says so).

use anyhow::bail;
use ollim_actors::base::child_env::{AgentSession, AGENT_SESSION};
use ollim_actors::base::settings;
use ollim_actors::bot::control_socket;
use ollim_actors::google::confirm::{DeleteTarget, BACKGROUND_REFUSAL};

/// Refuses or asks when the agent runs the command: true when that is done (nothing deleted
/// here), false when the owner ran it and it may delete at once.
pub fn handled_for_agent(target: DeleteTarget) -> anyhow::Result<bool> {
    let get = |k: &str| std::env::var(k).ok();
    let own = get(AGENT_SESSION).as_deref().and_then(AgentSession::parse);
    let Some(session) = strictest(own.into_iter().chain(ancestor_marks())) else {
        return Ok(false);
    };
    if session == AgentSession::Background {
        bail!("{BACKGROUND_REFUSAL}");
    }
    let data = settings::data_dir_from(&get);
    let socket = data.state_file(control_socket::FILE_NAME);
    let request = control_socket::Request::AskDelete {
        target,
        session: session.as_str().to_owned(),
    };
    let answer = control_socket::request(&socket, data.root(), &request)?;
    if !answer.ok {
        bail!("{}", answer.message);
    }
    println!("{}", answer.message);
    Ok(true)
}

/// The strictest of `marks`: a background mark anywhere wins, else the first one.
fn strictest(marks: impl IntoIterator<Item = AgentSession>) -> Option<AgentSession> {
    let marks: Vec<AgentSession> = marks.into_iter().collect();
    if marks.contains(&AgentSession::Background) {
        return Some(AgentSession::Background);
    }
    marks.first().copied()
}

/// The agent-session marks in the environments of this process's ancestors, nearest first
/// (Linux `/proc`; elsewhere none). An ancestor whose environment cannot be read is passed over.
fn ancestor_marks() -> Vec<AgentSession> {
    let mut marks = Vec::new();
    let mut pid = parent_of("self");
    // A chain deeper than this is a loop or not worth following.
    for _ in 0..64 {
        let Some(current) = pid.filter(|p| *p > 1) else {
            break;
        };
        let path = format!("/proc/{current}/environ");
        if let Ok(bytes) = std::fs::read(path) {
            let prefix = format!("{AGENT_SESSION}=");
            let found = bytes
                .split(|b| *b == 0)
                .filter_map(|entry| entry.strip_prefix(prefix.as_bytes()))
                .filter_map(|value| std::str::from_utf8(value).ok())
                .find_map(AgentSession::parse);
            marks.extend(found);
        }
        pid = parent_of(&current.to_string());
    }
    marks
}

/// The parent pid of `/proc/<pid>` (`self` for this process): the field after the
/// parenthesised command name in `stat`, which may itself hold spaces and parentheses.
fn parent_of(pid: &str) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_background_mark_anywhere_wins() {
        use AgentSession::*;
        assert_eq!(strictest([Conversation, Background]), Some(Background));
        assert_eq!(strictest([Fork, Conversation]), Some(Fork));
        assert_eq!(strictest([]), None);
    }

    #[test]
    fn this_process_has_a_parent() {
        assert!(parent_of("self").is_some_and(|p| p > 0));
    }
}
