//! The runner's side of reflections ([`crate::scheduling::reflection`]): a background fork of a
//! `reflect: true` job is counted as due when it ends; once its run is closed (slot freed, the
//! next job in line started) its line goes to the [`Reflector`], and the reflection is counted
//! done when it answers — or at once when there will be none (the run log could not close the
//! run, the bot is stopping: a reflection started then would only be killed). [`super::RunCounts::idle`] waits for them too.

use actix::prelude::*;

use super::{Delivery, JobRunner};
use crate::records::runs::Closed;
use crate::scheduling::reflection::{Reflect, Reflector, ReflectorConfig, Subject, MODEL_TIMEOUT};

/// The reflector for a runner with a conversation (none for a recipient).
pub(super) fn start_reflector(delivery: &Delivery) -> Option<Addr<Reflector>> {
    let Delivery::Conversation { forks, .. } = delivery else {
        return None;
    };
    let config = &forks.config;
    Some(
        Reflector::new(ReflectorConfig {
            data_dir: config.data_dir.clone(),
            binary: config.binary.clone(),
            cli_env: config.cli_env.clone(),
            timeout: MODEL_TIMEOUT,
        })
        .start(),
    )
}

impl JobRunner {
    /// A fork whose job reflects has ended: its reflection is due.
    pub(super) fn reflection_due(&mut self, subject: &Option<Subject>) {
        if subject.is_some() {
            self.counts.reflections += 1;
        }
    }

    /// A due reflection that will not be written.
    pub(super) fn reflection_dropped(&mut self, subject: Option<Subject>) {
        if subject.is_some() {
            self.counts.reflections_done += 1;
        }
    }

    /// Hands the closed run to the reflector (when its job reflects).
    pub(super) fn reflect(
        &mut self,
        subject: Option<Subject>,
        closed: Option<Closed>,
        ctx: &mut Context<Self>,
    ) {
        let (Some(subject), Some(closed), Some(reflector), false) = (
            subject.clone(),
            closed,
            self.reflector.clone(),
            self.stopping,
        ) else {
            return self.reflection_dropped(subject);
        };
        let run = closed.record.run.clone();
        let ask = Reflect {
            subject,
            record: closed.record,
            reports: closed.reports,
        };
        ctx.spawn(
            async move { reflector.send(ask).await }
                .into_actor(self)
                .map(move |answer, act, _ctx| {
                    act.counts.reflections_done += 1;
                    if let Err(e) = answer {
                        tracing::error!(%run, cause = %e, "the reflector has stopped; no reflection");
                    }
                }),
        );
    }
}
