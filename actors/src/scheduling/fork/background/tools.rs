//! What a background fork may use: the rules its tools follow (its settings and declared tools),
//! and the backend of its `discord` tools, which hands every call to the fork's mailbox as a
//! [`ToolAction`] (`report_updates` as a [`Report`]), carried out in
//! [`crate::scheduling::fork::tool_actions`].

use actix::prelude::*;

use super::{BackgroundConfig, BackgroundFork};
use crate::agent::permissions::tool_policy::ToolPolicy;
use crate::agent::permissions::{background_tools, Declared, UnsafeTools};
use crate::agent::tools::SentFile;
use crate::agent::tools::{
    BackgroundRules, ChainPosition, DiscordTools, Embed, Peer, Refusal, SessionKind, ToolBackend,
    Workspace,
};
use crate::base::data_dir::DataDir;
use crate::claude::brain::BoxFuture;
use crate::jobs::Job;
use crate::scheduling::fork::tool_actions::{Report, ToolAction};

/// What a background run of `job` may use: its settings and its tool set — put together by
/// [`background_tools`] from the default set, `policy` (`tool-policy.yaml`), the job's
/// `allowed-tools` and its skills' (read now: the files may have changed since start-up). An
/// unsafe pattern in any of them refuses the run ([`UnsafeTools`]). `log` names the job in the
/// log lines about patterns that are too broad or stripped. The job runner calls this once per
/// fire and hands the rules to the fork; what each kind of session is offered follows from
/// them ([`crate::agent::tools::offer`]).
pub fn rules(
    job: &Job,
    data: &DataDir,
    policy: &ToolPolicy,
    log: bool,
) -> Result<BackgroundRules, UnsafeTools> {
    let settings = job.settings();
    let mut declared = vec![Declared::new(
        "allowed-tools",
        settings.allowed_tools.clone().unwrap_or_default(),
    )];
    for name in settings.skills.iter().flatten() {
        if let Ok(Some(skill)) = crate::jobs::skills::read_skill(&data.skills(), name) {
            if let Some(tools) = skill.allowed_tools {
                declared.push(Declared::new(format!("skill {name}"), tools));
            }
        }
    }
    // A job bound to a subagent may start it, and the subagent's calls need its tools.
    if let Some(name) = settings.subagent.as_deref() {
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        if let Some(found) = crate::jobs::subagent_binding::find(data, home.as_deref(), name) {
            let tools = crate::jobs::subagent_binding::tools_for(&found, name);
            declared.push(Declared::new(format!("subagent {name}"), tools));
        }
    }
    let job_name = job.id().to_string();
    let allowed = background_tools(&declared, policy, data, log.then_some(job_name.as_str()))?;
    let chain = match job {
        Job::Reminder(r) if r.max_chain > 0 => Some(ChainPosition {
            depth: r.chain_depth,
            max: r.max_chain,
        }),
        _ => None,
    };
    Ok(BackgroundRules {
        allow_ping: settings.allow_ping,
        update_mode: settings.update_main_session,
        chain,
        allowed,
    })
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
    fn report(&self, message: String) -> BoxFuture<'_, Result<Option<String>, Refusal>> {
        let fork = self.fork.clone();
        Box::pin(async move {
            fork.send(Report(message))
                .await
                .unwrap_or(Err(Refusal::ActorGone(Peer::BackgroundFork)))
        })
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
