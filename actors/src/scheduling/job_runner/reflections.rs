//! The runner's side of reflections ([`crate::scheduling::reflection`]): a background fork of a
//! `reflect: true` job is counted as due when it ends; once its run is closed (slot freed, the
//! next job in line started) its line waits for a background slot of its own ([`super::queue`]:
//! jobs waiting go first, one reflection holds a slot at a time), then goes to the
//! [`Reflector`], whose model is a CLI process like a fork's. The reflection is counted done,
//! and its slot freed, when the reflector answers — or it is counted done at once when there
//! will be none (the run log could not close the run, the bot is stopping: a reflection
//! started then would only be killed). [`super::RunCounts::idle`] waits for them too.

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

    /// Puts the closed run in line for the reflector (when its job reflects).
    pub(super) fn reflect(
        &mut self,
        subject: Option<Subject>,
        closed: Option<Closed>,
        ctx: &mut Context<Self>,
    ) {
        let (Some(subject), Some(closed), true, false) = (
            subject.clone(),
            closed,
            self.reflector.is_some(),
            self.stopping,
        ) else {
            return self.reflection_dropped(subject);
        };
        self.slots.wait_reflection(Reflect {
            subject,
            record: closed.record,
            reports: closed.reports,
        });
        self.pump(ctx);
    }

    /// Writes `ask` in the slot taken for it; the slot frees when the reflector answers.
    pub(super) fn start_reflection(&mut self, ask: Reflect, ctx: &mut Context<Self>) {
        let run = ask.record.run.clone();
        let Some(reflector) = self.reflector.clone() else {
            // Only queued with a reflector; never reached.
            self.counts.reflections_done += 1;
            self.slots.reflected();
            return;
        };
        tracing::debug!(%run, "a background slot is free; the reflection starts");
        ctx.spawn(
            async move { reflector.send(ask).await }
                .into_actor(self)
                .map(move |answer, act, ctx| {
                    act.counts.reflections_done += 1;
                    act.slots.reflected();
                    if let Err(e) = answer {
                        tracing::error!(%run, cause = %e, "the reflector has stopped; no reflection");
                    }
                    act.pump(ctx);
                }),
        );
    }

    /// The bot is stopping: reflections still waiting for a slot will not be written.
    pub(super) fn drop_waiting_reflections(&mut self) {
        let dropped = self.slots.drop_reflections();
        if !dropped.is_empty() {
            tracing::info!(
                count = dropped.len(),
                "the bot is stopping; waiting reflections are not written"
            );
        }
        self.counts.reflections_done += dropped.len() as u64;
    }
}
