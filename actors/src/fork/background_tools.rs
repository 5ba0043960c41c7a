//! What a background fork may use: the tool lists it is started with, and the backend of its
//! `discord` tools, which hands every call to the fork's mailbox as a [`ToolAction`] (carried out
//! in [`super::tool_actions`]).

use actix::prelude::*;

use super::background::{chain, BackgroundFork, BackgroundJob};
use super::tool_actions::ToolAction;
use crate::brain::BoxFuture;
use crate::data_dir::DataDir;
use crate::jobs::JobSettings;
use crate::permissions::background::{allowed_tools_for_job, disallowed_tools_for_job};
use crate::tools::{
    BackgroundRules, ChainPosition, DiscordTools, Embed, Peer, Refusal, SessionKind, ToolBackend,
};

/// The tools a job may use: the minimal background set, then the job's, then its skills'.
pub fn allowed_tools(fired: &BackgroundJob, data: &DataDir) -> Vec<String> {
    let settings = fired.job.settings();
    let skill_tools: Vec<String> = settings
        .skills
        .iter()
        .flatten()
        .filter_map(|name| {
            crate::skills::read_skill(&data.skills(), name)
                .ok()
                .flatten()
        })
        .flat_map(|s| s.allowed_tools.unwrap_or_default())
        .collect();
    let declared: Vec<String> = settings
        .allowed_tools
        .iter()
        .flatten()
        .chain(&skill_tools)
        .cloned()
        .collect();
    // Validated again at fire time: the files may have been edited since start-up.
    let checked = crate::permissions::validate(&declared, data);
    checked.log(&format!("job:{}", fired.job.id()));
    allowed_tools_for_job(Some(&checked.kept), &[])
}

/// The tools taken away by `allow-ping: false` and `blocked`.
pub fn disallowed_tools(settings: &JobSettings) -> Vec<String> {
    disallowed_tools_for_job(settings.allow_ping, settings.update_main_session)
}

/// The `discord` tools of one background fork.
pub struct ForkTools;

impl ForkTools {
    /// The tool server for `fired`, answering through the fork at `addr`.
    pub fn for_fork(fired: &BackgroundJob, addr: Addr<BackgroundFork>) -> DiscordTools {
        let settings = fired.job.settings();
        let rules = BackgroundRules {
            allow_ping: settings.allow_ping,
            update_mode: settings.update_main_session,
            chain: chain(fired).map(|(depth, max)| ChainPosition { depth, max }),
        };
        DiscordTools::new(
            SessionKind::Background(rules),
            std::sync::Arc::new(ForkBackend { fork: addr }),
        )
    }
}

/// Sends tool calls into the fork's mailbox.
struct ForkBackend {
    fork: Addr<BackgroundFork>,
}

fn ask(fork: &Addr<BackgroundFork>, action: ToolAction) -> BoxFuture<'static, Result<(), Refusal>> {
    let fork = fork.clone();
    Box::pin(async move {
        fork.send(action)
            .await
            .unwrap_or(Err(Refusal::ActorGone(Peer::BackgroundFork)))
    })
}

impl ToolBackend for ForkBackend {
    fn ping(&self, message: String, critical: bool) -> BoxFuture<'_, Result<(), Refusal>> {
        ask(&self.fork, ToolAction::Ping { message, critical })
    }
    fn embed(&self, embed: Embed, critical: bool) -> BoxFuture<'_, Result<(), Refusal>> {
        ask(&self.fork, ToolAction::Embed { embed, critical })
    }
    fn report(&self, message: String) -> BoxFuture<'_, Result<(), Refusal>> {
        ask(&self.fork, ToolAction::Report(message))
    }
    fn follow_up(&self, minutes_from_now: u32) -> BoxFuture<'_, Result<(), Refusal>> {
        ask(&self.fork, ToolAction::FollowUp(minutes_from_now))
    }
    fn save_context(&self) -> BoxFuture<'_, Result<(), Refusal>> {
        Box::pin(async { Err(Refusal::SaveContextInBackground) })
    }
    fn enter_fork(&self, _: Option<String>, _: u32) -> BoxFuture<'_, Result<(), Refusal>> {
        Box::pin(async { Err(Refusal::EnterForkInBackground) })
    }
    fn exit_fork(&self) -> BoxFuture<'_, Result<(), Refusal>> {
        Box::pin(async { Err(Refusal::ExitForkInBackground) })
    }
}
