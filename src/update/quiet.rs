//! Whether an update may act now: the conversation is quiet (no answer being written, no
//! interactive fork: the main session's [`IsQuiet`]) and no background job is running or waiting (the
//! job runner's [`Runs`]). An actor that does not answer counts as not quiet, logged: an update
//! never restarts over work it could not see.

use actix::Recipient;
use ollim_actors::conversation::main_session::quiet::IsQuiet;
use ollim_actors::scheduling::job_runner::Runs;

/// The two actors that know whether something is running.
#[derive(Clone)]
pub struct Quiet {
    /// The main session.
    pub conversation: Recipient<IsQuiet>,
    /// The job runner.
    pub runs: Recipient<Runs>,
}

impl Quiet {
    /// True when a restart would cut nothing short.
    pub async fn check(&self) -> bool {
        match self.conversation.send(IsQuiet).await {
            Ok(true) => {}
            Ok(false) => return false,
            Err(e) => {
                tracing::error!(actor = "main_session", cause = %e, "no answer on whether the conversation is quiet; not updating");
                return false;
            }
        }
        match self.runs.send(Runs).await {
            Ok(counts) => counts.idle(),
            Err(e) => {
                tracing::error!(actor = "job_runner", cause = %e, "no answer on running background forks; not updating");
                false
            }
        }
    }
}
