//! Which kind of session a `discord` server serves (SPEC §6, §10), the rules a background job
//! brings, and what follows from them: the tools listed to the model and the embed footer.
//!
//! The original listed all seven tools everywhere and left the rest to permissions; we list all
//! seven in the main session and interactive forks (the tools that do not apply there refuse
//! with a sentence that points the model elsewhere), and in a background fork leave out what
//! its job's settings remove: `ping_user`/`discord_embed` without `allow-ping`,
//! `report_updates`/`follow_up_chain` when reporting is blocked, `follow_up_chain` outside a
//! chain reminder. `save_context`, `enter_fork` and `exit_fork` stay listed there, as in the
//! original, and refuse.

use crate::jobs::UpdateMode;

use super::schema::ToolName;

/// Where the model calling the tools runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionKind {
    /// The persistent conversation.
    Main,
    /// A fork the user is talking in.
    InteractiveFork,
    /// A disposable fork running a routine, reminder or webhook job.
    Background(BackgroundRules),
}

/// A background job's settings that change what the tools may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackgroundRules {
    /// `allow-ping`: false removes `ping_user` and `discord_embed`, critical included.
    pub allow_ping: bool,
    /// `update-main-session`: `blocked` removes `report_updates` and `follow_up_chain`.
    pub update_mode: UpdateMode,
    /// Where this run sits in a follow-up chain, when it is a chain reminder.
    pub chain: Option<ChainPosition>,
}

impl Default for BackgroundRules {
    /// A job with every default: pings allowed, `on_ping`, no chain.
    fn default() -> Self {
        Self {
            allow_ping: true,
            update_mode: UpdateMode::default(),
            chain: None,
        }
    }
}

/// A chain reminder's place in its chain (`chain-depth` of `max-chain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainPosition {
    /// How many follow-ups came before this run (0 for the root).
    pub depth: u32,
    /// How many follow-ups the chain may have.
    pub max: u32,
}

impl ChainPosition {
    /// Whether this run may schedule another check (the final link cannot).
    pub fn can_follow_up(self) -> bool {
        self.depth < self.max
    }
}

impl BackgroundRules {
    /// Whether reporting to the main session is blocked.
    pub fn reporting_blocked(&self) -> bool {
        self.update_mode == UpdateMode::Blocked
    }

    /// Whether this job lists `tool`.
    fn lists(&self, tool: ToolName) -> bool {
        match tool {
            ToolName::PingUser | ToolName::DiscordEmbed => self.allow_ping,
            ToolName::ReportUpdates => !self.reporting_blocked(),
            ToolName::FollowUpChain => !self.reporting_blocked() && self.chain.is_some(),
            ToolName::SaveContext | ToolName::EnterFork | ToolName::ExitFork => true,
        }
    }
}

impl SessionKind {
    /// The tools listed to the model, in the original's order.
    pub fn listed_tools(&self) -> Vec<ToolName> {
        match self {
            SessionKind::Main | SessionKind::InteractiveFork => ToolName::ALL.to_vec(),
            SessionKind::Background(rules) => ToolName::ALL
                .into_iter()
                .filter(|tool| rules.lists(*tool))
                .collect(),
        }
    }

    /// The footer embeds from this session carry.
    pub fn embed_footer(&self) -> Option<&'static str> {
        match self {
            SessionKind::Main => None,
            SessionKind::InteractiveFork => Some("fork"),
            SessionKind::Background(_) => Some("bg"),
        }
    }

    /// The background rules, for a background fork.
    pub fn background(&self) -> Option<&BackgroundRules> {
        match self {
            SessionKind::Background(rules) => Some(rules),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ToolName::*;

    fn background(
        allow_ping: bool,
        update_mode: UpdateMode,
        chain: Option<(u32, u32)>,
    ) -> SessionKind {
        SessionKind::Background(BackgroundRules {
            allow_ping,
            update_mode,
            chain: chain.map(|(depth, max)| ChainPosition { depth, max }),
        })
    }

    #[test]
    fn main_and_interactive_forks_list_all_seven_tools() {
        let all = vec![
            DiscordEmbed,
            PingUser,
            FollowUpChain,
            SaveContext,
            ReportUpdates,
            EnterFork,
            ExitFork,
        ];
        assert_eq!(SessionKind::Main.listed_tools(), all);
        assert_eq!(SessionKind::InteractiveFork.listed_tools(), all);
    }

    #[test]
    fn default_background_job_lists_everything_but_the_chain() {
        assert_eq!(
            background(true, UpdateMode::OnPing, None).listed_tools(),
            vec![
                DiscordEmbed,
                PingUser,
                SaveContext,
                ReportUpdates,
                EnterFork,
                ExitFork
            ]
        );
    }

    #[test]
    fn chain_reminders_list_follow_up_even_on_the_final_link() {
        for position in [(0, 2), (2, 2)] {
            assert!(background(true, UpdateMode::Freely, Some(position))
                .listed_tools()
                .contains(&FollowUpChain));
        }
    }

    #[test]
    fn no_ping_removes_ping_and_embed() {
        let tools = background(false, UpdateMode::Always, Some((0, 1))).listed_tools();
        assert_eq!(
            tools,
            vec![
                FollowUpChain,
                SaveContext,
                ReportUpdates,
                EnterFork,
                ExitFork
            ]
        );
    }

    #[test]
    fn blocked_reporting_removes_report_and_follow_up() {
        let tools = background(true, UpdateMode::Blocked, Some((0, 3))).listed_tools();
        assert_eq!(
            tools,
            vec![DiscordEmbed, PingUser, SaveContext, EnterFork, ExitFork]
        );
        let silent = background(false, UpdateMode::Blocked, None).listed_tools();
        assert_eq!(silent, vec![SaveContext, EnterFork, ExitFork]);
    }

    #[test]
    fn footer_marks_forks_but_not_the_main_session() {
        assert_eq!(SessionKind::Main.embed_footer(), None);
        assert_eq!(SessionKind::InteractiveFork.embed_footer(), Some("fork"));
        assert_eq!(
            background(true, UpdateMode::OnPing, None).embed_footer(),
            Some("bg")
        );
    }

    #[test]
    fn only_links_before_the_last_may_follow_up() {
        assert!(ChainPosition { depth: 0, max: 1 }.can_follow_up());
        assert!(!ChainPosition { depth: 1, max: 1 }.can_follow_up());
        assert!(!ChainPosition { depth: 0, max: 0 }.can_follow_up());
    }
}
