//! What a background fork's CLI is started with: its session (forked from the main one, fresh
//! when isolated, a persistent routine's own), model and thinking, `dontAsk`, exactly the tools its rules allow
//! ([`crate::agent::tools::offer`]), the file hooks, the hook holding its reads to that set, the Stop
//! hook, the lowest CPU priority, the token its outside reads are noted under, and *(ours)*
//! its spend bounds (`--max-budget-usd`, `--max-turns`).

use super::BackgroundFork;
use crate::agent::permissions::file_hooks::hooks as file_hooks;
use crate::claude::brain::{SessionStart, SpawnOptions, Thinking};

impl BackgroundFork {
    /// True when it does not fork the conversation: the job is isolated, no conversation
    /// exists yet, or it is a persistent routine (which runs in its own session).
    pub(super) fn isolated(&self) -> bool {
        self.fired.job.settings().isolated
            || self.parent_session.is_none()
            || self.persistent.is_some()
    }

    /// The session its process starts in: a persistent routine's own, a fork of the
    /// conversation, or a new one.
    fn session_start(&self) -> SessionStart {
        match (&self.persistent, &self.parent_session, self.isolated()) {
            (Some(persistent), _, _) => persistent.session_start(),
            (None, Some(main), false) => SessionStart::Fork(main.clone()),
            _ => SessionStart::NewWithId(uuid::Uuid::new_v4().to_string()),
        }
    }

    /// True when its prompt must carry the memory: its process resumes or forks a session,
    /// whose first system prompt the CLI may keep ([`crate::claude::brain::releases`]).
    pub(super) fn memory_in_first_message(&self) -> bool {
        crate::claude::brain::releases::memory_in_first_message(&self.session_start())
    }

    /// The rules its tools follow, as the job runner put them together when the job fired.
    pub(super) fn rules(&self) -> crate::agent::tools::BackgroundRules {
        self.fired.rules.clone()
    }

    pub(super) fn options(&self) -> SpawnOptions {
        let settings = self.fired.job.settings();
        let mut o = SpawnOptions::new(
            self.config.binary.clone(),
            self.config.data_dir.root().to_path_buf(),
        );

        o.model = settings.model.map(|m| m.as_str().to_owned());
        o.thinking = Some(if settings.thinking {
            Thinking::Adaptive
        } else {
            Thinking::Disabled
        });
        o.permission_mode = Some(crate::claude::brain::PermissionMode::DontAsk);
        // Offered exactly its effective set: the built-ins it names, the `discord` tools that
        // apply; the rest (and the CLI's own scheduling) taken away.
        let kind = crate::agent::tools::SessionKind::Background(self.rules());
        o.allowed_tools = kind.effective_allowed();
        o.tools = Some(kind.built_in_tools(&[]));
        o.disallowed_tools = kind.disallowed_tools();
        // The OS sandbox's rules for its commands, under the setting as it is now (SPEC §20).
        let setting = crate::records::runtime_config::sandbox_setting_in(&self.config.data_dir);
        o.sandbox = Some(crate::agent::sandbox_rules::sandboxing(
            setting,
            &self.config.data_dir,
            crate::agent::sandbox_rules::Session::Background(&o.allowed_tools),
        ));
        o.session = self.session_start();
        // The memory is read now, as the run starts: the latest the conversation wrote. A fork
        // or a resumed routine session reads it in its first message (see `first_message`).
        o.append_system_prompt = Some(crate::agent::memory::system_prompt_for(
            &self.config.system_prompt,
            &self.config.data_dir,
            &o.session,
        ));
        o.setting_sources = Some(vec!["project".to_owned()]);
        // The file hooks hold Read, Glob and Grep too: the read scope answers there.
        let mut hooks = file_hooks();
        hooks.push(crate::claude::brain::HookRegistration::on(
            crate::claude::brain::HookEvent::Stop,
        ));
        o.hooks = hooks;
        o.label = format!("bg:{}", self.fired.job.id());
        // The CLI ends the turn itself at either bound (SPEC §19).
        o.max_budget_usd = self.fired.limits.max_budget_usd;
        o.max_turns = self.fired.limits.max_turns;
        // Background work yields the CPU to the conversation (issue 15: the owner's message
        // must not wait behind ten forks starting at once).
        o.priority = crate::base::cpu_priority::CpuPriority::Background;
        o.env = self.config.cli_env.clone();
        o.env.extend(crate::base::child_env::agent_vars(
            self.config.data_dir.root(),
            crate::base::child_env::AgentSession::Background,
        ));
        o.env.insert(
            "CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS".to_owned(),
            "1".to_owned(),
        );
        // Our Google commands note under this token that the fork read outside text.
        o.env.insert(
            crate::agent::outside_reads::TOKEN_ENV.to_owned(),
            self.read_token.clone(),
        );
        o
    }
}
