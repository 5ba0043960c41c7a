//! *(ours, SPEC §19)* What each turn of the conversation or of an interactive fork cost, told
//! to the usage log (`state/usage.jsonl`) when its result comes. A foreground job's turn is
//! left out: its cost is on its line of the run history already, taken the same way.

use super::fork_role::Role;
use super::turn::Turn;
use super::MainSession;
use crate::claude::brain::TurnResult;
use crate::records::usage::{RecordTurn, UsageKind, UsageRecord};

impl MainSession {
    /// Records the usage of the turn `result` ended (`turn`, with the lines the CLI merged into
    /// it). The CLI's `total_cost_usd` is a running total for its process, so the turn's own
    /// cost is what it grew by since the same process's previous result (a new process starts
    /// from zero). Returns that cost, which a foreground job's run line carries instead.
    pub(super) fn record_usage(
        &mut self,
        turn: &Turn,
        merged: &[Turn],
        result: &TurnResult,
    ) -> Option<f64> {
        let cost_usd = self.turns.turn_cost(self.process.generation, result);
        if turn.job.is_some() || merged.iter().any(|t| t.job.is_some()) {
            return cost_usd;
        }
        let Some(usage) = &self.config.usage else {
            return cost_usd;
        };
        let kind = match self.forks.role {
            Role::Main => UsageKind::Conversation,
            Role::Fork(_) => UsageKind::Fork,
        };
        let session = self.saved.id_of(&result.session_id);
        let u = &result.usage;
        let record = UsageRecord {
            ts: self
                .config
                .clock
                .now()
                .with_timezone(&self.config.tz)
                .fixed_offset(),
            kind,
            session,
            model: turn.model.clone(),
            cost_usd: cost_usd.unwrap_or(0.0),
            total_cost_usd: result.total_cost_usd,
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cache_read_tokens: u.cache_read_input_tokens,
            cache_write_tokens: u.cache_creation_input_tokens,
        };
        usage.do_send(RecordTurn(record));
        cost_usd
    }
}
