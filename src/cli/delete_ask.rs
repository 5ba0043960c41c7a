//! `tasks delete` and `cal delete` run by the agent ask the owner first (SPEC §20). The bot
//! marks its agent sessions with `OLLIM_AGENT_SESSION`: a background job's delete is refused;
//! the conversation's (or an interactive fork's) asks the running bot over the control socket,
//! which posts the Delete / Keep question and deletes only when the owner clicks Delete. The
//! owner's own shell has no mark, and deletes at once.

use anyhow::bail;
use ollim_actors::child_env::{AgentSession, AGENT_SESSION};
use ollim_actors::control_socket;
use ollim_actors::google::confirm::{DeleteTarget, BACKGROUND_REFUSAL};
use ollim_actors::settings;

/// Refuses or asks when the agent runs the command: true when that is done (nothing deleted
/// here), false when the owner ran it and it may delete at once.
pub fn handled_for_agent(target: DeleteTarget) -> anyhow::Result<bool> {
    let get = |k: &str| std::env::var(k).ok();
    let Some(session) = get(AGENT_SESSION).as_deref().and_then(AgentSession::parse) else {
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
