//! What an update needs to know of the conversation: whether nothing is going on in it that a
//! restart would cut short ([`IsQuiet`]: no answer being written, no interactive fork; the job
//! runner knows about background forks), and the runtime settings in force ([`RuntimeSettings`]: the
//! `auto_update` keys live there).

use actix::prelude::*;

use super::MainSession;
use crate::records::runtime_config::RuntimeConfig;

/// True when a restart would interrupt nothing in the conversation.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "bool")]
pub struct IsQuiet;

/// The runtime settings in force.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "RuntimeConfig")]
pub struct RuntimeSettings;

impl Handler<IsQuiet> for MainSession {
    type Result = bool;
    fn handle(&mut self, _msg: IsQuiet, _ctx: &mut Self::Context) -> bool {
        !self.turns.busy() && !self.forks.in_fork()
    }
}

impl Handler<RuntimeSettings> for MainSession {
    type Result = MessageResult<RuntimeSettings>;
    fn handle(&mut self, _msg: RuntimeSettings, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(*self.config.runtime.values())
    }
}
