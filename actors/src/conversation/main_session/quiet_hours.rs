//! Quiet hours as the conversation's runtime config has them now *(ours, SPEC §16)*: background
//! forks ask [`QuietHoursNow`] before a non-critical ping, the job runner for the preamble, and
//! the surfaces for `/ping-budget`. The window itself is `crate::records::quiet_hours`.

use actix::prelude::*;

use super::MainSession;
use crate::records::quiet_hours::QuietNow;

/// Asks whether quiet hours are in effect now, and until when.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "QuietNow")]
pub struct QuietHoursNow;

impl Handler<QuietHoursNow> for MainSession {
    type Result = MessageResult<QuietHoursNow>;
    fn handle(&mut self, _msg: QuietHoursNow, _ctx: &mut Self::Context) -> Self::Result {
        let window = self.config.runtime.values().quiet_hours;
        MessageResult(QuietNow::at(
            window,
            self.config.clock.now(),
            self.config.tz,
        ))
    }
}
