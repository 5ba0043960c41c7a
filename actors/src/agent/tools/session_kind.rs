//! Which kind of session a `discord` server serves (SPEC §6, §10), the rules a background job
//! brings, and the embed footer that follows. Which tools each kind is offered is the table in
//! [`super::offer`]; a tool called where it does not apply still refuses with a sentence that
//! points the model elsewhere.

use crate::jobs::UpdateMode;

use super::offer::{BG_REPLY_TOOLS, DEFAULT_BG_TOOLS};

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackgroundRules {
    /// `allow-ping`: false removes `ping_user`, `discord_embed` and `send_file`, critical
    /// included.
    pub allow_ping: bool,
    /// `update-main-session`: `blocked` removes `report_updates` and `follow_up_chain`.
    pub update_mode: UpdateMode,
    /// Where this run sits in a follow-up chain, when it is a chain reminder.
    pub chain: Option<ChainPosition>,
    /// The allow list as the permissions module puts it together (`background_tools`): the reply
    /// tools, the default set (or the policy's), the job's and its skills' tools (validated).
    /// What the settings above take away is not removed here.
    pub allowed: Vec<String>,
}

impl Default for BackgroundRules {
    /// A job with every default: pings allowed, `on_ping`, no chain, the reply tools and the
    /// default background set.
    fn default() -> Self {
        Self {
            allow_ping: true,
            update_mode: UpdateMode::default(),
            chain: None,
            allowed: BG_REPLY_TOOLS
                .iter()
                .chain(DEFAULT_BG_TOOLS.iter())
                .map(|t| (*t).to_owned())
                .collect(),
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
}

impl SessionKind {
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

    #[test]
    fn footer_marks_forks_but_not_the_main_session() {
        assert_eq!(SessionKind::Main.embed_footer(), None);
        assert_eq!(SessionKind::InteractiveFork.embed_footer(), Some("fork"));
        assert_eq!(
            SessionKind::Background(BackgroundRules::default()).embed_footer(),
            Some("bg")
        );
    }

    #[test]
    fn only_links_before_the_last_may_follow_up() {
        assert!(ChainPosition { depth: 0, max: 1 }.can_follow_up());
        assert!(!ChainPosition { depth: 1, max: 1 }.can_follow_up());
        assert!(!ChainPosition { depth: 0, max: 0 }.can_follow_up());
    }

    #[test]
    fn a_default_job_declares_the_reply_tools_and_the_default_set() {
        let allowed = BackgroundRules::default().allowed;
        let (reply, default) = allowed.split_at(BG_REPLY_TOOLS.len());
        assert_eq!(reply, BG_REPLY_TOOLS);
        assert_eq!(default, DEFAULT_BG_TOOLS);
    }
}
