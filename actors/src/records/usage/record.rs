//! One line of `state/usage.jsonl` ([`UsageRecord`]): what one model turn of the conversation
//! or of an interactive fork cost, as the CLI's `result` frame reported it (SPEC §19). Jobs'
//! turns are not here: their cost is on their line of `state/runs.jsonl`.

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

/// Which conversation a turn ran in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UsageKind {
    /// The main conversation (the owner's lines, `/compact`, `/clear`).
    Conversation,
    /// An interactive fork of it.
    Fork,
}

impl UsageKind {
    /// The word written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            UsageKind::Conversation => "conversation",
            UsageKind::Fork => "fork",
        }
    }
}

/// One line of `state/usage.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageRecord {
    /// When the turn ended, with the configured zone's offset.
    pub ts: DateTime<FixedOffset>,
    /// The conversation or an interactive fork.
    pub kind: UsageKind,
    /// The CLI session the turn ran in.
    pub session: String,
    /// The model the turn ran on, when the CLI named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// This turn's cost in US dollars: the CLI's running `total_cost_usd` less its figure after
    /// the previous turn of the same process. The sums in `/usage` add these.
    pub cost_usd: f64,
    /// The CLI's `total_cost_usd` as reported (a running total for its process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cost_usd: Option<f64>,
    /// Input tokens not read from or written to the cache.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens read from the cache.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Input tokens written to the cache.
    #[serde(default)]
    pub cache_write_tokens: u64,
}
