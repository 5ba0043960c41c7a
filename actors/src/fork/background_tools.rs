//! What a background fork may use: the rules its tools follow (its settings and declared tools),
//! and the backend of its `discord` tools, which hands every call to the fork's mailbox as a
//! [`ToolAction`] (carried out in [`super::tool_actions`]).

use actix::prelude::*;

use super::background::{BackgroundConfig, BackgroundFork};
use super::tool_actions::ToolAction;
use crate::brain::BoxFuture;
use crate::data_dir::DataDir;
use crate::jobs::Job;
use crate::permissions::background::allowed_tools_for_job;
use crate::tools::SentFile;
use crate::tools::{
    BackgroundRules, ChainPosition, DiscordTools, Embed, Peer, Refusal, SessionKind, ToolBackend,
    Workspace,
};

/// What a background run of `job` may use: its settings and its declared tools — the minimal
/// background set, then the job's `allowed-tools`, then its skills' — read and validated now
/// (the files may have changed since start-up). `log` reports patterns that were dropped or
/// are too broad; the job runner does so once per fire, the fork then reads the same again.
/// What each kind of session is offered follows from these rules ([`crate::tools::offer`]).
pub fn rules(job: &Job, data: &DataDir, log: bool) -> BackgroundRules {
    let settings = job.settings();
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
    let checked = crate::permissions::validate(&declared, data);
    if log {
        checked.log(&format!("job:{}", job.id()));
    }
    let chain = match job {
        Job::Reminder(r) if r.max_chain > 0 => Some(ChainPosition {
            depth: r.chain_depth,
            max: r.max_chain,
        }),
        _ => None,
    };
    BackgroundRules {
        allow_ping: settings.allow_ping,
        update_mode: settings.update_main_session,
        chain,
        allowed: allowed_tools_for_job(Some(&checked.kept), &[]),
    }
}

/// The `discord` tools of one background fork.
pub struct ForkTools;

impl ForkTools {
    /// The tool server for `fired` under `rules`, answering through the fork at `addr`.
    pub fn for_fork(
        rules: BackgroundRules,
        config: &BackgroundConfig,
        addr: Addr<BackgroundFork>,
    ) -> DiscordTools {
        let place = Workspace {
            data_dir: config.data_dir.clone(),
            tz: config.tz,
            clock: config.clock.clone(),
        };
        DiscordTools::new(
            SessionKind::Background(rules),
            place,
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
    fn send_file(&self, file: SentFile) -> BoxFuture<'_, Result<(), Refusal>> {
        ask(&self.fork, ToolAction::File(file))
    }
}
