//! The PingBudget actor's messages (the table in [`super`] says who sends each).

use actix::Message;

use super::{BudgetSnapshot, ConfigureOutcome, PingDecision};

/// Asks to spend one token on a non-critical background ping. A refusal spends nothing.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "PingDecision")]
pub struct TryUse;

/// Asks to send `text` for `job`: refused, spending nothing, when the same job sent the same
/// text (folded) within the last 24 hours or when no token is left; otherwise a token is spent
/// and the text recorded, in one step, so two forks of one job cannot both send it.
#[derive(Debug, Clone, Message)]
#[rtype(result = "PingDecision")]
pub struct TrySend {
    /// The job's id.
    pub job: String,
    /// What would be sent (a ping's text, an embed's words).
    pub text: String,
}

/// Records `text` as sent by `job` now, without spending anything (a critical ping).
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct NoteSent {
    /// The job's id.
    pub job: String,
    /// What was sent.
    pub text: String,
}

/// Counts a critical ping for today. It consumes no token; the answer is today's count.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "u32")]
pub struct RecordCritical;

/// Asks for the one-line status (`budget: 3/5 (next refill in 42 min)`).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "String")]
pub struct Status;

/// Asks for the status plus today's non-zero counters, as `/ping-budget` shows it.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "String")]
pub struct FullStatus;

/// Asks for a typed view of the budget now.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "BudgetSnapshot")]
pub struct Snapshot;

/// Changes the capacity and/or the refill rate; fields left `None` stay as they are.
/// Tokens earned so far are counted at the old rate before the new one applies. A capacity
/// above [`MAX_CAPACITY`](super::MAX_CAPACITY) or a refill rate outside 1..=[`MAX_REFILL_MINUTES`](super::MAX_REFILL_MINUTES) is refused.
#[derive(Debug, Clone, Copy, Default, Message)]
#[rtype(result = "ConfigureOutcome")]
pub struct Configure {
    /// New capacity (most tokens held).
    pub capacity: Option<u32>,
    /// New refill rate in minutes per token; zero is refused.
    pub refill_rate: Option<u32>,
}
